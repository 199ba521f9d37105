#!/usr/bin/env bats
# The closed loop raises no false alarm: an allocator of its own (its own index prefix and port,
# a fast policy: 15 s window, probes every 250 ms, a 45 s baseline, relative objective 1.3 with a
# 20 ms minimum rise, a 0.15 share rise) places six stores, three per group (so each holds about
# a third of its group's search time, over hot.share: only the objectives and, on the relative
# one, the share rise above each store's own normal keep them unflagged), and the real
# load engine runs the steady storefront on them (Locust, make load, reading the tenants from
# that allocator; LOAD_ENGINE=host: the engine on the host, where that allocator is) for two
# minutes: no store is flagged, while both groups are judged against a ready baseline the whole
# second half, so the relative objective was armed. Judged by the shoppers' own p95. Native only:
# on compose the same host processes would run over the same cluster (two minutes of CI for
# nothing new); the probe-judged path is allocator/test/integration/hot.test.js. LOOP_SECONDS=600
# makes it the ten-minute run measured for issue 26's closing note. About 3 minutes.

bats_require_minimum_version 1.5.0

setup_file() {
  load ../lib/lab
  load ../lib/own-allocator
  # its allocator and its load engine run on the host whatever the runtime: on compose only the
  # cluster under them differs, and the probe-judged path is allocator/test/integration/hot.test.js
  [[ "$(lab_runtime)" != compose ]] || return 0
  # six stores, three per group
  own_allocator_setup_file "loop$$-" '.observe = {windowS: 15, minQueries: 20, probeIntervalMs: 250}
      | .hot += {share: 0.3, relative: 1.3, minRiseMs: 20, shareRise: 0.15, baselineS: 45, objectiveMs: {default: 2000}}
      | .auto.enabled = false' \
    a:g1:800:3 b:g1:500:2 c:g1:300:1 d:g2:800:3 e:g2:500:2 f:g2:300:1
}

teardown_file() {
  load ../lib/lab
  load ../lib/own-allocator
  [[ "$(lab_runtime)" != compose ]] || return 0
  own_allocator_teardown_file
}

setup() {
  load ../lib/lab
  [[ "$(lab_runtime)" != compose ]] || skip "the closed loop on the host: checked on the native lab"
  cd "$REPO" || return 1
}

@test "two minutes of steady storefront traffic flag nothing, with both groups judged against a ready baseline" {
  local hot="http://127.0.0.1:$OWN_PORT/hot" seconds="${LOOP_SECONDS:-120}"
  [[ "$seconds" =~ ^[1-9][0-9]*$ ]] && ((seconds >= 120 && seconds <= 1800)) || fail "LOOP_SECONDS=$seconds: want 120 to 1800"
  # the real load engine, its tenants read from this file's allocator. Its latency thresholds
  # are lifted (this test judges the allocator; speed is a benchmark's, and a busy CI machine's
  # p95 or late arrivals are not a failure of the loop); failed requests, checks and
  # cross-tenant hits still fail the load, and the test
  ALLOCATOR_PORT="$OWN_PORT" SCENARIO=storefront DURATION="${seconds}s" RATE=20 UI=0 TENANTS="${OWN_PREFIX}*" \
    P95_STOREFRONT_MS=600000 MAX_LATE=1 LOAD_ENGINE=host \
    traffic/run.sh >"$OWN_DIR/load.log" 2>&1 &
  local load=$! i armed=0 judged=0 flags="" h looks=$((seconds / 2)) looked=0 busy=""
  for ((i = 0; i < looks; i++)); do
    sleep 2
    # only looks while the load runs count (the loop's curls make it outlast the load a little)
    kill -0 "$load" 2>/dev/null || break
    h="$(curl -fsS --max-time 5 "$hot")" || continue
    flags+="$(jq -r --arg p "$OWN_PREFIX" '.hot[] | select(.tenant | startswith($p)) | "\(.tenant) \(.crossed) \(.why)\n"' <<<"$h")"
    # the second half: every group judged, its baseline ready and its relative limit set
    if ((i >= looks / 2)); then
      looked=$((looked + 1))
      jq -e '[.groups[] | select(.signal != null)] | length >= 2' <<<"$h" >/dev/null && judged=$((judged + 1))
      jq -e '[.groups[] | select(.relative_limit_ms != null and (.baseline.ready // false))] | length >= 2' <<<"$h" >/dev/null && armed=$((armed + 1))
      busy="$h" # the probe's share is of a window with shoppers in it
    fi
  done
  wait "$load" || { tail -n 30 "$OWN_DIR/load.log"; fail "the storefront load failed: $(grep -E 'FAIL|error' "$OWN_DIR/load.log" | tail -n 3 | paste -sd' ')"; }
  [[ -z "$flags" ]] || fail "flagged under steady traffic: $flags"
  echo "# $seconds s: judged $judged, armed $armed of the last $looked looks; last look under load: $(jq -c '[.groups[] | {group, signal, p95_ms, baseline_p95_ms, relative_limit_ms, probe_share_of_search}]' <<<"${busy:-{\}}")" >&3
  ((judged * 6 >= looked * 5)) || fail "both groups were judged in only $judged of the last $looked looks"
  ((armed * 6 >= looked * 5)) || fail "the relative objective was armed (a ready baseline) in only $armed of the last $looked looks"
  # the probe's cost is stated: a share of each group's search time, under half of it, while the
  # shoppers search (after the load only the probe is left in the window: 0.84-0.89 of it)
  h="$busy"
  jq -e '[.groups[] | select(.probe_share_of_search != null and .probe_share_of_search < 0.5)] | length >= 2' <<<"$h" >/dev/null \
    || fail "the probe's share of the groups' search time: $(jq -c '[.groups[] | {group, probe_share_of_search}]' <<<"$h")"
}
