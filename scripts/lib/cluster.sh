# Talking to the running cluster over loopback HTTP; shared by both runtime drivers and tests.
# Needs config.sh sourced first.

# es_get PATH [NODE]: body of a GET, empty and non-zero if the node does not answer.
es_get() { curl -fsS --max-time 5 "$(es_url "${2:-}")$1" 2>/dev/null; }

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

# rss_of PID: resident memory in MiB, empty if the process is gone
rss_of() { ps -o rss= -p "$1" 2>/dev/null | awk '{printf "%d", $1/1024}'; }
