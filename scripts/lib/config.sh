# Loads lab.env into the environment (a value already in the environment wins, so
# `ES_HEAP=1g make up` works) and offers the small helpers every lab script shares.
# Source it; it sets LAB_ROOT, LAB_DIR, LAB_CACHE and exports every key of lab.env.

LAB_ROOT="${LAB_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
LAB_ENV_FILE="${LAB_ENV_FILE:-$LAB_ROOT/lab.env}"

lab_load_env() {
  local line key value
  while IFS= read -r line || [[ -n "$line" ]]; do
    [[ "$line" =~ ^[[:space:]]*(#|$) ]] && continue
    if [[ ! "$line" =~ ^([A-Z][A-Z0-9_]*)=([^[:space:]]*)$ ]]; then
      echo "error: $LAB_ENV_FILE: not a KEY=VALUE line: $line" >&2
      return 1
    fi
    key="${BASH_REMATCH[1]}" value="${BASH_REMATCH[2]}"
    [[ -z "${!key+x}" ]] && export "$key=$value"
  done <"$LAB_ENV_FILE"
  return 0
}
lab_load_env || exit 2

# State (data, logs, pids) of this lab; LAB_DIR lets a second checkout or a test keep its own.
export LAB_DIR="${LAB_DIR:-$LAB_ROOT/.lab}"
# Downloads and builds are shared by every lab of this checkout and survive `make clean`.
export LAB_CACHE="${LAB_CACHE:-$LAB_ROOT/.lab/cache}"

die() { echo "error: $*" >&2; exit 2; }
say() { echo "$*" >&2; }

# es-data-1 -> ES_DATA_1
node_key() { local k="${1^^}"; echo "${k//-/_}"; }
# node_var es-data-1 HTTP_PORT -> value of ES_DATA_1_HTTP_PORT
node_var() { local v; v="$(node_key "$1")_$2"; echo "${!v:-}"; }
lab_nodes() { tr ',' ' ' <<<"$LAB_NODES"; }
is_lab_node() { [[ ",$LAB_NODES," == *",$1,"* ]]; }
require_node() {
  [[ -n "${1:-}" ]] || die "NODE is required: one of $(lab_nodes) (e.g. make node-kill NODE=es-data-1)"
  is_lab_node "$1" || die "unknown NODE '$1': pick one of $(lab_nodes)"
}
# Every port key of lab.env (nodes' HTTP and transport, services)
lab_port_keys() { sed -n 's/^\([A-Z0-9_]*_PORT\)=.*/\1/p' "$LAB_ENV_FILE"; }
# shift_lab_ports N: every port + N, for a second lab (tests, benchmarks) beside the first
shift_lab_ports() {
  local key
  for key in $(lab_port_keys); do export "$key=$((${!key} + $1))"; done
}

es_url() { echo "http://$LAB_BIND:$(node_var "${1:-$LAB_MASTER_NODE}" HTTP_PORT)"; }
