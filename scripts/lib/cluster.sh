# Talking to the running cluster over loopback HTTP; shared by both runtime drivers and tests.
# Needs config.sh sourced first.

# es_get PATH [NODE]: body of a GET, empty and non-zero if the node does not answer.
es_get() { curl -fsS --max-time 5 "$(es_url "${2:-}")$1" 2>/dev/null; }

cluster_status() { es_get "/_cluster/health" | jq -r '.status // empty' 2>/dev/null; }

# wait_for_health green|yellow SECONDS: 0 once the cluster reaches that status (green also
# satisfies yellow), 1 after SECONDS. Uses the cluster's own wait so it returns the moment the
# status is reached.
wait_for_health() {
  local want="$1" timeout="$2" deadline=$((SECONDS + $2)) status
  while ((SECONDS < deadline)); do
    status="$(curl -fsS --max-time 12 "$(es_url)/_cluster/health?wait_for_status=$want&timeout=10s" 2>/dev/null \
      | jq -r 'select(.timed_out == false) | .status' 2>/dev/null || true)"
    [[ -n "$status" ]] && return 0
    sleep 1
  done
  return 1
}

# rss_of PID: resident memory in MiB, empty if the process is gone
rss_of() { ps -o rss= -p "$1" 2>/dev/null | awk '{printf "%d", $1/1024}'; }
