#!/usr/bin/env bats
# Every benchmark that measures the running lab, in its smoke form, so a broken `make bench-*`
# fails CI instead of the next person who wants a figure: bench-seed, bench-analysis,
# bench-allocator, bench-console and bench-load, each as `make -s bench-NAME` with the smallest
# sizes its own knobs allow (one round, a thousand documents, a few seconds a span) and no
# BENCH_SAVE. Each must exit 0 and write one new result under the test lab's results/ in which
# every part the benchmark promises is there and a number (jq), leave its committed results as
# they are (git status) and the cluster as it found it (its scratch indices, aliases and
# templates gone). Figures are never checked: a smoke run's are meaningless, a full run's are the
# committed result's (docs/benchmarks.md). bench-external has its smoke form in 95-external;
# bench-startup and bench-shape start labs of their own (tests/own-lab/10-bench-labs.bats).
# Native test lab only: the benchmarks are host-side code, the same against either runtime.
# About 2 minutes (measured: seed 30 s, allocator 35 s, console 20 s, load 20 s, analysis 5 s;
# a cold first call of a benchmark installs its packages first).

bats_require_minimum_version 1.5.0

setup() {
  load ../lib/lab
  load ../lib/bench-result
  [[ "$(lab_runtime)" == native ]] || skip "the benchmarks' smoke forms: checked on the native test lab"
  cd "$REPO" || return 1
  # a caller's knobs would change what is measured; ALLOCATOR_URL would make bench-seed create
  # its tenants in the lab's own allocator (it starts one of its own without it) and keep them
  unset BENCH_SAVE BENCH_ONLY BENCH_SCALE BENCH_ROUNDS BENCH_SEED BENCH_VARIANTS BENCH_SEEDER_ARGS BENCH_QUERIES \
    BENCH_DOCS BENCH_SECONDS BENCH_WARMUP BENCH_TENANTS BENCH_JSON BENCH_RATES BENCH_STEP BENCH_INGEST_CLIENTS \
    ALLOCATOR_URL TENANTS TENANT
}

# runs_of NAME: the runs of bench-NAME kept under the test lab's results/, oldest first
runs_of() { ls -d "$LAB_DIR"/results/*-"bench-$1" 2>/dev/null | sort; }
# cluster_objects: the cluster's indices (hidden ones too), aliases and index templates, one a line
cluster_objects() {
  {
    es GET "/_cat/indices?h=index&expand_wildcards=all" | sed 's/^/index /'
    es GET "/_cat/aliases?h=alias,index" | sed 's/^/alias /'
    es GET "/_index_template" | jq -r '.index_templates[].name' | sed 's/^/template /'
  } | sed 's/ *$//' | sort
}

# bench_run NAME COMMITTED ENV...: `make -s bench-NAME` with ENV and no BENCH_SAVE, through bats'
# run (status, output, stderr); first keeps what bench_result compares: the git status of
# COMMITTED (the folder of its committed results), its runs so far, the cluster's objects
bench_run() {
  local name="$1" committed="$2"
  shift 2
  [[ -d "$committed" ]] || fail "no folder $committed: the committed results of bench-$name are elsewhere"
  GIT_BEFORE="$(git status --porcelain -- "$committed")"
  RUNS_BEFORE="$(runs_of "$name" | wc -l)"
  CLUSTER_BEFORE="$(cluster_objects)" || fail "the cluster's indices could not be listed"
  run --separate-stderr env "$@" make -s "bench-$name"
}

# bench_result NAME COMMITTED FILE: after bench_run: exactly one new run of bench-NAME, RESULT its
# FILE (which must hold a JSON object); COMMITTED and the cluster as they were before
bench_result() {
  local name="$1" committed="$2" runs
  runs="$(runs_of "$name" | wc -l)"
  [[ "$runs" == $((RUNS_BEFORE + 1)) ]] || fail "bench-$name kept $((runs - RUNS_BEFORE)) runs under $LAB_DIR/results, want 1"
  RESULT="$(runs_of "$name" | tail -n 1)/$3"
  jq -e 'type == "object"' "$RESULT" >/dev/null || fail "$RESULT: missing or not a JSON object"
  # nothing saved into the committed results: no BENCH_SAVE, no other write
  assert_equal "$(git status --porcelain -- "$committed")" "$GIT_BEFORE"
  assert_equal "$(cluster_objects)" "$CLUSTER_BEFORE"
}

# the test lab's own tenants (40-seed.bats loads the ci profile); a tenth of it if they are gone
ensure_tenants() {
  [[ "$(curl -fsS "$ALLOCATOR/tenants" | jq '.tenants | length')" != 0 ]] && return 0
  PROFILE=ci SEED_SCALE=0.1 make -s seed >/dev/null || fail "no tenants, and make seed PROFILE=ci SEED_SCALE=0.1 failed"
}

@test "make bench-seed, smoke form: every loader's round and the seeder's CPU share, 1,000 documents each" {
  bench_run seed seed-data/bench/results BENCH_SCALE=0.02 BENCH_ROUNDS=1
  assert_success
  # the printed table: a row per loader
  local v
  for v in naive helper ceiling seeder; do assert_line --regexp "^$v +[0-9]+ +[0-9.]+ "; done
  assert_line --partial "generator CPU share: "
  bench_result seed seed-data/bench/results bench-seed.json
  assert_result '.bench == "bench-seed" and .documents == 1000 and .rounds == 1 and .profile == "ci"' \
    '(.variants | keys) == ["ceiling", "helper", "naive", "seeder"]' \
    '[.variants[].rounds | length] == [1, 1, 1, 1]' \
    '[.variants[].rounds[].docs] == [1000, 1000, 1000, 1000]' \
    '[.variants[] | .best_rate, .best_green_rate, (.rounds[] | .seconds, .green_s, .rate, .green_rate, .client_cpu_s, .elasticsearch_cpu_s)] | nums' \
    '[.variants[] | .best_rate] | all(. > 0)' \
    '[.cpu | .seeder_s, .elasticsearch_s, .share, .generator_s, .generator_share] | nums' \
    '[.request.bytes, .request.concurrency, .lab.data_nodes] | nums'
}

@test "make bench-analysis, smoke form: each mapping's rate and merged size, the candidates' same hits on 20 searches" {
  bench_run analysis seed-data/bench/results BENCH_SCALE=0.02 BENCH_ROUNDS=1 BENCH_QUERIES=20
  assert_success
  assert_line --regexp '^median: standard [0-9]+ docs/s'
  assert_line --regexp '^same hits, lean against storefront: [0-9]+ of 20 searches'
  assert_line --regexp '^same hits, no-norms against storefront: [0-9]+ of 20 searches'
  bench_result analysis seed-data/bench/results bench-analysis.json
  assert_result '.bench == "bench-analysis" and .documents == 1000 and .rounds == 1 and .queries == 20' \
    '(.variants | keys) == ["lean", "no-norms", "standard", "storefront"]' \
    '[.variants[].rounds | length] == [1, 1, 1, 1]' \
    '[.variants[] | .median_rate, .median_bytes, (.rounds[] | .rate, .seconds, .bytes)] | nums' \
    '[.variants[] | .median_bytes] | all(. > 0)' \
    '(.candidates | keys) == ["lean", "no-norms"]' \
    '[.candidates[].searches] == [20, 20]' \
    '[.candidates[] | .same_hits, .same_first_page, (.by_type[] | .searches, .same_hits, .same_first_page)] | nums' \
    '[.candidates[].phrase | type] == ["string", "string"]'
}

@test "make bench-allocator, smoke form: placement, every API endpoint, a move, the observer at 10 and 20 tenants; no cluster is one line" {
  bench_run allocator allocator/bench/results BENCH_SECONDS=2 BENCH_WARMUP=0 BENCH_DOCS=1000 BENCH_TENANTS=20
  assert_success
  bench_result allocator allocator/bench/results bench-allocator.json
  assert_result '.bench == "bench-allocator" and .only == null' \
    '[.placement | .tenants, .placement_ms, .shared_indices, .dedicated_indices, .rebalance_plan_ms, .rebalance_moves, .load_per_node[]] | nums' \
    '(.api.endpoints | keys) == ["GET /healthz", "GET /tenants", "GET /tenants/{id}", "POST /tenants (idempotent repeat)"]' \
    '[.api.endpoints[] | .requests, .rps, .mean_ms, .p50_ms, .p95_ms, .p99_ms, .max_ms, .errors] | nums' \
    '[.api.endpoints[].requests] | all(. > 0)' \
    '.move.documents == 1000' \
    '[.move | .seed_docs_per_s, .copy_docs_per_s, .move_total_s, .move_docs_per_s, .passes, .phase_ms[]] | nums' \
    '.observe.baseline.tenants == 10 and .observe.large.tenants == 20' \
    '[.observe.baseline, .observe.large | .cpu_percent_of_a_core, .cpu_ms_per_observation, .observation_ms_median, .observation_ms_max, .es_requests_per_observation, .probe_searches_per_s, .es_requests_per_s, .shoppers_per_s, .probe_share_of_search[]] | nums' \
    '(.observe.ratio.observation_ms | type) == "number"' \
    '(.observe.ratio.cpu | type) == "number" or .observe.baseline.cpu_ms_per_observation == 0'
  # the benchmark's own rule: no ratio to a baseline of 0 (a span too short to read a CPU tick)

  # with no cluster to measure: one line and a non-zero exit, no result kept (it used to print
  # "api, move: skipped", keep a result of the placement alone and exit 0)
  local runs
  runs="$(runs_of allocator | wc -l)"
  run --separate-stderr env ALLOCATOR_ES_URL=http://127.0.0.1:9 make -s bench-allocator
  assert_failure
  assert_equal "$(grep -c '^error:' <<<"$stderr")" 1
  assert_regex "$stderr" "error: bench-allocator: Elasticsearch does not answer at http://127\.0\.0\.1:9: start the lab"
  assert_equal "$(runs_of allocator | wc -l)" "$runs"
}

@test "make bench-console, smoke form: the page's load, its state's size, the allocator's CPU without and with a console" {
  bench_run console allocator/bench/results BENCH_SECONDS=3 BENCH_TENANTS=10
  assert_success
  assert_line --regexp '^console: 10 tenants: the page draws its map in [0-9]+ ms'
  bench_result console allocator/bench/results bench-console.json
  assert_result '.bench == "bench-console" and .only == "console" and .console.tenants == 10' \
    '[.console | .page_load_ms, .state_bytes, .console_cpu_percent_of_a_core] | nums' \
    '.console.page_loads_ms | nums and length == 3' \
    '.console.cpu_percent_without | nums and length == 2' \
    '.console.cpu_percent_with | nums and length == 2' \
    '.console.state_bytes > 0' \
    '(.console.cpu_ratio | type) == "number" or (.console.cpu_percent_without | add) == 0'
}

@test "make bench-load, smoke form: one storefront rate, an ingest window and the latency agreement, each from the engine" {
  ensure_tenants
  bench_run load traffic/bench BENCH_RATES=10 BENCH_STEP=5s
  # the verdict is a figure: a slow lab may not hold even 10/s, which is a complete run (exit 1
  # and its line), not a broken one (one line naming the engine's run)
  if ((status != 0)); then
    assert_equal "$status" 1
    assert_line --regexp '^bench-load: no rate sustained'
  else
    assert_line --regexp '^highest sustained storefront rate: 10 page views/s'
  fi
  refute_regex "$stderr" "the load engine .* (wrote no summary|sent no|kept no)"
  assert_line --regexp '^ +10 +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+% '
  bench_result load traffic/bench bench-load.json
  assert_result '.engine.name == "locust" and (.engine.version | type) == "string" and .step == "5s"' \
    '(.rates | length) == 1 and .rates[0].rate == 10' \
    '[.rates[0] | .rps, .p95_ms, .p99_ms, .failed, .arrivals, .late, .late_share, .generator_cpu_percent] | nums' \
    '.rates[0].arrivals > 0 and (.rates[0].sustained | type) == "boolean"' \
    '[.ingest | .clients, .docs_per_s, .bulks, .docs_indexed, .generator_cpu_percent] | nums' \
    '.ingest.bulks > 0' \
    '[.agreement | .searches, .overhead_median_ms, .overhead_p95_ms, .took_p95_ms, .engine_p95_ms, .overhead_p95_share_of_p95] | nums' \
    '.agreement.searches > 0' \
    "if $status == 0 then .highest_sustained_rate == 10 else .highest_sustained_rate == null end"
}
