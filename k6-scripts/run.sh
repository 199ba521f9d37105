#!/usr/bin/env bash
# k6-scripts/run.sh: what `make load`, `make load-bot`, `make load-writes` and `make replay` run.
#
#   SCENARIO=mixed|storefront|bot|writes|replay (default mixed)   DURATION=1m (max LOAD_MAX_DURATION)
#   RATE= page views/s or VUS= shoppers   TENANT= one tenant   TENANTS= ids or globs (k6dev-*)
#   BOT=1 (mixed: a bot burst mid-run)    LOG= SPEED= BAD_LINES=skip|stop (replay)
#   TRANSLATE=on|off STORE_MAP=rank|hash|FILE STORE_FIELD=store_id (replay: a real platform's log)
#   ... and every knob of the scripts (k6-scripts/README.md), from the environment.
#
# Checks the allocator and the cluster answer, the inputs make sense (one clear line and exit 2
# otherwise), installs k6 (cached), streams metrics to Prometheus when it answers, runs the
# scenario (bounded in time) natively or in the compose `k6` service (profile `load`) as the
# lab's runtime says, and keeps the JSON summary in $LAB_DIR/results/<run-id>/. Exits with k6's
# status: 0 every threshold held, 99 a threshold was breached, other: an error.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
source "$here/../scripts/lib/config.sh"
source "$here/../scripts/lib/cluster.sh"

SCENARIOS=(mixed storefront bot writes replay)
# The settings the scripts read (k6-scripts/lib/config.js and each scenario's top)
PASS_VARS=(DURATION RATE VUS TENANT TENANTS THINK_MS PAGE_SIZE PROFILE_TENANTS SAMPLE_PRODUCTS ALIAS
  BOT BOT_RATE BOT_TENANT BOT_DURATION BOT_MAX_PAGES BULK_SIZE WRITE_RATE RESUBMIT
  SPEED BAD_LINES REPLAY_VUS LOAD_MAX_DURATION MAX_FAILED MIN_CHECKS
  P95_STOREFRONT_MS P95_BOT_MS P95_WRITES_MS P95_REPLAY_MS)

scenario="${SCENARIO:-mixed}"
[[ " ${SCENARIOS[*]} " == *" $scenario "* ]] || die "unknown SCENARIO '$scenario': pick one of ${SCENARIOS[*]}"

# seconds_of DURATION: 90s, 2m, 1h30m -> seconds; empty when malformed
seconds_of() {
  [[ "$1" =~ ^([0-9]+h)?([0-9]+m)?([0-9]+s)?$ && -n "$1" ]] || return 0
  local h="${BASH_REMATCH[1]%h}" m="${BASH_REMATCH[2]%m}" s="${BASH_REMATCH[3]%s}"
  echo $((10#${h:-0} * 3600 + 10#${m:-0} * 60 + 10#${s:-0}))
}
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
number='^([0-9]+\.?[0-9]*|\.[0-9]+)$'
[[ -z "${RATE:-}" || ("$RATE" =~ $number && "$RATE" != 0) ]] || die "RATE=$RATE: want page views per second, a number > 0"
[[ -z "${VUS:-}" || "$VUS" =~ ^[1-9][0-9]*$ ]] || die "VUS=$VUS: want a whole number of virtual users > 0"
[[ -z "${RATE:-}" || -z "${VUS:-}" ]] || die "RATE=$RATE and VUS=$VUS: give one of them (arrival rate, or shoppers with think times)"
[[ -z "${BOT:-}" || "$BOT" =~ ^(0|1)$ ]] || die "BOT=$BOT: want 1 (a bot burst mid-run) or 0"
[[ -z "${SPEED:-}" || "$SPEED" == max || ("$SPEED" =~ $number && "$SPEED" != 0) ]] \
  || die "SPEED=$SPEED: want a pacing multiplier > 0 (2 = twice as fast) or max (as fast as possible)"
[[ -z "${BAD_LINES:-}" || "$BAD_LINES" =~ ^(skip|stop)$ ]] || die "BAD_LINES=$BAD_LINES: want skip or stop"

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

run_id="$(date -u +%Y%m%dT%H%M%SZ)-$scenario-$$"
results="$LAB_DIR/results/$run_id"
mkdir -p "$results"

# A real platform's log made ready for the lab (packages/contract/bin/replay-prepare): legacy DSL
# translated (TRANSLATE=off: as it is), the store found anywhere (STORE_FIELD), the log's stores
# mapped onto the lab's tenants (STORE_MAP=rank|hash|FILE; the identity when they are the lab's
# own), the same line numbers; the store map and the rewrite counts written beside the summary.
if [[ "$scenario" == replay ]]; then
  printf '%s\n' "$tenants_json" >"$results/tenants.json"
  prepared="$(node "$LAB_ROOT/packages/contract/bin/replay-prepare" --log "$LOG" --tenants "$results/tenants.json" --out "$results" \
    --translate "${TRANSLATE:-on}" --store-field "${STORE_FIELD:-store_id}" --store-map "${STORE_MAP:-rank}" \
    --mapping "$LAB_ROOT/allocator/schema/products-mapping.json")" || { rm -rf "$results"; exit 2; }
  say "$prepared"
  LOG_SHOWN="$LOG" LOG="$results/prepared.log"
  export LOG LOG_SHOWN
fi

export K6_NO_USAGE_REPORT=true
export K6_PROMETHEUS_RW_TREND_STATS='p(95),p(99),avg'
out=()
if curl -fsS --max-time 3 "$prometheus/-/ready" >/dev/null 2>&1; then
  out=(--out experimental-prometheus-rw)
  stream="streaming to Prometheus at $prometheus (Load dashboard)"
else
  stream="Prometheus does not answer at $prometheus: no live metrics, summary only"
fi
k6_args=(run "${out[@]}")
[[ -t 1 ]] || k6_args+=(--quiet --no-color)

runtime="$(cat "$LAB_DIR/runtime" 2>/dev/null || echo native)"
span="${DURATION:-its log span}"
say "load: $scenario for $span ($runtime), run $run_id; $stream"
# k6 bounds every scenario itself; this bounds setup, teardown and anything stuck on top of it.
bound=$((secs + 300))

set +e
if [[ "$runtime" == compose ]]; then
  mapfile -t files < <("$LAB_ROOT/compose/bin/lab" files)
  # The image set the lab runs on (LAB_IMAGES=local: the k6 image built here, not the official one)
  source "$LAB_ROOT/compose/images/lib.sh"
  use_lab_images
  if [[ -n "${LAB_COMPOSE_BIN:-}" ]]; then dc=("$LAB_COMPOSE_BIN"); else dc=(docker compose); fi
  # paths as the user knows them in the messages, container paths for the files; the summary
  # is written as the caller's user (the k6 image's own user may not write the host folder)
  env_args=(-e RUN_ID="$run_id" -e RESULTS_DIR=/results -e RESULTS_DIR_SHOWN="$results" -e HOME=/tmp)
  for v in "${PASS_VARS[@]}"; do [[ -n "${!v:-}" ]] && env_args+=(-e "$v=${!v}"); done
  mounts=(-v "$results:/results")
  if [[ "$scenario" == replay ]]; then
    mounts+=(-v "$LOG:/log/queries.log:ro")
    env_args+=(-e LOG=/log/queries.log -e LOG_SHOWN="$LOG_SHOWN")
  fi
  timeout --foreground --kill-after=15s "$bound" \
    "${dc[@]}" --project-directory "$LAB_ROOT" "${files[@]}" --env-file "$LAB_ENV_FILE" --profile load \
    run --rm --no-TTY --no-deps --user "$(id -u):$(id -g)" "${mounts[@]}" "${env_args[@]}" k6 "${k6_args[@]}" "/scripts/$scenario.js"
  rc=$?
else
  k6="$("$LAB_ROOT/scripts/install/k6.sh")" || die "k6 could not be installed (scripts/install/k6.sh)"
  export ES_URL="$es" ALLOCATOR_URL="$allocator" RESULTS_DIR="$results" RUN_ID="$run_id"
  # an external cluster's header, CA and TLS switch, in k6's environment only
  if lab_is_external; then
    k6_env="$(node "$LAB_ROOT/packages/contract/bin/connection" env k6)" || exit 2
    eval "$k6_env"
  fi
  export K6_PROMETHEUS_RW_SERVER_URL="$prometheus/api/v1/write"
  timeout --foreground --kill-after=15s "$bound" "$k6" "${k6_args[@]}" "$here/$scenario.js"
  rc=$?
fi
set -e

case "$rc" in
  0) say "load: PASS; summary: $results/summary.json" ;;
  99) say "load: FAIL: a threshold was breached (see the summary above); summary: $results/summary.json" ;;
  124 | 137) say "load: error: k6 did not finish within ${bound}s and was stopped" ;;
  *) say "load: error: k6 exited with status $rc (see its message above)" ;;
esac
exit "$rc"
