#!/usr/bin/env bats
# The native nodes' JVM AOT cache (runtimes/native/lib/aot-cache.sh): every node maps the one
# cache, a missing cache is recorded before a node starts, ES_AOT_CACHE=off starts without it,
# and a bad value stops nothing. Whether it makes a start faster is a figure, not a test:
# make bench-startup measures `make up SEED=0` with it and with ES_AOT_CACHE=off in one run.

setup() {
  load ../lib/lab
  [[ "$(lab_runtime)" != compose ]] || skip "native only (the compose runtime's nodes start in their images)"
}

teardown_file() {
  load ../lib/lab
  # leave the lab whole, with the cache, for the files that run after this one
  [[ "$(lab_runtime)" == compose ]] && return 0
  es GET "/_cat/nodes?h=name" 2>/dev/null | grep -qx "$NODE" || "$LAB" restart "$NODE" >/dev/null 2>&1 || true
}

NODE=es-data-4

node_pid() { cut -d' ' -f1 "$LAB_DIR/run/$1.pid"; }
# the -XX:AOTCache= file NODE's JVM runs with, if any
aot_flag_of() { tr '\0' '\n' <"/proc/$(node_pid "$1")/cmdline" | sed -n 's/^-XX:AOTCache=//p'; }
# NODE's log since its last start
log_since_start() { awk '/^=== .* starting /{buf=""} {buf = buf $0 "\n"} END {printf "%s", buf}' "$LAB_DIR/logs/$1.log"; }
cache_files() { find "$LAB_CACHE/native/es-$ES_VERSION/aot" -name 'elasticsearch-*.aot' 2>/dev/null; }

@test "every node of the native lab maps the one JVM AOT cache, and no node's JVM refused it" {
  local n file
  run cache_files
  assert_equal "${#lines[@]}" 1
  file="${lines[0]}"
  [[ -s "$file" ]] || fail "empty cache $file"
  for n in $(lab_nodes); do
    assert_equal "$(aot_flag_of "$n")" "$file"
    # a cache the JVM cannot map (another JDK build, other options) is an [error][aot] line
    run log_since_start "$n"
    refute_output --partial "[error][aot]"
    assert_output --partial "] started"
  done
}

@test "a bad ES_AOT_CACHE is one line and exit 2, and the node keeps running" {
  local before
  before="$(node_pid "$NODE")"
  run env ES_AOT_CACHE=maybe "$LAB" restart "$NODE"
  assert_failure 2
  # one line (after the dispatcher's "runtime:" line)
  assert_equal "$(grep -vc '^runtime: ' <<<"$output")" 1
  assert_output --partial "ES_AOT_CACHE=maybe: use on"
  assert_equal "$(node_pid "$NODE")" "$before"
  kill -0 "$before"
}

@test "ES_AOT_CACHE=off: make node-restart starts the node without the cache" {
  run env ES_AOT_CACHE=off make -s -C "$REPO" node-restart NODE="$NODE"
  assert_success
  assert_output --partial "$NODE is back"
  assert_equal "$(aot_flag_of "$NODE")" ""
}

@test "a missing cache is recorded before the node starts, and the node starts with it" {
  local file
  file="$(cache_files)"
  [[ -n "$file" ]] || fail "no cache to begin with"
  mv "$file" "$BATS_FILE_TMPDIR/old.aot"
  run make -s -C "$REPO" node-restart NODE="$NODE"
  [[ -e "$file" ]] || mv "$BATS_FILE_TMPDIR/old.aot" "$file"
  assert_success
  assert_output --regexp "AOT cache recorded in [0-9]+s \([0-9]+ MiB\): $file"
  assert_output --partial "$NODE is back"
  [[ -s "$file" ]]
  assert_equal "$(aot_flag_of "$NODE")" "$file"
  run log_since_start "$NODE"
  refute_output --partial "[error][aot]"
  # the training node is gone, and so are its files
  assert_equal "$(pgrep -f -- "node.name=aot-training" || true)" ""
  [[ ! -e "$LAB_DIR/tmp/aot-training" ]]
}
