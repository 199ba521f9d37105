#!/usr/bin/env bats
# Bad input to the lab's commands: a clear one-line error, a non-zero exit, nothing started.
# No lab is needed: every lab these tests touch lives in a temporary LAB_DIR.

setup() {
  load ../lib/lab
  export LAB_DIR="$BATS_TEST_TMPDIR/lab"
  # far from the ports of any lab that may be running
  shift_ports 3000
}

@test "make help lists the lab's targets" {
  run make -s -C "$REPO" help
  assert_success
  local t
  for t in up down status logs clean test node-kill node-restart bench-startup; do
    assert_output --regexp "  $t +[A-Z]"
  done
}

@test "an unknown RUNTIME is refused with one line" {
  RUNTIME=podman run "$LAB" up
  assert_failure 2
  assert_output "error: unknown RUNTIME 'podman': use compose, native, external (with ES_URL), or leave it unset to pick automatically"
}

@test "node-kill and node-restart need a known NODE" {
  run "$LAB" kill
  assert_failure 2
  assert_output --partial "NODE is required"
  run "$LAB" restart es-data-7
  assert_failure 2
  assert_output --partial "unknown NODE 'es-data-7'"
  run "$LAB" kill es-data-1
  assert_failure 2
  assert_output --partial "es-data-1 is not running"
}

@test "a JDK older than 21 in ES_JAVA_HOME is refused before anything starts" {
  local jdk="$BATS_TEST_TMPDIR/jdk17"
  mkdir -p "$jdk/bin"
  printf '#!/bin/sh\necho "openjdk version \\"17.0.2\\" 2022-01-18" >&2\n' >"$jdk/bin/java"
  chmod +x "$jdk/bin/java"
  echo 'JAVA_VERSION="17.0.2"' >"$jdk/release"
  ES_JAVA_HOME="$jdk" run "$LAB" up
  assert_failure 2
  assert_line --partial "is Java 17; Elasticsearch $ES_VERSION needs a JDK 21 or newer"
  assert_equal "$(lab_pids "$LAB_DIR")" ""
}

@test "a port held by another process is named with its holder, and nothing starts" {
  local port
  port="$ES_DATA_2_HTTP_PORT"
  python3 -c "import socket,time; s=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(('127.0.0.1', $port)); s.listen(); time.sleep(60)" &
  local holder=$!
  for _ in $(seq 50); do ss -Hltn "sport = :$port" | grep -q . && break; sleep 0.1; done
  run "$LAB" up
  kill "$holder"
  assert_failure 2
  assert_output --partial "port $port (es-data-2) is already in use by pid $holder"
  assert_output --partial "python3"
  assert_equal "$(lab_pids "$LAB_DIR")" ""
  [[ ! -e "$LAB_DIR/run/es-master.pid" ]]
}

@test "make clean asks first: without a terminal and without FORCE=1 it deletes nothing" {
  mkdir -p "$LAB_DIR/data/es-master"
  touch "$LAB_DIR/data/es-master/keep"
  run "$LAB" clean </dev/null
  assert_failure 2
  assert_output --partial "FORCE=1"
  [[ -e "$LAB_DIR/data/es-master/keep" ]]
  FORCE=1 run "$LAB" clean </dev/null
  assert_success
  [[ ! -e "$LAB_DIR/data" ]]
}

@test "a malformed lab.env line is named" {
  local env="$BATS_TEST_TMPDIR/lab.env"
  printf 'ES_HEAP = 512m\n' >"$env"
  LAB_ENV_FILE="$env" run "$LAB" status
  assert_failure 2
  assert_output --partial "not a KEY=VALUE line: ES_HEAP = 512m"
}

@test "a malformed lab.env line is the same one line, with its line number, in every consumer" {
  local env="$BATS_TEST_TMPDIR/lab.env"
  printf '# a comment\nES_HEAP=512m\nLAB_BIND = 127.0.0.1\n' >"$env"
  local want="error: $env:3: not a KEY=VALUE line: LAB_BIND = 127.0.0.1"
  "$REPO/scripts/install/npm-deps.sh" >/dev/null 2>&1 || true
  for cmd in "$LAB status" "node $REPO/allocator/src/main.js" "$REPO/allocator/bin/tenantlab-allocator ls" \
    "$REPO/seed-data/bin/tenantlab-seed manifest -p ci" "$REPO/packages/contract/bin/lab-env"; do
    LAB_ENV_FILE="$env" run $cmd
    assert_failure 2
    assert_output "$want"
  done
}

@test "the compose runtime asked for where no Docker engine answers is an error, not a fallback" {
  if timeout 5 docker info >/dev/null 2>&1; then skip "a Docker engine answers here"; fi
  RUNTIME=compose run "$LAB" up
  assert_failure 2
  assert_output --partial "RUNTIME=compose but no Docker engine"
  [[ ! -e "$LAB_DIR/runtime" ]]
}

@test "make watch on a terminal redraws in place and quits on q, cursor restored; bad flags are one line" {
  command -v script >/dev/null || skip "script(1) (bsdutils) is not installed"
  # a terminal (script's pseudo-terminal), an allocator that does not answer: the view says so
  # on every refresh; q quits with exit 0
  run bash -c "(sleep 2.5; printf q) | timeout 20 script -qfec 'node \"$REPO/allocator/bin/tenantlab-allocator\" --url http://127.0.0.1:1 watch --every 1' /dev/null"
  assert_success
  assert_output --partial $'\e[H\e[2J'
  assert_output --partial "allocator not reachable at http://127.0.0.1:1"
  assert_output --partial "(q quits)"
  [[ "$output" == *$'\e[?25h'* ]] || fail "the cursor was not shown again: $(cat -A <<<"$output")"
  run node "$REPO/allocator/bin/tenantlab-allocator" --url http://127.0.0.1:1 watch --for 0
  assert_failure 2
  assert_output "tenantlab-allocator: --for must be a number of seconds above 0, got '0'"
}

@test "make tenant-add, tenant-rm, tenant-move without ID= (or PRODUCTS=): one line naming it, exit 2, nothing run" {
  local target
  for target in "tenant-add PRODUCTS=5" "tenant-add ID=acme" tenant-rm "tenant-move GROUP=g2"; do
    # shellcheck disable=SC2086 # the target and its variables
    run make -s -C "$REPO" $target
    assert_failure 2
    assert_equal "${#lines[@]}" 1
  done
  run make -s -C "$REPO" tenant-add PRODUCTS=5
  assert_output --regexp '^Makefile:[0-9]+: \*\*\* ID= is required, e\.g\. make tenant-add ID=acme PRODUCTS=500\.  Stop\.$'
  run make -s -C "$REPO" tenant-add ID=acme
  assert_output --regexp '^Makefile:[0-9]+: \*\*\* PRODUCTS= is required, e\.g\. make tenant-add ID=acme PRODUCTS=500\.  Stop\.$'
  run make -s -C "$REPO" tenant-rm
  assert_output --regexp '^Makefile:[0-9]+: \*\*\* ID= is required, e\.g\. make tenant-rm ID=acme\.  Stop\.$'
  run make -s -C "$REPO" tenant-move GROUP=g2
  assert_output --regexp '^Makefile:[0-9]+: \*\*\* ID= is required, e\.g\. make tenant-move ID=acme GROUP=g2\.  Stop\.$'
}

@test "the allocator CLI's add, rm and rebalance refuse bad input before calling the allocator: exit 2" {
  # an allocator URL where nothing listens: a call would end in 'not reachable', exit 1
  local cli="$REPO/allocator/bin/tenantlab-allocator" url=http://127.0.0.1:1
  run node "$cli" --url "$url" add acme many
  assert_failure 2
  assert_output "tenantlab-allocator: EXPECTED_PRODUCTS must be a non-negative integer, got 'many'"
  run node "$cli" --url "$url" add acme -3
  assert_failure 2
  assert_output "tenantlab-allocator: EXPECTED_PRODUCTS must be a non-negative integer, got '-3'"
  run node "$cli" --url "$url" rebalance --by sideways
  assert_failure 2
  assert_output "tenantlab-allocator: --by must be observed or static, got 'sideways'"
  run make -s -C "$REPO" rebalance BY=sideways
  assert_failure
  assert_line --index 0 "tenantlab-allocator: --by must be observed or static, got 'sideways'"
  # a missing argument: the error first, then the usage
  run node "$cli" --url "$url" add acme
  assert_failure 2
  assert_line --index 0 "tenantlab-allocator: missing ID EXPECTED_PRODUCTS"
  assert_line --index 1 --partial "usage: tenantlab-allocator <command>"
  run node "$cli" --url "$url" rm
  assert_failure 2
  assert_line --index 0 "tenantlab-allocator: missing ID"
  # and a call that does go out: one line, exit 1
  run node "$cli" --url "$url" rm acme
  assert_failure 1
  assert_equal "${#lines[@]}" 1
  assert_output --partial "not reachable at $url"
}
