# Loads lab.env into the environment (a value already in the environment wins, so
# `ES_HEAP=1g make up` works) and offers the small helpers every lab script shares.
# Source it; it sets LAB_ROOT, LAB_DIR, LAB_CACHE and exports every key of lab.env.

LAB_ROOT="${LAB_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
LAB_ENV_FILE="${LAB_ENV_FILE:-$LAB_ROOT/lab.env}"

# lab.env is parsed by the lab's one parser (packages/contract/src/lab-env.js, through its CLI),
# so bash, the allocator and the seeder accept and reject exactly the same lines. A key
# already set here (exported or not) wins, as before. One node start per sourcing (~0.1 s).
lab_load_env() {
  local lines line key stamp
  # A parent that loaded this same file (unchanged since) exported every key already, and a
  # key already set wins: nothing to do, and no node start for each nested script.
  stamp="$LAB_ENV_FILE@$(stat -c %Y "$LAB_ENV_FILE" 2>/dev/null)"
  [[ "${LAB_ENV_LOADED:-}" == "$stamp" ]] && return 0
  lines="$(LAB_ENV_FILE="$LAB_ENV_FILE" node "$LAB_ROOT/packages/contract/bin/lab-env")" || return 1
  while IFS= read -r line; do
    [[ -n "$line" ]] || continue
    key="${line#export }" key="${key%%=*}"
    # the CLI prints `export KEY='VALUE'`, single-quoted: safe to eval
    [[ -z "${!key+x}" ]] && eval "$line"
  done <<<"$lines"
  export LAB_ENV_LOADED="$stamp"
  return 0
}
lab_load_env || exit 2

# State (data, logs, pids) of this lab; LAB_DIR lets a second checkout or a test keep its own.
export LAB_DIR="${LAB_DIR:-$LAB_ROOT/.lab}"
# Downloads and builds are shared by every lab of this checkout and survive `make clean`.
export LAB_CACHE="${LAB_CACHE:-$LAB_ROOT/.lab/cache}"

die() { echo "error: $*" >&2; exit 2; }
say() { echo "$*" >&2; }

# seconds_of DURATION: 90s, 2m, 1h30m -> seconds; empty when malformed (lab.env's durations:
# LOAD_MAX_DURATION, LOAD_SETTLE_TIMEOUT, LAB_WARMUP)
seconds_of() {
  [[ "$1" =~ ^([0-9]+h)?([0-9]+m)?([0-9]+s)?$ && -n "$1" ]] || return 0
  local h="${BASH_REMATCH[1]%h}" m="${BASH_REMATCH[2]%m}" s="${BASH_REMATCH[3]%s}"
  echo $((10#${h:-0} * 3600 + 10#${m:-0} * 60 + 10#${s:-0}))
}

# lab.env's Node.js (NODE_VERSION) first on PATH, for this script and every process it starts:
# the cache's copy (warm: one file test, no process). Without one, scripts/install/node.sh
# (once per process tree: LAB_NODE_CHECKED) installs it, or keeps a machine's node of that major.
lab_use_node() {
  [[ -n "${NODE_VERSION:-}" ]] || return 0
  local bin="$LAB_CACHE/node-$NODE_VERSION/bin"
  if [[ ! -x "$bin/node" ]]; then
    [[ -n "${LAB_NODE_SKIP:-}" || "${LAB_NODE_CHECKED:-}" == "$NODE_VERSION" ]] && return 0
    "$LAB_ROOT/scripts/install/node.sh" >/dev/null || exit 2
    export LAB_NODE_CHECKED="$NODE_VERSION"
    [[ -x "$bin/node" ]] || return 0
  fi
  [[ "$PATH" == "$bin:"* ]] || export PATH="$bin:$PATH"
}
lab_use_node

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
# Every port key of lab.env (nodes' HTTP and transport, services, the load's LOAD_UI_PORT and
# LOAD_METRICS_PORT)
lab_port_keys() { sed -n 's/^\([A-Z0-9_]*_PORT\)=.*/\1/p' "$LAB_ENV_FILE"; }
# fetch_refuses PORT: 0 when every fetch() refuses PORT (the WHATWG "bad ports" above 1023:
# Node's, the browser's), so a lab service there is unreachable from the seeder or the console
fetch_refuses() { [[ " 1719 1720 1723 2049 3659 4045 4190 5060 5061 6000 6566 6665 6666 6667 6668 6669 6679 6697 10080 " == *" $1 "* ]]; }
# shifted_ports_ok N: 0 when no port + N is one fetch() refuses
shifted_ports_ok() {
  local key
  for key in $(lab_port_keys); do fetch_refuses "$((${!key} + $1))" && return 1; done
  return 0
}
# shift_lab_ports N: every port + N, for a second lab (tests, benchmarks) beside the first; one
# whose services a fetch() reaches picks N with shifted_ports_ok (an Elasticsearch-only lab, the
# experiments', need not)
shift_lab_ports() {
  local key
  for key in $(lab_port_keys); do export "$key=$((${!key} + $1))"; done
}

# The lab in LAB_DIR uses an existing cluster (RUNTIME=external, runtimes/external/bin/lab): asked for
# now, or the running lab's runtime (it sticks until make down, as the other runtimes do)
lab_is_external() {
  [[ "${RUNTIME:-auto}" == external ]] && return 0
  [[ "${RUNTIME:-auto}" == auto && "$(cat "$LAB_DIR/runtime" 2>/dev/null)" == external ]]
}
# external_url: ES_URL, else the one `make up RUNTIME=external` kept (connection.env, no secret)
external_url() {
  local url="${ES_URL:-}"
  [[ -n "$url" ]] || url="$(sed -n 's/^ES_URL=//p' "$LAB_DIR/connection.env" 2>/dev/null)"
  echo "${url%/}"
}
# es_url [NODE]: a node's HTTP address (default: the lab's entry point); an external lab's
# cluster URL whatever the node
es_url() {
  if lab_is_external; then external_url; return; fi
  echo "http://$LAB_BIND:$(node_var "${1:-$LAB_MASTER_NODE}" HTTP_PORT)"
}
