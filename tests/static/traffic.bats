#!/usr/bin/env bats
# Traffic (the Locust load engine, traffic/) without a lab: the pinned Python environment, the
# golden vectors its port of the contracts is tested against (its pytest suite, traffic/tests, is
# a suite of the harness: each test counted), every locustfile's scenarios and thresholds, the
# replay plan made by the contract, the loopback-only rule, run.sh's bad input, and no not-to-use module fetched anywhere.

# shellcheck disable=SC2016 # jq programs are single-quoted on purpose
bats_require_minimum_version 1.5.0

setup_file() {
  load ../lib/lab
  LOCUST="$("$REPO/scripts/install/locust.sh")"
  export LOCUST PY="${LOCUST%/locust}/python"
}

setup() {
  load ../lib/lab
  cd "$REPO/traffic" || return 1
  export LAB_DIR="$BATS_TEST_TMPDIR/lab"
  # far from the ports of any lab that may be running: nothing answers there
  shift_ports 5000
}

FIXTURES="$BATS_TEST_DIRNAME/../fixtures/traffic"

# inspect LOCUSTFILE [K=V...]: the locustfile's scenarios and thresholds (JSON)
inspect() { local f="$1"; shift; env "$@" "$PY" tools/describe.py "$f"; }

@test "scripts/install/locust.sh gives the Locust version pinned in lab.env, from the hashed lock (cached)" {
  run "$REPO/scripts/install/locust.sh"
  assert_success
  assert_output --regexp "^$LAB_CACHE/locust-$LOCUST_VERSION-[0-9a-f]{12}/bin/locust$"
  run "$output" --version
  assert_output --regexp "^locust $LOCUST_VERSION "
  # every package pinned with its hashes; the lock names the version lab.env names
  grep -q "^locust==$LOCUST_VERSION " requirements.lock
  run awk '/^[a-z0-9]/ && !/==/' requirements.lock
  assert_output ""
  run awk '/^[a-z0-9].*==/ {n++} /--hash=sha256:/ {h++} END {print (n > 10 && h >= n)}' requirements.lock
  assert_output 1
}

@test "a broken Python environment is found and built again" {
  # a cache of its own: the shared one stays whole for every other test
  export LAB_CACHE="$BATS_TEST_TMPDIR/cache"
  local bin
  bin="$("$REPO/scripts/install/locust.sh")"
  # a venv whose locust does not run (copied by hand, half-deleted) is not trusted
  mv "$bin" "$bin.bak"
  printf '#!/bin/sh\nexit 1\n' >"$bin"
  chmod +x "$bin"
  run "$REPO/scripts/install/locust.sh"
  rm -f "$bin.bak"
  assert_success
  assert_line --index 0 --partial "installing the load engine: Locust"
  run "$bin" --version
  assert_success
}

@test "the engine's port of the contracts: the golden vectors are what the JavaScript contract writes today" {
  # the engine's own pytest suite (traffic/tests: the port against these vectors, late arrivals,
  # the verdict) is a suite of the harness, each test counted (tests/harness)
  run node "$REPO/packages/contract/bin/golden-vectors" --check
  assert_success
}

@test "every locustfile: its scenarios, failed < 1%, checks > 99%, late < 5%, no cross-tenant hit and a p95 each" {
  local f json name
  for f in storefront bot writes mixed; do
    json="$(inspect "$f.py")" || fail "inspect $f.py failed"
    for t in "http_req_failed: rate<0.01" "checks: rate>0.99" "late_arrivals: share<0.05" "cross_tenant_hits: count==0"; do
      jq -e --arg t "$t" '.thresholds | index($t)' <<<"$json" >/dev/null || fail "$f: no threshold '$t'"
    done
    for name in $(jq -r '.scenarios | keys[]' <<<"$json"); do
      jq -e --arg n "$name" '.thresholds | map(select(startswith("http_req_duration{scenario:" + $n + "}: p(95)<"))) | length == 1' <<<"$json" >/dev/null \
        || fail "$f: scenario $name has no p95 threshold"
    done
  done
}

@test "models and shapes from the environment: open at RATE, closed with VUS, the bot mid-run" {
  run inspect storefront.py P95_STOREFRONT_MS=123 RATE=7 DURATION=9s
  assert_success
  jq -e '.thresholds | index("http_req_duration{scenario:storefront}: p(95)<123")' <<<"$output" >/dev/null
  assert_equal "$(jq -r '.scenarios.storefront | "\(.model) \(.rate) \(.duration_s)"' <<<"$output")" "open 7 9"
  run inspect storefront.py VUS=3
  assert_equal "$(jq -r '.scenarios.storefront | "\(.model) \(.users)"' <<<"$output")" "closed 3"
  run inspect mixed.py BOT=1 DURATION=100s
  assert_equal "$(jq -r '.scenarios.bot | "\(.model) \(.start_s) \(.duration_s)"' <<<"$output")" "open 40 30"
  run inspect mixed.py
  assert_equal "$(jq -r '.scenarios | keys | join(",")' <<<"$output")" "resubmit,storefront,writes"
  run inspect mixed.py RESUBMIT=none
  assert_equal "$(jq -r '.scenarios | keys | join(",")' <<<"$output")" "storefront,writes"
  # the experiments' workloads
  run inspect experiment.py RATE=20 RAMP_UP=2s WARMUP=3s MEASURE=10s
  assert_equal "$(jq -r '.scenarios.shoppers | "\(.model) \(.duration_s)"' <<<"$output")" "open 15"
  # a burst in the shoppers' engine (ENGINE_ROLE=all), or in an engine of its own on their clock
  local burst=(RATE=20 RAMP_UP=2s WARMUP=3s MEASURE=10s BOT_TENANT=s1 BOT_RATE=5 BURST_AT=4s BURST_FOR=6s)
  run inspect experiment.py "${burst[@]}"
  assert_equal "$(jq -r '.scenarios | keys | join(",")' <<<"$output")" "burst,shoppers"
  assert_equal "$(jq -r '.scenarios.burst | "\(.model) \(.start_s) \(.duration_s)"' <<<"$output")" "open 9 6"
  run inspect experiment.py "${burst[@]}" ENGINE_ROLE=measure T0_FILE="$BATS_TEST_TMPDIR/t0"
  assert_equal "$(jq -r '.scenarios | keys | join(",")' <<<"$output")" "shoppers"
  run inspect experiment.py "${burst[@]}" ENGINE_ROLE=burst T0_FILE="$BATS_TEST_TMPDIR/t0"
  assert_equal "$(jq -r '.scenarios | keys | join(",")' <<<"$output")" "burst"
  assert_equal "$(jq -r '.scenarios.burst.start_s' <<<"$output")" "9"
  run inspect experiment.py "${burst[@]}" ENGINE_ROLE=bot
  assert_failure 2
  assert_output "load: error: ENGINE_ROLE=bot: want one of all, measure, burst"
  run inspect experiment.py "${burst[@]}" ENGINE_ROLE=burst
  assert_failure 2
  assert_output --partial "load: error: ENGINE_ROLE=burst: needs T0_FILE"
  run inspect ingest.py INDEX=x CLIENTS=3
  assert_equal "$(jq -r '.scenarios.clients | "\(.model) \(.users)"' <<<"$output")" "closed 3"
  run inspect many_shards.py INDEX_PREFIX=x CLIENTS=4 INDICES=2
  assert_equal "$(jq -r '.scenarios.clients | "\(.model) \(.users)"' <<<"$output")" "closed 2"
}

@test "a headless run told to stop (SIGTERM) ends as at its end: its summary written, the verdict's exit code" {
  # Locust installs its own SIGTERM handler only after a headless shape run is over: without
  # lib/run.py's, the signal kills the engine with nothing written (the runner stops a burst's
  # engine that outlives the measured window this way)
  local out="$BATS_TEST_TMPDIR/stop" pid watchdog rc=0 t
  mkdir -p "$out"
  PYTHONPATH="$REPO/traffic" RESULTS_DIR="$out" LOAD_METRICS_PORT=0 "$LOCUST" -f "$FIXTURES/stoppable.py" --headless --only-summary --skip-log-setup >"$out/log" 2>&1 3>&- &
  pid=$!
  # bounded: a run that ignored the signal would go on for its two minutes
  (sleep 40; kill -KILL "$pid" 2>/dev/null) 3>&- &
  watchdog=$!
  sleep 4
  t=$SECONDS
  kill -TERM "$pid"
  wait "$pid" || rc=$?
  kill "$watchdog" 2>/dev/null || true
  assert_equal "$rc" 0
  ((SECONDS - t < 10)) || fail "the run took $((SECONDS - t)) s to stop after SIGTERM"
  grep -q "^load: SIGTERM: stopping the run" "$out/log" || fail "no line says the run was told to stop: $(tail -3 "$out/log")"
  assert_equal "$(jq -r .verdict "$out/summary.json")" PASS
  jq -e '.state.testRunDurationMs >= 3000 and .state.testRunDurationMs < 30000' "$out/summary.json" >/dev/null \
    || fail "the summary does not cover the run until the signal: $(jq -c .state "$out/summary.json")"
}

@test "the replay plan: written by the contract's parser, malformed lines by number, skipped or stopping" {
  local out="$BATS_TEST_TMPDIR/plan"
  mkdir -p "$out"
  printf '{"tenants":[{"id":"ci-0019","traffic_weight":1},{"id":"ci-0003","traffic_weight":1}]}' >"$out/tenants.json"
  run node "$REPO/packages/contract/bin/replay-prepare" --log "$FIXTURES/queries-bad.log" --tenants "$out/tenants.json" --out "$out"
  assert_success
  # the header lists the bad lines; every query line carries its alias, stats group and pace
  run jq -r 'select(.plan) | .errors | map(split(":")[0]) | join(",")' "$out/plan.ndjson"
  assert_output "line 7,line 9,line 12"
  run jq -r 'select(.line) | "\(.index) \(.body.stats[0]) \(.at_ms >= 0)"' "$out/plan.ndjson"
  assert_success
  assert_line --index 0 --regexp "^tenant-[a-z0-9-]+ tenant-[a-z0-9-]+ true$"
  # the engine reads no query log itself: no parser of the format in traffic/
  run grep -rln "TIMESTAMP.MS\|split('|')\|split(\"|\")" --include=*.py .
  refute_output --regexp "lib/|storefront|writes"
  LOG="$out/plan.ndjson" run inspect replay.py BAD_LINES=stop
  assert_failure 2
  assert_output --partial "line 7: expected TIMESTAMP.MS|SEARCH_TYPE|JSON_QUERY (and 2 more malformed line(s)); stopping (BAD_LINES=stop)"
  LOG="$out/plan.ndjson" run inspect replay.py SPEED=2
  assert_success
  assert_line --partial "line 9: bad timestamp '1735689600.5' (want epoch seconds with 3 decimals): skipped (BAD_LINES=skip)"
  # paced at the log's own times / SPEED: the bound is the span at SPEED plus 30 s
  assert_equal "$(tail -n1 <<<"$output" | jq -r '.scenarios.replay | "\(.model) \(.duration_s)"')" "open 32"
  LOG="$out/plan.ndjson" run inspect replay.py SPEED=max
  assert_equal "$(tail -n1 <<<"$output" | jq -r '.scenarios.replay.model')" "closed"
}

@test "load only ever goes to loopback or the lab's service names" {
  run inspect storefront.py ES_URL=http://10.1.2.3:9200
  assert_failure 2
  assert_output --partial "load goes only to loopback or the lab's service names"
  run inspect storefront.py ALLOCATOR_URL=http://example.com:8080
  assert_failure 2
  LAB_BIND=0.0.0.0 run ./run.sh
  assert_failure 2
  assert_output --partial "is not a loopback address"
}

@test "run.sh: bad input and a lab that does not answer are one line, exit 2" {
  SCENARIO=soak run ./run.sh
  assert_failure 2
  assert_output "error: unknown SCENARIO 'soak': pick one of mixed storefront bot writes replay"
  local bad
  for bad in "DURATION=forever" "DURATION=0s" "DURATION=2h" "RATE=fast" "RATE=0" "RATE=-3" "VUS=-1" "SPEED=0" "SPEED=slow" "BOT=yes" "BAD_LINES=ignore" "RATE=5 VUS=5" "UI=maybe" "LOAD_SETTLE_TIMEOUT=soon"; do
    run env $bad ./run.sh
    assert_equal "$bad: exit $status" "$bad: exit 2"
    assert_equal "$bad: ${#lines[@]} line(s)" "$bad: 1 line(s)"
    assert_output --regexp "^error: "
  done
  run ./run.sh
  assert_failure 2
  assert_output "error: the cluster does not answer at http://$LAB_BIND:$ES_MASTER_HTTP_PORT: start the lab first (make up; make status shows it)"
}

@test "load-engine-exec: LOAD_CPUS pins the engine to those CPUs (the same pid), a bad list is one line, exit 2" {
  local exec="$REPO/runtimes/native/bin/load-engine-exec" last
  # the machine's last CPU this process may use (a 1-CPU machine: CPU 0)
  last="$(awk '/^Cpus_allowed_list:/ {n = split($2, r, /[,-]/); print r[n]}' /proc/self/status)"
  run env LOAD_CPUS="$last" "$exec" awk '/^Cpus_allowed_list:/ {print $2}' /proc/self/status
  assert_success
  assert_output "$last"
  # the engine is the process started (exec all the way: the runner samples its CPU by that pid)
  env LOAD_CPUS="$last" "$exec" sh -c 'echo $$ > "$0"' "$BATS_TEST_TMPDIR/pid" &
  local pid=$!
  wait "$pid"
  [[ "$(cat "$BATS_TEST_TMPDIR/pid")" == "$pid" ]]
  # unset: every CPU this process has
  run env -u LOAD_CPUS "$exec" awk '/^Cpus_allowed_list:/ {print $2}' /proc/self/status
  assert_output "$(awk '/^Cpus_allowed_list:/ {print $2}' /proc/self/status)"
  for bad in x 0-x -1 ,0 0- 1,,2 0-1-2 "0 1"; do
    run env LOAD_CPUS="$bad" "$exec" true
    assert_failure 2
    assert_output "load-engine-exec: LOAD_CPUS=$bad is not a CPU list (e.g. 0, 0-1 or 0,2)"
  done
}

@test "make help lists the traffic targets" {
  run make -s -C "$REPO" help
  assert_success
  local t
  for t in load load-bot load-writes replay bench-load; do
    assert_output --regexp "  $t +[A-Z]"
  done
}

@test "no module the workplace marks not-to-use is fetched, built or named (install scripts, lab.env, images, manifests)" {
  # the modules this project once used and may not (AGPL); the workplace's own lists, where this
  # machine has them, add every module they mark not-to-use
  # (each written in two pieces, so this file itself never names one whole)
  local names=("go.k6.io/""k6" "grafana/""k6" "k6""-operator") lst
  for lst in /work/.library/env/packages/go-partial.tsv /work/.library/env/packages/maven-partial.tsv; do
    [[ -f "$lst" ]] || continue
    mapfile -t -O "${#names[@]}" names < <(awk -F'\t' '$2 == "not-to-use" {print $1}' "$lst" | grep -v '^golang.org/toolchain$')
  done
  cd "$REPO"
  local n hits
  for n in "${names[@]}"; do
    hits="$(git grep -lF -- "$n" -- ':!*.md' ':!experiments/results/' || true)"
    assert_equal "$n: ${hits//$'\n'/ }" "$n: "
  done
  [[ ! -e scripts/install/k6.sh && ! -e k6-scripts ]] || fail "the k6 install or scripts are back"
  # and nothing still calls them (make bench-external did, after they had gone)
  hits="$(git grep -lE -- 'install/k''6\.sh|k''6-scripts/|"\$k''6"' -- ':!*.md' ':!experiments/results/' ':!tests/static/traffic.bats' || true)"
  assert_equal "callers of the removed k6 install or scripts: ${hits//$'\n'/ }" "callers of the removed k6 install or scripts: "
}
