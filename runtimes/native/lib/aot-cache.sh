# The nodes' AOT cache (JDK 25 and newer: JEP 483, 514, 515): the classes an Elasticsearch node
# loads and links while it starts, and the JIT's first method profiles, recorded once by a
# training start of one node and mapped by every node at each start. Why: five nodes starting
# together on a 2-core machine are CPU-bound (about 10 s of CPU each, most of it loading classes
# and compiling them), and the cache takes about a quarter of that away on every `make up`,
# `make node-restart` and test lab.
#
# ES_AOT_CACHE (lab.env): on uses it where the JDK can (25+; an older JDK starts without one and
# says so once per make up); off starts every node without it (the baseline make bench-startup
# measures beside it). The cache is kept in $ES_DIST/aot/ (so a rebuilt distribution drops it),
# named by what it depends on: the JDK's build and the nodes' JVM options. A JVM that still finds
# it does not match (a JDK updated in place) writes one warning to its log and starts without it.
# Requires runtimes/native/lib/nodes.sh (node_config) and scripts/lib/process.sh.

AOT_TRAINING_TIMEOUT=180
AOT_WRITE_TIMEOUT=60

# aot_check_setting: one line and exit 2 for an ES_AOT_CACHE that is neither on nor off
aot_check_setting() {
  case "${ES_AOT_CACHE:-on}" in
    on | off) ;;
    *) die "ES_AOT_CACHE=$ES_AOT_CACHE: use on (the nodes share a JVM AOT cache, JDK 25+) or off (they start without it)" ;;
  esac
}

# aot_supported JAVA_HOME: the JDK has one-step AOT cache creation (-XX:AOTCacheOutput, JDK 25)
aot_supported() {
  "$1/bin/java" -XX:+PrintFlagsFinal -version 2>/dev/null | grep -qw AOTCacheOutput
}

# aot_cache_file JAVA_HOME: where the cache for this JDK and these JVM options lives. The options
# that name a node (its temp folder, heap and direct memory) are left out of the name: the cache
# does not depend on them, and one cache serves every node. Call load_node_config first.
aot_cache_file() {
  local key
  key="$({
    cat "$1/release" 2>/dev/null || echo "$1"
    node_config aot-training jvm | grep -Ev '^-(Xms|Xmx|XX:MaxDirectMemorySize=|Djava\.io\.tmpdir=|Dtenantlab\.lab=)'
  } | sha256sum | cut -c1-16)"
  echo "$ES_DIST/aot/elasticsearch-$key.aot"
}

# ensure_aot_cache JAVA_HOME: sets AOT_FLAG to the JVM flag every node starts with (empty: none),
# training the cache first when it is missing. A bad ES_AOT_CACHE is one line and exit 2; past
# that it never fails `make up`: a training that does not finish is one warning, and the nodes
# start without a cache.
ensure_aot_cache() {
  local java_home="$1" file
  aot_check_setting
  AOT_FLAG=""
  [[ "${ES_AOT_CACHE:-on}" == on ]] || return 0
  load_node_config
  file="$(aot_cache_file "$java_home")"
  if [[ ! -s "$file" ]]; then
    if ! aot_supported "$java_home"; then
      say "the nodes start without a JVM AOT cache: JDK $(java_major "$java_home") cannot record one (JDK 25 or newer can; ES_AOT_CACHE=off says nothing)"
      return 0
    fi
    train_aot_cache "$java_home" "$file" || return 0
  fi
  AOT_FLAG="-XX:AOTCache=$file"
}

# train_aot_cache JAVA_HOME FILE: starts the training node (node-config's aot-training: the
# master's JVM options, a single-node cluster of its own on loopback, files under
# $LAB_DIR/tmp/aot-training) with -XX:AOTCacheOutput, and stops it cleanly once it has started;
# the JVM writes the cache as it exits (a child JVM assembles it). The node carries the lab's
# tag, so `make down` stops it if this is interrupted; its start is bounded by
# AOT_TRAINING_TIMEOUT, writing the cache as it exits by AOT_WRITE_TIMEOUT (about 5 s here).
train_aot_cache() {
  local java_home="$1" file="$2" dir="$LAB_DIR/tmp/aot-training" args=() id pid start t0=$SECONDS out
  out="$file.partial.$$"
  rm -rf "$dir" "$out" && mkdir -p "$dir/tmp" "$(dirname "$file")"
  mapfile -t args < <(node_command aot-training)
  ((${#args[@]})) || { say "warning: no aot-training node in the node config: the nodes start without an AOT cache"; return 1; }
  say "recording the nodes' JVM AOT cache (once per JDK and build; ES_AOT_CACHE=off skips it): one node started and stopped..."
  id="$(spawn_detached "$dir/node.log" "$java_home/bin/java" "-XX:AOTCacheOutput=$out" "${args[@]}")"
  read -r pid start <<<"$id"
  if [[ -z "${pid:-}" ]]; then
    say "warning: the AOT training node did not start (log: $dir/node.log): the nodes start without a cache"
    return 1
  fi
  until grep -q '\] started' "$dir/node.log" 2>/dev/null; do
    if ! proc_alive "$pid" "$start" || ((SECONDS - t0 > AOT_TRAINING_TIMEOUT)); then
      stop_pid "$pid" "$start" KILL 5
      say "warning: the AOT training node did not start within ${AOT_TRAINING_TIMEOUT}s (log: $dir/node.log): the nodes start without a cache"
      return 1
    fi
    sleep 0.2
  done
  # TERM: a clean exit, at which the JVM writes the cache; KILL only past the bound
  stop_pid "$pid" "$start" TERM "$AOT_WRITE_TIMEOUT"
  if [[ ! -s "$out" ]]; then
    rm -f "$out"
    say "warning: the AOT training node wrote no cache (log: $dir/node.log): the nodes start without one"
    return 1
  fi
  # one cache per distribution build: an older one (another JDK, other options) is dropped
  find "$(dirname "$file")" -name 'elasticsearch-*.aot' ! -name "$(basename "$file")" -delete
  mv -f "$out" "$file"
  rm -rf "$dir"
  say "  AOT cache recorded in $((SECONDS - t0))s ($(($(stat -c %s "$file") / 1048576)) MiB): $file"
}
