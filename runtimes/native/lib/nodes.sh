# One Elasticsearch node = one JVM process. Pid files and logs live under $LAB_DIR (see
# scripts/lib/process.sh), data in $DATA_DIR. The JVMs also carry -Dtenantlab.lab=$LAB_DIR, so
# `ps` shows which lab a node belongs to.

DATA_DIR="$LAB_DIR/data"

# Refuses to start when a port of NODE is taken by anything but this lab's own NODE.
check_node_ports() {
  local node="$1" port holder pid other
  for port in "$(node_var "$node" HTTP_PORT)" "$(node_var "$node" TRANSPORT_PORT)"; do
    holder="$(port_holder "$port")"
    [[ -z "$holder" ]] && continue
    pid="${holder%% *}"
    other="$(lab_of_pid "$pid")"
    if [[ -n "$other" ]]; then
      die "port $port ($node) is held by another tenantlab lab (pid $pid, state in $other): run 'make down' in that lab first"
    fi
    die "port $port ($node) is already in use by pid $holder: stop that process or change $(node_key "$node")_*_PORT in lab.env"
  done
}

# The nodes' config, from the one node-config source (packages/contract/src/node-config.js,
# through bin/node-config native): per node its JVM options, the launcher's class, its
# Elasticsearch settings and its limits, as tab-separated lines NODE FIELD VALUE read with awk
# (no eval). Loaded once per command, in the shell that starts the nodes (subshells inherit it);
# a node asking for CPUs this machine does not have is one line and exit 2.
load_node_config() {
  [[ -n "${NODE_CONFIG:-}" ]] && return 0
  NODE_CONFIG="$("$LAB_ROOT/packages/contract/bin/node-config" native \
    --lab-dir "$LAB_DIR" --dist "$ES_DIST" --data "$DATA_DIR" --logs "$LOG_DIR")" || exit 2
}

# node_config NODE FIELD: FIELD's values for NODE, one a line in order (jvm, main, setting,
# cpuset, cpus, mem; NODE '*': shape). Call load_node_config first.
node_config() {
  awk -F'\t' -v n="$1" -v f="$2" '$1 == n && $2 == f { print substr($0, length($1) + length($2) + 3) }' <<<"$NODE_CONFIG"
}

# node_command NODE: the java command line of NODE after the java binary, one word a line: its
# JVM options, the launcher's class, then its settings as key=value
node_command() {
  awk -F'\t' -v n="$1" '$1 == n && ($2 == "jvm" || $2 == "main" || $2 == "setting") { print substr($0, length($1) + length($2) + 3) }' <<<"$NODE_CONFIG"
}

start_node() {
  local node="$1" java_home="$2" args=() prefix=()
  mkdir -p "$RUN_DIR" "$LOG_DIR/$node" "$DATA_DIR/$node" "$LAB_DIR/tmp/$node"
  load_node_config
  mapfile -t args < <(node_command "$node")
  ((${#args[@]})) || die "$node: no config from packages/contract/bin/node-config"
  # its size (node-limits.sh): cgroup-exec or taskset in front of java, which both exec in place
  mapfile -t prefix < <(shape_prefix "$node")
  echo "=== $(date -Is) starting $node" >>"$(log_file "$node")"
  # AOT_FLAG: the JVM AOT cache every node maps (aot-cache.sh: ensure_aot_cache), when there is one
  spawn_detached "$(log_file "$node")" "${prefix[@]}" "$java_home/bin/java" ${AOT_FLAG:+"$AOT_FLAG"} "${args[@]}" >"$(pid_file "$node")"
}

# stop_node NODE [SIGNAL]: TERM lets the node close its shards cleanly; KILL is the fault drill
stop_node() {
  stop_name "$1" "${2:-TERM}" 30
  remove_node_cgroup "$1"
}
