#!/usr/bin/env bats
# Traffic (k6) without a lab: the pinned k6 build, every scenario script compiles with its
# thresholds, the query-log parser on the fixtures (and against seed-data's reference parser),
# the loopback-only rule, run.sh's bad input, and the compose `k6` service of the `load` profile
# (compose.bats checks the default model, which leaves profiled services out).

# shellcheck disable=SC2016 # jq programs are single-quoted on purpose
bats_require_minimum_version 1.5.0

setup_file() {
  load ../lib/lab
  K6="$("$REPO/scripts/install/k6.sh")"
  export K6 K6_NO_USAGE_REPORT=true
}

setup() {
  load ../lib/lab
  cd "$REPO/k6-scripts" || return 1
  export LAB_DIR="$BATS_TEST_TMPDIR/lab"
  # far from the ports of any lab that may be running: nothing answers there
  shift_ports 5000
}

FIXTURES="$BATS_TEST_DIRNAME/../fixtures/k6"

# inspect SCRIPT [-e K=V...]: k6's resolved options (JSON) for the script
inspect() { local s="$1"; shift; "$K6" inspect --execution-requirements "$@" "$s" 2>/dev/null; }

@test "scripts/install/k6.sh gives the k6 version pinned in lab.env (cached, verified)" {
  run "$REPO/scripts/install/k6.sh"
  assert_success
  assert_output "$LAB_CACHE/bin/k6"
  run "$output" version
  assert_output --regexp "^k6 v${K6_VERSION#v} "
}

@test "every scenario compiles, with failed < 1%, checks > 99%, no cross-tenant hit and its own p95" {
  local s json
  for s in storefront bot writes mixed replay; do
    json="$(inspect "$s.js" -e LOG="$FIXTURES/queries.log")" || fail "k6 inspect $s.js failed: $("$K6" inspect -e LOG="$FIXTURES/queries.log" "$s.js" 2>&1 | tail -n 3)"
    assert_equal "$s: $(jq -c '.thresholds.http_req_failed' <<<"$json")" "$s: [\"rate<0.01\"]"
    assert_equal "$s: $(jq -c '.thresholds.checks' <<<"$json")" "$s: [\"rate>0.99\"]"
    assert_equal "$s: $(jq -c '.thresholds.cross_tenant_hits' <<<"$json")" "$s: [\"count==0\"]"
    jq -e '[.scenarios | keys[] as $k | .[$k].exec] | length > 0' <<<"$json" >/dev/null || fail "$s: no scenario"
    run jq -r '.scenarios | keys[] as $k | "\($k) \(.[$k].exec)"' <<<"$json"
    local name exec
    while read -r name exec; do
      jq -e --arg k "http_req_duration{scenario:$name}" '.thresholds[$k] | length == 1' <<<"$json" >/dev/null \
        || fail "$s: scenario $name has no p95 threshold"
    done <<<"$output"
  done
}

@test "thresholds and the load shape are overridable from the environment" {
  run inspect storefront.js -e P95_STOREFRONT_MS=123 -e RATE=7 -e DURATION=9s
  assert_success
  assert_equal "$(jq -c '.thresholds["http_req_duration{scenario:storefront}"]' <<<"$output")" '["p(95)<123"]'
  assert_equal "$(jq -r '.scenarios.storefront | "\(.executor) \(.rate) \(.duration)"' <<<"$output")" "constant-arrival-rate 7 9s"
  run inspect storefront.js -e VUS=3
  assert_equal "$(jq -r '.scenarios.storefront | "\(.executor) \(.vus)"' <<<"$output")" "constant-vus 3"
  run inspect mixed.js -e BOT=1 -e DURATION=100s
  assert_equal "$(jq -r '.scenarios.bot | "\(.executor) \(.startTime)"' <<<"$output")" "ramping-arrival-rate 40s"
  run inspect mixed.js
  assert_equal "$(jq -r '.scenarios | keys | join(",")' <<<"$output")" "resubmit,storefront,writes"
  # never the url tag (one series per tenant alias): name carries the query type
  run inspect storefront.js
  assert_equal "$(jq -r '.systemTags | index("url")' <<<"$output")" null
}

@test "the replay parser: malformed lines reported by number, skipped or stopping the run" {
  run "$K6" inspect -e LOG="$FIXTURES/queries-bad.log" replay.js
  assert_success
  assert_output --partial "line 7: expected TIMESTAMP.MS|SEARCH_TYPE|JSON_QUERY: skipped"
  assert_output --partial "line 9: bad timestamp '1735689600.5' (want epoch seconds with 3 decimals): skipped"
  assert_output --partial "line 12: query is not JSON"
  run "$K6" inspect -e LOG="$FIXTURES/queries-bad.log" -e BAD_LINES=stop replay.js
  assert_failure
  assert_output --partial "line 7: expected TIMESTAMP.MS|SEARCH_TYPE|JSON_QUERY (and 2 more malformed line(s)); stopping (BAD_LINES=stop)"
  run "$K6" inspect -e LOG="$BATS_TEST_TMPDIR/missing.log" replay.js
  assert_failure
  assert_output --partial "cannot read LOG="
  # the paced bound: the fixture spans 2.814 s; at SPEED=2 that is 2 s + 30 s
  run inspect replay.js -e LOG="$FIXTURES/queries.log" -e SPEED=2
  assert_equal "$(jq -r '.scenarios.replay | "\(.executor) \(.iterations) \(.maxDuration)"' <<<"$output")" "shared-iterations 10 32s"
}

@test "k6 reads query logs and writes products with the lab's contract modules, not copies" {
  # One parser for the seeder and the replay: packages/contract/src/querylog.js (its unit tests
  # run it on these fixtures); k6 imports it, and the write contract, by relative path.
  grep -q "from '../packages/contract/src/querylog.js'" replay.js
  grep -q "from '../packages/contract/src/write-contract.js'" writes.js
  [[ ! -e lib/querylog.js ]]
  # no hand-made alias or versioned action in code (comments may name them)
  assert_equal "$(grep -rn "external_gte\|'tenant-'\|tenant-\${" --include=*.js . | grep -v ':[0-9]*: *//' || true)" ""
  run node --input-type=module -e '
    const { parseLog } = await import(process.argv[1]);
    const fs = await import("node:fs");
    const bad = parseLog(fs.readFileSync(process.argv[2], "utf8"));
    console.log(bad.errors.map((e) => e.split(":")[0]).join(","));' "$REPO/packages/contract/src/querylog.js" "$FIXTURES/queries-bad.log"
  assert_success
  assert_output "line 7,line 9,line 12"
}

@test "load only ever goes to loopback or the compose services" {
  run "$K6" inspect -e ES_URL=http://10.1.2.3:9200 storefront.js
  assert_failure
  assert_output --partial "the lab is loopback-only; refusing to send load to 10.1.2.3"
  run "$K6" inspect -e ALLOCATOR_URL=http://example.com:8080 storefront.js
  assert_failure
  assert_output --partial "refusing to send load to example.com"
  LAB_BIND=0.0.0.0 run ./run.sh
  assert_failure 2
  assert_output --partial "is not a loopback address"
}

@test "run.sh: bad input and a lab that does not answer are one line, exit 2" {
  SCENARIO=soak run ./run.sh
  assert_failure 2
  assert_output "error: unknown SCENARIO 'soak': pick one of mixed storefront bot writes replay"
  local bad
  for bad in "DURATION=forever" "DURATION=0s" "DURATION=2h" "RATE=fast" "RATE=0" "VUS=-1" "SPEED=0" "BOT=yes" "BAD_LINES=ignore" "RATE=5 VUS=5"; do
    run env $bad ./run.sh
    assert_equal "$bad: exit $status" "$bad: exit 2"
    assert_equal "$bad: ${#lines[@]} line(s)" "$bad: 1 line(s)"
    assert_output --regexp "^error: "
  done
  run ./run.sh
  assert_failure 2
  assert_output "error: the cluster does not answer at http://$LAB_BIND:$ES_MASTER_HTTP_PORT: start the lab first (make up; make status shows it)"
}

@test "make help lists the traffic targets" {
  run make -s -C "$REPO" help
  assert_success
  local t
  for t in load load-bot load-writes replay bench-load; do
    assert_output --regexp "  $t +[A-Z]"
  done
}

@test "the compose k6 service (profile load): pinned official image, read-only scripts, lab network, waits for the lab" {
  load ../lib/compose
  local dc model
  dc="$("$REPO/scripts/install/compose.sh")"
  model="$BATS_TEST_TMPDIR/model.json"
  mapfile -t files < <(compose_files)
  clean_env "$dc" --project-directory "$REPO" "${files[@]}" --env-file lab.env --profile load config --format json >"$model"
  # not started by `make up` (no profile there)
  run clean_env "$dc" --project-directory "$REPO" "${files[@]}" --env-file lab.env config --services
  refute_line k6
  assert_equal "$(jq -r '.services.k6.image' "$model")" "$(env_value K6_IMAGE):$(env_value K6_VERSION)"
  [[ "$(env_value K6_VERSION)" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || fail "K6_VERSION must be an exact version (the image tag has no v)"
  assert_equal "$(jq -c '.services.k6.profiles' "$model")" '["load"]'
  assert_equal "$(jq -r '.services.k6.environment.K6_NO_USAGE_REPORT' "$model")" true
  assert_equal "$(jq -r '.services.k6.environment.ES_URL' "$model")" "http://$(env_value LAB_MASTER_NODE):9200"
  assert_equal "$(jq -r '.services.k6.environment.K6_PROMETHEUS_RW_SERVER_URL' "$model")" "http://prometheus:9090/api/v1/write"
  jq -e '(.services.k6.healthcheck.test // []) | length > 0' "$model" >/dev/null || fail "k6 has no healthcheck"
  assert_equal "$(jq -r '.services.k6.depends_on | to_entries | map("\(.key)=\(.value.condition)") | sort | join(" ")' "$model")" \
    "allocator=service_healthy $(env_value LAB_MASTER_NODE)=service_healthy"
  assert_equal "$(jq -r '.services.k6.ports // [] | length' "$model")" 0
  assert_equal "$(jq -r '.services.k6.network_mode // "default"' "$model")" default
  # the scripts, and the lab's contracts where their relative imports (../packages/contract) find them
  assert_equal "$(jq -r '.services.k6.volumes[] | "\(.type) \(.source) \(.target) \(.read_only)"' "$model")" \
    "bind $REPO/k6-scripts /scripts true"$'\n'"bind $REPO/packages/contract /packages/contract true"
  run clean_env "$dc" --project-directory "$REPO" "${files[@]}" --env-file lab.env --profile load config -q
  assert_success
  assert_output ""
}
