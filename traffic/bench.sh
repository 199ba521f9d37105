#!/usr/bin/env bash
# make bench-load: the highest storefront rate the lab sustains, and what k6 itself costs there.
#
# Steps RATE through BENCH_RATES (page views/s, default 10 20 40 80 160 240 320 480 640 800),
# BENCH_STEP each
# (default 20s), with the storefront scenario's own thresholds (p95 < P95_STOREFRONT_MS, failed
# < 1%, checks > 99%); a rate is sustained when every threshold held and k6 dropped < 1% of the
# iterations (an arrival-rate executor drops what it cannot start: the lab or k6 fell behind).
# Stops at the first rate that is not sustained. k6's CPU share comes from /proc/<pid>/stat
# (utime + stime) sampled every second after setup, against wall time x CPUs (target <= 25%: the
# generator must not be the bottleneck). Native runtime; TENANTS= / TENANT= choose the tenants.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
source "$here/../scripts/lib/config.sh"

read -r -a rates <<<"${BENCH_RATES:-10 20 40 80 160 240 320 480 640 800}"
step="${BENCH_STEP:-20s}"
p95_max="${P95_STOREFRONT_MS:-1000}"
es="$(es_url)" allocator="http://$LAB_BIND:$ALLOCATOR_PORT"
curl -fsS --max-time 5 "$es/" >/dev/null 2>&1 || die "the cluster does not answer at $es: make up first"
curl -fsS --max-time 5 "$allocator/readyz" >/dev/null 2>&1 || die "the allocator does not answer at $allocator: make up first"
k6="$("$LAB_ROOT/scripts/install/k6.sh")"
cpus="$(nproc)" hz="$(getconf CLK_TCK)"
out_dir="$LAB_DIR/results/$(date -u +%Y%m%dT%H%M%SZ)-bench-load"
mkdir -p "$out_dir"
export K6_NO_USAGE_REPORT=true ES_URL="$es" ALLOCATOR_URL="$allocator" DURATION="$step" P95_STOREFRONT_MS="$p95_max"
unset VUS

ticks() { awk '{print $14 + $15}' "/proc/$1/stat" 2>/dev/null; }

echo "bench-load: storefront, ${step} per rate, p95 threshold ${p95_max} ms, ${cpus} CPUs; results in $out_dir"
printf '%8s %10s %9s %9s %8s %8s %9s  %s\n' rate "req/s" "p95 ms" "p99 ms" failed dropped "k6 CPU" verdict
best="" best_cpu="" best_p95=""
for rate in "${rates[@]}"; do
  dir="$out_dir/rate-$rate"
  mkdir -p "$dir"
  RATE="$rate" RESULTS_DIR="$dir" RUN_ID="bench-load-rate-$rate" \
    timeout --kill-after=15s 600 "$k6" run --quiet --no-color "$here/storefront.js" >"$dir/k6.log" 2>&1 &
  pid=$!
  start=$SECONDS first="" first_t="" last="" last_t="" k6pid=""
  while kill -0 "$pid" 2>/dev/null; do
    # k6 is the child of timeout
    [[ -n "$k6pid" ]] || k6pid="$(pgrep -P "$pid" -n || true)"
    t="$(date +%s.%N)" v="$( [[ -n "$k6pid" ]] && ticks "$k6pid" || true)"
    if [[ -n "$v" ]]; then
      # the window starts after setup (tenants profiled) and the first second of ramp-up
      if [[ -z "$first" && $((SECONDS - start)) -ge 3 ]]; then first="$v" first_t="$t"; fi
      last="$v" last_t="$t"
    fi
    sleep 1
  done
  set +e; wait "$pid"; rc=$?; set -e
  summary="$dir/summary.json"
  if [[ ! -s "$summary" ]]; then
    echo "bench-load: k6 failed at RATE=$rate (exit $rc): $(tail -n 3 "$dir/k6.log" | tr '\n' ' ')" >&2
    break
  fi
  read -r reqs p95 p99 failed iters dropped < <(jq -r '.metrics as $m | [
      ($m.http_reqs.values.rate), ($m["http_req_duration{scenario:storefront}"].values["p(95)"]),
      ($m["http_req_duration{scenario:storefront}"].values["p(99)"]), ($m.http_req_failed.values.rate),
      ($m.iterations.values.count // 0), ($m.dropped_iterations.values.count // 0)] | map(tostring) | join(" ")' "$summary")
  cpu="-"
  if [[ -n "$first" && "$last" != "$first" ]]; then
    cpu="$(awk -v a="$first" -v b="$last" -v ta="$first_t" -v tb="$last_t" -v hz="$hz" -v n="$cpus" \
      'BEGIN { printf "%.1f", 100 * (b - a) / hz / ((tb - ta) * n) }')"
  fi
  drop_pct="$(awk -v d="$dropped" -v i="$iters" 'BEGIN { printf "%.1f", (d + i) ? 100 * d / (d + i) : 0 }')"
  ok=1
  ((rc == 0)) || ok=0
  awk -v d="$drop_pct" 'BEGIN { exit !(d < 1) }' || ok=0
  printf '%8s %10.1f %9.1f %9.1f %7.2f%% %7s%% %8s%%  %s\n' "$rate" "$reqs" "$p95" "$p99" "$(awk -v f="$failed" 'BEGIN { print 100 * f }')" \
    "$drop_pct" "$cpu" "$( ((ok)) && echo sustained || echo "NOT sustained (k6 exit $rc)")"
  ((ok)) || break
  best="$rate" best_cpu="$cpu" best_p95="$p95"
done

echo
if [[ -z "$best" ]]; then
  echo "bench-load: no rate sustained (the lowest, ${rates[0]}/s, breached a threshold): see $out_dir"
  exit 1
fi
echo "highest sustained storefront rate: ${best} page views/s (p95 $(printf '%.0f' "$best_p95") ms < ${p95_max} ms)"
echo "k6 CPU at that rate: ${best_cpu}% of the machine (${cpus} CPUs; target <= 25%)"
[[ "$best" == "${rates[-1]}" ]] && echo "(the highest rate tried: raise BENCH_RATES to find the limit)"
exit 0
