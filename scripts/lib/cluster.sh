# Talking to the running cluster over loopback HTTP; shared by both runtime drivers and tests.
# Needs config.sh sourced first.

# es_curl CURL-ARGS...: curl with the cluster's credentials and CA when it is an external one,
# read from a pipe (curl -K), never from the command line where ps would show them
es_curl() {
  if lab_is_external; then
    curl -K <(node "$LAB_ROOT/packages/contract/bin/connection" curl-config 2>/dev/null) "$@"
  else
    curl "$@"
  fi
}

# es_get PATH [NODE]: body of a GET, empty and non-zero if the node does not answer.
es_get() { es_curl -fsS --max-time 5 "$(es_url "${2:-}")$1" 2>/dev/null; }

cluster_status() { es_get "/_cluster/health" | jq -r '.status // empty' 2>/dev/null; }

# cluster_complete [SECONDS]: 0 when the cluster is green with every node of lab.env, asking it
# to wait up to SECONDS (default 3) for that, so it answers the moment it happens
cluster_complete() {
  local secs="${1:-3}"
  curl -fsS --max-time $((secs + 2)) \
    "$(es_url)/_cluster/health?wait_for_status=green&wait_for_nodes=$(lab_nodes | wc -w)&timeout=${secs}s" 2>/dev/null \
    | jq -e '.timed_out == false' >/dev/null 2>&1
}

# wait_cluster_complete SECONDS [CHECK]: 0 once cluster_complete, 1 after SECONDS or as soon as
# the command CHECK (run every round, e.g. "are my processes still alive?") fails
wait_cluster_complete() {
  local deadline=$((SECONDS + $1)) check="${2:-}"
  while ((SECONDS < deadline)); do
    [[ -z "$check" ]] || "$check" || return 1
    cluster_complete 3 && return 0
    sleep 1
  done
  return 1
}

# settle_line HEALTH_JSON: what the cluster is doing, in words ("yellow, 3 shard copies
# initializing, 0 relocating, 5 unassigned")
settle_line() { jq -r '"\(.status), \(.initializing_shards) shard copies initializing, \(.relocating_shards) relocating, \(.unassigned_shards) unassigned"' <<<"$1"; }

# wait_cluster_settled SECONDS: 0 once the cluster is green with no shard copy initializing or
# relocating, saying once on stderr what it waits for; also 0, with a warning, when it stays
# yellow or red with nothing in progress for two checks in a row (replicas it cannot place: one
# data node, a group short of nodes), since waiting would change nothing; 1 after SECONDS.
wait_cluster_settled() {
  local deadline=$((SECONDS + $1)) health idle=0 said=""
  while :; do
    health="$(es_get "/_cluster/health")" || health=""
    if [[ -n "$health" ]]; then
      jq -e '.status == "green" and .initializing_shards == 0 and .relocating_shards == 0' <<<"$health" >/dev/null && return 0
      if jq -e '.initializing_shards == 0 and .relocating_shards == 0 and .delayed_unassigned_shards == 0' <<<"$health" >/dev/null; then
        idle=$((idle + 1))
        if ((idle >= 2)); then
          say "warning: the cluster is $(settle_line "$health") and nothing is in progress: its unassigned copies cannot be placed (make status shows why); going on"
          return 0
        fi
      else
        idle=0
      fi
      if [[ -z "$said" ]]; then
        say "waiting for the cluster to settle first: $(settle_line "$health") (up to $1 s, LOAD_SETTLE_TIMEOUT)"
        said=1
      fi
    fi
    ((SECONDS < deadline)) || return 1
    sleep 2
  done
}

# rss_of PID: resident memory in MiB, empty if the process is gone
rss_of() { ps -o rss= -p "$1" 2>/dev/null | awk '{printf "%d", $1/1024}'; }

# "NAME ALLOCATED_PROCESSORS CPU_PERCENT" per node, as Elasticsearch reports them (the
# processors its thread pools are sized from; the process's CPU use now, 100 = one core)
node_cpu_use() {
  local os stats
  os="$(es_get "/_nodes/os?filter_path=nodes.*.name,nodes.*.os.allocated_processors")" || return 0
  stats="$(es_get "/_nodes/stats/process?filter_path=nodes.*.name,nodes.*.process.cpu.percent")" || return 0
  jq -rn --argjson os "$os" --argjson st "$stats" '
    ($st.nodes // {} | to_entries | map({(.value.name): .value.process.cpu.percent}) | add // {}) as $cpu
    | $os.nodes // {} | to_entries[] | "\(.value.name) \(.value.os.allocated_processors) \($cpu[.value.name] // "-")"'
}

# print_node_sizes: stdin "NODE CPUSET CPUS MEM_MB" (each read back from the kernel or the
# engine, '-' for no limit) -> the size table of `make status`, with Elasticsearch's view
print_node_sizes() {
  local use node cpuset cpus mem procs pct
  use="$(node_cpu_use)"
  printf '%-12s %-8s %-6s %-8s %-11s %s\n' NODE CPUSET CPUS MEM_MB PROCESSORS CPU_NOW
  while read -r node cpuset cpus mem; do
    read -r _ procs pct < <(grep "^$node " <<<"$use" || echo "$node - -")
    printf '%-12s %-8s %-6s %-8s %-11s %s\n' "$node" "$cpuset" "$cpus" "$mem" "$procs" "$([[ "$pct" == - ]] && echo - || echo "$pct%")"
  done
}
