#!/usr/bin/env bash
# traffic/run.sh: what `make load`, `make load-bot`, `make load-writes` and `make replay` run.
#
#   SCENARIO=mixed|storefront|bot|writes|replay (default mixed)   DURATION=1m (max LOAD_MAX_DURATION)
#   RATE= page views/s or VUS= shoppers   TENANT= one tenant   TENANTS= ids or globs (dev-*)
#   BOT=1 (mixed: a bot burst mid-run)    LOG= SPEED= BAD_LINES=skip|stop (replay)
#   TRANSLATE=on|off STORE_MAP=rank|hash|FILE STORE_FIELD=store_id (replay: a real platform's log)
#   UI=0 (no web UI: headless)   LOAD_ENGINE=host (a compose lab's load from the host's engine)
#   ... and every knob of the locustfiles (traffic/README.md).
#
# Checks the allocator and the cluster answer, the inputs make sense and the ports are free (one
# clear line and exit 2 otherwise), installs the load engine (Locust, pinned, cached), runs the
# scenario (bounded in time) natively or in the compose `locust` service as the lab's runtime
# says, with Locust's web UI on LAB_BIND:LOAD_UI_PORT while it runs and its metrics on
# LAB_BIND:LOAD_METRICS_PORT (Prometheus scrapes them: the Load dashboard, the allocator's
# per-group latency), and keeps the JSON summary in $LAB_DIR/results/<run-id>/. Exits with the
# engine's status: 0 every threshold held, 99 a threshold was breached, 2 bad input, other: an error.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
source "$here/../scripts/lib/config.sh"
source "$here/../scripts/lib/cluster.sh"

SCENARIOS=(mixed storefront bot writes replay)
# The settings the locustfiles read (traffic/lib/config.py, lib/scenarios.py, each locustfile)
PASS_VARS=(DURATION RATE VUS TENANT TENANTS THINK_MS PAGE_SIZE PROFILE_TENANTS SAMPLE_PRODUCTS ALIAS
  BOT BOT_RATE BOT_TENANT BOT_DURATION BOT_MAX_PAGES BULK_SIZE WRITE_RATE RESUBMIT
  SPEED BAD_LINES REPLAY_VUS LOAD_MAX_DURATION MAX_FAILED MIN_CHECKS
  P95_STOREFRONT_MS P95_BOT_MS P95_WRITES_MS P95_REPLAY_MS MAX_LATE LATE_MS)

scenario="${SCENARIO:-mixed}"
[[ " ${SCENARIOS[*]} " == *" $scenario "* ]] || die "unknown SCENARIO '$scenario': pick one of ${SCENARIOS[*]}"

max_secs="$(seconds_of "$LOAD_MAX_DURATION")"
[[ -n "$max_secs" ]] || die "LOAD_MAX_DURATION=$LOAD_MAX_DURATION: want a duration like 1h"
if [[ -n "${DURATION:-}" ]]; then
  secs="$(seconds_of "$DURATION")"
  [[ -n "$secs" && "$secs" -gt 0 ]] || die "DURATION=$DURATION: want a duration like 30s, 2m, 1h30m"
  ((secs <= max_secs)) || die "DURATION=$DURATION is longer than LOAD_MAX_DURATION=$LOAD_MAX_DURATION (raise it in the environment for a longer run)"
elif [[ "$scenario" == replay ]]; then
  secs="$max_secs" # the replay bounds itself by the log's span (capped at LOAD_MAX_DURATION)
else
  export DURATION=1m secs=60
fi
# how long a run waits for a cluster still building replicas or moving shards (below)
settle_secs="$(seconds_of "$LOAD_SETTLE_TIMEOUT")"
[[ -n "$settle_secs" ]] || die "LOAD_SETTLE_TIMEOUT=$LOAD_SETTLE_TIMEOUT: want a duration like 5m or 90s (0s: do not wait)"
number='^([0-9]+\.?[0-9]*|\.[0-9]+)$'
[[ -z "${RATE:-}" || ("$RATE" =~ $number && "$RATE" != 0) ]] || die "RATE=$RATE: want page views per second, a number > 0"
[[ -z "${VUS:-}" || "$VUS" =~ ^[1-9][0-9]*$ ]] || die "VUS=$VUS: want a whole number of virtual users > 0"
[[ -z "${RATE:-}" || -z "${VUS:-}" ]] || die "RATE=$RATE and VUS=$VUS: give one of them (arrival rate, or shoppers with think times)"
[[ -z "${BOT:-}" || "$BOT" =~ ^(0|1)$ ]] || die "BOT=$BOT: want 1 (a bot burst mid-run) or 0"
[[ -z "${SPEED:-}" || "$SPEED" == max || ("$SPEED" =~ $number && "$SPEED" != 0) ]] \
  || die "SPEED=$SPEED: want a pacing multiplier > 0 (2 = twice as fast) or max (as fast as possible)"
[[ -z "${BAD_LINES:-}" || "$BAD_LINES" =~ ^(skip|stop)$ ]] || die "BAD_LINES=$BAD_LINES: want skip or stop"
[[ -z "${UI:-}" || "$UI" =~ ^(0|1)$ ]] || die "UI=$UI: want 1 (Locust's web UI while the run lasts, the default) or 0 (headless)"
ui="${UI:-1}"
# On a compose lab the engine runs in the `locust` service and sees the lab's allocator by its
# service name; LOAD_ENGINE=host runs it on the host instead, for an allocator run on the host
# (ALLOCATOR_PORT: one started from an editor, or a test's own). Prometheus, in the compose
# network, does not scrape a host engine: its summary only.
[[ -z "${LOAD_ENGINE:-}" || "$LOAD_ENGINE" == host ]] || die "LOAD_ENGINE=$LOAD_ENGINE: want host (the load engine on the host, for an allocator run there) or nothing (as the lab's runtime says)"

# The lab must answer: allocator (tenants) and the cluster's entry point. Loopback only.
[[ "$LAB_BIND" =~ ^127\. ]] || die "LAB_BIND=$LAB_BIND is not a loopback address: the lab runs without security, load stays on loopback"
es="$(es_url)"
allocator="http://$LAB_BIND:$ALLOCATOR_PORT"
prometheus="http://$LAB_BIND:$PROMETHEUS_PORT"
es_curl -fsS --max-time 5 "$es/" >/dev/null 2>&1 \
  || die "the cluster does not answer at $es: start the lab first (make up; make status shows it)"
curl -fsS --max-time 5 "$allocator/readyz" >/dev/null 2>&1 \
  || die "the allocator does not answer at $allocator/readyz: start the lab first (make up; make status shows it)"
tenants_json="$(curl -fsS --max-time 20 "$allocator/tenants")" || die "the allocator at $allocator did not list its tenants (GET /tenants)"
if [[ -n "${TENANT:-}" ]]; then
  jq -e --arg t "$TENANT" 'any(.tenants[]; .id == $t)' <<<"$tenants_json" >/dev/null \
    || die "unknown TENANT '$TENANT': the allocator has no such tenant (make tenants lists them)"
fi
if [[ -n "${TENANTS:-}" ]]; then
  jq -e --arg g "$TENANTS" '($g | split(",") | map(gsub("^\\s+|\\s+$"; "") | "^" + (gsub("[.+^$(){}|\\[\\]\\\\]"; "\\\(.)") | gsub("\\*"; ".*") | gsub("\\?"; ".")) + "$")) as $res
    | any(.tenants[]; .id as $id | any($res[]; . as $re | $id | test($re)))' <<<"$tenants_json" >/dev/null \
    || die "TENANTS=$TENANTS matches no tenant of the allocator (make tenants lists them)"
fi
[[ "$(jq '.tenants | length' <<<"$tenants_json")" -gt 0 || "$scenario" == replay ]] \
  || die "the allocator has no tenant: add some first (make tenant-add ID=... PRODUCTS=..., or seed)"

# The query log (replay)
if [[ "$scenario" == replay ]]; then
  LOG="${LOG:-$LAB_DIR/seed-data/queries.log}"
  [[ -e "$LOG" ]] || die "no query log at LOG=$LOG: give LOG=path (TIMESTAMP.MS|SEARCH_TYPE|JSON_QUERY lines), or generate one: seed-data/bin/tenantlab-seed querylog -p PROFILE -o $LAB_DIR/seed-data/queries.log"
  [[ -f "$LOG" && -r "$LOG" ]] || die "LOG=$LOG is not a readable file"
  LOG="$(realpath "$LOG")"
  export LOG
fi

# A cluster still building replicas (right after a seeding) or moving shards would be measured
# doing that: the run starts once it has settled (scripts/lib/cluster.sh), bounded
if ((settle_secs > 0)); then
  wait_cluster_settled "$settle_secs" \
    || die "the cluster is still $(settle_line "$(es_get /_cluster/health)") after LOAD_SETTLE_TIMEOUT=$LOAD_SETTLE_TIMEOUT: wait for it (make status), or raise the timeout"
fi

run_id="$(date -u +%Y%m%dT%H%M%SZ)-$scenario-$$"
results="$LAB_DIR/results/$run_id"
mkdir -p "$results"

# A real platform's log made ready for the lab (packages/contract/bin/replay-prepare): legacy DSL
# translated (TRANSLATE=off: as it is), the store found anywhere (STORE_FIELD), the log's stores
# mapped onto the lab's tenants (STORE_MAP=rank|hash|FILE; the identity when they are the lab's
# own), the same line numbers; the store map and the rewrite counts written beside the summary;
# and the request plan the engine sends (plan.ndjson: the query-log format is read in one place).
if [[ "$scenario" == replay ]]; then
  printf '%s\n' "$tenants_json" >"$results/tenants.json"
  prepared="$(node "$LAB_ROOT/packages/contract/bin/replay-prepare" --log "$LOG" --tenants "$results/tenants.json" --out "$results" \
    --translate "${TRANSLATE:-on}" --store-field "${STORE_FIELD:-store_id}" --store-map "${STORE_MAP:-rank}" \
    --mapping "$LAB_ROOT/allocator/schema/products-mapping.json")" || { rm -rf "$results"; exit 2; }
  say "$prepared"
  LOG_SHOWN="$LOG" LOG="$results/plan.ndjson"
  export LOG LOG_SHOWN
fi

# A port the run would open must be free: the web UI's and the metrics endpoint's
port_free() { python3 -c 'import socket,sys; s=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind((sys.argv[1], int(sys.argv[2])))' "$LAB_BIND" "$1" 2>/dev/null; }
if [[ "$ui" == 1 ]] && ! port_free "$LOAD_UI_PORT"; then
  rm -rf "$results"
  die "the load's web UI port $LAB_BIND:$LOAD_UI_PORT is taken (another make load? ss -ltnp shows who): stop it, or run with UI=0 (headless) or LOAD_UI_PORT=another port"
fi
if ! port_free "$LOAD_METRICS_PORT"; then
  rm -rf "$results"
  die "the load's metrics port $LAB_BIND:$LOAD_METRICS_PORT is taken (another make load? ss -ltnp shows who): stop it, or give LOAD_METRICS_PORT=another port"
fi

if curl -fsS --max-time 3 "$prometheus/-/ready" >/dev/null 2>&1; then
  stream="Prometheus at $prometheus scrapes its metrics (Load dashboard)"
else
  stream="Prometheus does not answer at $prometheus: no live metrics, summary only"
fi
# Locust's flags: the run is shaped by the locustfile (users, duration); the web UI on loopback
# while the run lasts, or none; its own per-request table only at the end
if [[ "$ui" == 1 ]]; then
  locust_args=(--autostart --autoquit 0 --web-host "$LAB_BIND" --web-port "$LOAD_UI_PORT")
else
  locust_args=(--headless)
fi
locust_args+=(--only-summary --loglevel WARNING)

runtime="$(cat "$LAB_DIR/runtime" 2>/dev/null || echo native)"
span="${DURATION:-its log span}"
where="$runtime"
if [[ "$runtime" == compose && "${LOAD_ENGINE:-}" == host ]]; then
  where="compose lab, engine on the host"
  stream="its summary only (the compose lab's Prometheus does not scrape the host)"
fi
say "load: $scenario for $span ($where), run $run_id; $stream"
[[ "$ui" == 1 ]] && say "load: Locust's web UI: http://$LAB_BIND:$LOAD_UI_PORT/ (while the run lasts; UI=0 for none)"
# the locustfiles bound every scenario themselves; this bounds setup and anything stuck on top
bound=$((secs + 300))

set +e
if [[ "$runtime" == compose && "${LOAD_ENGINE:-}" != host ]]; then
  mapfile -t files < <("$LAB_ROOT/runtimes/compose/bin/lab" files)
  # The image set the lab runs on (LAB_IMAGES=local: the Locust image built here)
  source "$LAB_ROOT/runtimes/compose/images/lib.sh"
  use_lab_images
  if [[ -n "${LAB_COMPOSE_BIN:-}" ]]; then dc=("$LAB_COMPOSE_BIN"); else dc=(docker compose); fi
  # paths as the user knows them in the messages, container paths for the files; the summary
  # is written as the caller's user (the image's own user may not write the host folder)
  env_args=(-e RUN_ID="$run_id" -e RESULTS_DIR=/results -e RESULTS_DIR_SHOWN="$results" -e HOME=/tmp
    -e LOAD_UI_PORT="$LOAD_UI_PORT" -e LAB_BIND="$LAB_BIND")
  for v in "${PASS_VARS[@]}"; do [[ -n "${!v:-}" ]] && env_args+=(-e "$v=${!v}"); done
  mounts=(-v "$results:/results")
  if [[ "$scenario" == replay ]]; then
    mounts+=(-v "$LOG:/log/plan.ndjson:ro")
    env_args+=(-e LOG=/log/plan.ndjson -e LOG_SHOWN="$LOG_SHOWN")
  fi
  # inside the container the metrics port is always 9646 (Prometheus scrapes locust:9646: the
  # `run` container answers to the service name only with --use-aliases); published on LAB_BIND
  ports=(-p "$LAB_BIND:$LOAD_METRICS_PORT:9646")
  if [[ "$ui" == 1 ]]; then
    ports+=(-p "$LAB_BIND:$LOAD_UI_PORT:8089")
    locust_args=(--autostart --autoquit 0 --web-host 0.0.0.0 --web-port 8089 --only-summary --loglevel WARNING)
  fi
  # The one-off container has a name of its own, removed when this script ends however it ends:
  # a client stopped by a signal (Ctrl-C, a test's teardown) leaves its container running
  container="${COMPOSE_PROJECT_NAME:-tenantlab}-load-${run_id,,}"
  trap 'docker rm -f "$container" >/dev/null 2>&1 || true' EXIT
  trap 'exit 130' INT TERM
  timeout --foreground --kill-after=15s "$bound" \
    "${dc[@]}" --project-directory "$LAB_ROOT" "${files[@]}" --env-file "$LAB_ENV_FILE" --profile load \
    run --rm --name "$container" --no-TTY --no-deps --use-aliases --user "$(id -u):$(id -g)" "${ports[@]}" "${mounts[@]}" "${env_args[@]}" \
    locust -f "/traffic/$scenario.py" "${locust_args[@]}"
  rc=$?
else
  locust="$("$LAB_ROOT/scripts/install/locust.sh")" || die "the load engine could not be installed (scripts/install/locust.sh; its message is above)"
  export ES_URL="$es" ALLOCATOR_URL="$allocator" RESULTS_DIR="$results" RUN_ID="$run_id" LAB_BIND LOAD_UI_PORT LOAD_METRICS_PORT
  export LOAD_METRICS_HOST="$LAB_BIND"
  # an external cluster's header, CA and TLS switch, in the engine's environment only
  if lab_is_external; then
    load_env="$(node "$LAB_ROOT/packages/contract/bin/connection" env load)" || exit 2
    eval "$load_env"
  fi
  # in the lab's load-engine group when LOAD_CPU_WEIGHT made one (a shaped native lab)
  timeout --foreground --kill-after=15s "$bound" "$LAB_ROOT/runtimes/native/bin/load-engine-exec" "$locust" -f "$here/$scenario.py" "${locust_args[@]}"
  rc=$?
fi
set -e

case "$rc" in
  0) say "load: PASS; summary: $results/summary.json" ;;
  99) say "load: FAIL: a threshold was breached (see the summary above); summary: $results/summary.json" ;;
  2) ;; # the engine said what is wrong in one line
  124 | 137) say "load: error: the load engine did not finish within ${bound}s and was stopped" ;;
  *) say "load: error: the load engine exited with status $rc (see its message above)" ;;
esac
exit "$rc"
