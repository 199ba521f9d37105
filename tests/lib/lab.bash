# Shared by the bats files: the lab's config (the same lab.env, so the tests follow the
# topology and run against either runtime) and small HTTP helpers.
bats_load_library bats-support
bats_load_library bats-assert

REPO="$(cd "$BATS_TEST_DIRNAME/../.." && pwd)"
# shellcheck source=../../scripts/lib/config.sh
source "$REPO/scripts/lib/config.sh"
source "$REPO/scripts/lib/cluster.sh"
LAB="$REPO/scripts/lab"
ES="$(es_url)"
# The lab's contracts come from their one package (packages/contract), never spelled out here
CONTRACT="$REPO/packages/contract"
# alias_of TENANT: the alias every read and write of the tenant goes through (naming.js)
alias_of() {
  node --input-type=module -e 'const { aliasFor } = await import(process.argv[1]); console.log(aliasFor(process.argv[2]));' \
    "$CONTRACT/src/naming.js" "$1"
}
# bulk_lines: product documents (one JSON a line on stdin) -> the write contract's _bulk body
bulk_lines() { node "$CONTRACT/bin/bulk-lines"; }

# es METHOD PATH [JSON]: body of the response; fails on HTTP errors
es() {
  local method="$1" path="$2" body="${3:-}"
  if [[ -n "$body" ]]; then
    curl -fsS --max-time 30 -X "$method" "$ES$path" -H 'content-type: application/json' -d "$body"
  else
    curl -fsS --max-time 30 -X "$method" "$ES$path"
  fi
}

data_nodes() { local n; for n in $(lab_nodes); do [[ -n "$(node_var "$n" GROUP)" ]] && echo "$n"; done; return 0; }
nodes_of_group() { local n; for n in $(data_nodes); do [[ "$(node_var "$n" GROUP)" == "$1" ]] && echo "$n"; done; return 0; }
groups() { local n; for n in $(data_nodes); do node_var "$n" GROUP; done | sort -u; }

# shift_ports N: moves every *_PORT of lab.env by N or more, for a second lab that must not
# collide: the first offset N, N+500, N+1000... at which every shifted port is free (another lab
# of a developer may be running on one of them) and none is a port fetch() refuses
shift_ports() {
  local offset key busy
  for ((offset = $1; offset < $1 + 10000; offset += 500)); do
    busy=0
    shifted_ports_ok "$offset" || continue
    for key in $(lab_port_keys); do
      ss -Hltn "sport = :$((${!key} + offset))" 2>/dev/null | grep -q . && { busy=1; break; }
    done
    ((busy)) || break
  done
  shift_lab_ports "$offset"
}

# stop_group PID: stops the process group PID leads (a background job started with `setsid ...
# 3>&- &`, so that what it forks, Locust's workers too, goes with it and no child holds bats'
# fd 3 open past the test): TERM, up to 10 s, then KILL
stop_group() {
  local pid="$1" i
  kill -TERM -- "-$pid" 2>/dev/null || return 0
  for ((i = 0; i < 50; i++)); do kill -0 -- "-$pid" 2>/dev/null || return 0; sleep 0.2; done
  kill -KILL -- "-$pid" 2>/dev/null || true
}

# lab_pids DIR: live JVMs of the lab whose state is in DIR
lab_pids() { pgrep -f -- "-Dtenantlab.lab=$1 " || true; }

# Processes are counted per lab, never machine-wide (`pgrep java` counts a developer's own lab
# running beside the tests, and whatever else runs on the machine).
# lab_dir_pids DIR: every live process the lab whose state is in DIR started (tagged
# TENANTLAB_LAB=DIR in its environment: scripts/lib/process.sh), sorted
lab_dir_pids() {
  (LAB_DIR="$1" && source "$REPO/scripts/lib/process.sh" && lab_process_pids) | sort -n
}
# exe_name PID: the name of the program PID runs (its executable's; /proc/PID/comm is not: Node
# renames its main thread)
exe_name() { local exe; exe="$(readlink "/proc/$1/exe" 2>/dev/null)" && echo "${exe##*/}"; }
# lab_jvm_pids DIR: those of them that are JVMs (Elasticsearch nodes)
lab_jvm_pids() {
  local pid
  for pid in $(lab_dir_pids "$1"); do
    [[ "$(exe_name "$pid")" == java ]] && echo "$pid"
  done
  return 0
}
# pids_of PROGRAM FILE ENV_LINE: the live processes of PROGRAM (node, java...) running FILE (an
# absolute path; an argument relative to the process's working directory counts) whose
# environment holds ENV_LINE exactly (e.g. ALLOCATOR_ES_URL=$ES: only those working on this
# lab's cluster), sorted; processes of other users (environment unreadable) never count
pids_of() {
  local f pid cwd arg
  for f in /proc/[0-9]*/exe; do
    pid="${f#/proc/}" pid="${pid%/exe}"
    [[ "$(exe_name "$pid")" == "$1" ]] || continue
    tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | grep -qxF -- "$3" || continue
    cwd="$(readlink "/proc/$pid/cwd" 2>/dev/null)" || continue
    while IFS= read -r arg; do
      [[ "$arg" == /* ]] || arg="$cwd/$arg"
      [[ "$(realpath -m -- "$arg")" == "$2" ]] && { echo "$pid"; break; }
    done < <(tr '\0' '\n' <"/proc/$pid/cmdline" 2>/dev/null)
  done | sort -n
  return 0
}
# lab_allocator_pids: the allocators of this lab's cluster: the lab's own service (tagged with
# LAB_DIR) and any other started against its Elasticsearch (ALLOCATOR_ES_URL=$ES: the demo's,
# `node src/main.js` in allocator/); never an allocator of another lab on the machine
lab_allocator_pids() {
  local main="$REPO/allocator/src/main.js"
  { pids_of node "$main" "TENANTLAB_LAB=$LAB_DIR"; pids_of node "$main" "ALLOCATOR_ES_URL=$ES"; } | sort -nu
}

# lab_runtime: the runtime the lab in LAB_DIR runs on (native, compose), "none" when down
lab_runtime() { cat "$LAB_DIR/runtime" 2>/dev/null || echo none; }
# project_containers PROJECT: "ID STARTED-AT" of every running container of a compose project
project_containers() {
  docker ps -q --filter "label=com.docker.compose.project=$1" | xargs -r docker inspect -f '{{.Id}} {{.State.StartedAt}}' | sort
}
# lab_instances: what the lab runs, as one line that changes when anything is (re)started: the
# JVMs' pids (native) or the containers with their start times (compose)
lab_instances() {
  if [[ "$(lab_runtime)" == compose ]]; then
    project_containers "$COMPOSE_PROJECT_NAME" | paste -sd,
  else
    lab_pids "$LAB_DIR" | sort | paste -sd,
  fi
}

# doc_digest INDEX: "count digest" over every id and source, to compare before and after
doc_digest() {
  local body
  body="$(es GET "/$1/_search?size=10000&sort=_doc&track_total_hits=true")" || return 1
  echo "$(jq -r '.hits.total.value' <<<"$body") $(jq -cS '[.hits.hits[] | {id: ._id, src: ._source}] | sort_by(.id)' <<<"$body" | sha256sum | cut -c1-16)"
}

# bulk INDEX NDJSON [QUERY]: fails unless the cluster acknowledged every item; INDEX "" when
# the actions name their index. The body goes through stdin: Linux caps one command-line
# argument at 128 KiB.
bulk() {
  local out
  out="$(printf '%s' "$2" | curl -fsS --max-time 120 -X POST "$ES${1:+/$1}/_bulk${3:+?$3}" \
    -H 'content-type: application/x-ndjson' --data-binary @-)" || return 1
  jq -e '.errors == false and (.items | length) > 0' >/dev/null <<<"$out" \
    || { echo "bulk into $1 not acknowledged: $(jq -c '[.items[] | .[] | select(.error)][0]' <<<"$out")" >&2; return 1; }
}

# bulk_docs INDEX FROM TO: indexes docs FROM..TO; fails unless every item succeeded
bulk_docs() {
  local i body=""
  for ((i = $2; i <= $3; i++)); do
    body+="{\"index\":{\"_id\":\"doc-$i\"}}"$'\n'"{\"n\":$i,\"title\":\"product $i\"}"$'\n'
  done
  bulk "$1" "$body" "refresh=wait_for"
}

ALLOCATOR="http://$LAB_BIND:$ALLOCATOR_PORT"

# api METHOD PATH [JSON]: "STATUS BODY" from the allocator
api() {
  local out
  out="$(curl -sS --max-time 60 -o /dev/stdout -w '\n%{http_code}' -X "$1" "$ALLOCATOR$2" \
    ${3:+-H 'content-type: application/json' -d "$3"})" || return 1
  echo "$(tail -n1 <<<"$out") $(sed '$d' <<<"$out")"
}

# write_products TENANT FROM TO [BUMP]: whole products FROM..TO through the tenant's alias,
# following the allocator's write contract (bulk_lines: _id "<tenant>:<n>", version = updated_at
# in epoch ms, version_type external_gte); updated_at = 1700000000000 + n + BUMP. Fails unless
# every item was acknowledged.
write_products() {
  local t="$1" i v docs=""
  for ((i = $2; i <= $3; i++)); do
    v=$((1700000000000 + i + ${4:-0}))
    docs+="{\"store_id\":\"$t\",\"product_id\":\"$i\",\"name\":\"product $i of $t\",\"price\":$((i % 90 + 10)),\"updated_at\":$v}"$'\n'
  done
  bulk "" "$(bulk_lines <<<"$docs")"$'\n'
}

# product_versions TENANT: "id updated_at" of every product the tenant's alias finds, sorted
product_versions() {
  es POST "/$(alias_of "$1")/_search" '{"size": 10000, "_source": ["updated_at"], "query": {"match_all": {}}}' \
    | jq -r '.hits.hits[] | "\(._id) \(._source.updated_at)"' | sort
}
