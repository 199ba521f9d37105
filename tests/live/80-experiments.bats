#!/usr/bin/env bats
# Experiments (make experiment; the runner package @tenantlab/experiments) on the running test lab: every delivered
# experiment with QUICK=1 REPEAT=2 writes a whole report (every variant and repetition, numeric
# figures, a computed verdict per expected direction, valid SVG charts, results.json valid
# against its schema) and leaves the lab's indices and aliases as they were; Ctrl-C cleans up and
# still writes what was measured; bad input is one line, exit 2, nothing created. No test looks
# at a timing or a verdict's value: figures come from full runs (experiments/results/).
# About 9 minutes on 2 cores.

bats_require_minimum_version 1.5.0

setup_file() { load ../lib/lab; load ../lib/experiments; experiments_setup_file; }
setup() {
  load ../lib/lab
  load ../lib/experiments
  experiments_setup
  # the runner's own CLI, for the calls make does not offer (a spec folder of a test's own)
  CLI="$(runner_dir)/bin/tenantlab-experiment"
}

# check_report DIR VARIANTS REPS EXPECTS: the structure of a finished run's report
check_report() {
  local dir="${1%/}" variants="$2" reps="$3" expects="$4" r="$1/results.json" n
  [[ -s "$r" ]] || fail "no results.json in $dir"
  results_valid "$r"
  run_complete "$r"
  assert_equal "$(jq -r '.variants | length' "$r")" "$variants"
  # every variant: REPEAT repetitions, each with numeric figures and Elasticsearch's own
  n="$(jq --argjson reps "$reps" "$FIT"'[.variants[] | select((.repetitions | length) == $reps
      and all(.repetitions[]; fit and (.figures.requests > 0)
        and ([.figures.avg_ms, .figures.p50_ms, .figures.p95_ms, .figures.p99_ms, .figures.throughput_rps] | all(type == "number"))
        and (.figures.es.query_ms_per_query | type == "number") and (.timeline | length > 0)))] | length' "$r")"
  assert_equal "$n" "$variants"
  assert_equal "$(jq '[.variants[] | select(.layout.docs > 0 and .layout.primary_shards > 0)] | length' "$r")" "$variants"
  # rounds: every round holds every variant once, in an order drawn from the recorded seed; each
  # repetition knows its round and its place in it
  assert_equal "$(jq -r --argjson v "$variants" '[.plan.rounds[] | unique | length == $v] | all' "$r")" true
  assert_equal "$(jq -r '.plan.order_seed | type' "$r")" number
  assert_equal "$(jq -r '[.variants[].repetitions[] | (.measured_round > 0) and (.position > 0)] | all' "$r")" true
  # a QUICK run is a smoke run: no verdict, and it says so ($expects directions unjudged)
  assert_equal "$(jq '.plan.expect | length' "$r")" "$expects"
  # (a smoke run that failed by late arrivals alone says so: run_complete above let it through)
  assert_equal "$(jq -r '[(.verdicts | length), .plan.smoke] | join(",")' "$r")" "0,true"
  local smoke
  smoke="$(jq -r 'if .complete then "passed" else "failed" end' "$r")"
  assert_equal "$(jq -r .smoke.result "$r")" "$smoke"
  # environment and the runner's own figures, the JVMs, and whether the run may be published
  assert_equal "$(jq -r '[.environment.machine.cores, .environment.versions.elasticsearch, .environment.git_commit, .runner.wall_seconds] | all(. != null)' "$r")" true
  assert_equal "$(jq -r '[.environment.jvm.nodes[] | (.version | length > 0) and (.heap_max_bytes > 0) and (.gc | length > 0)] | (length > 0) and all' "$r")" true
  assert_equal "$(jq -r '[.environment.git_clean, .environment.publishable.ok] | map(type) | join(",")' "$r")" "boolean,boolean"
  measured_with_locust "$dir"
  # the report: every variant and the smoke line; charts are SVG that parse as XML
  for v in $(jq -r '.variants[].name' "$r"); do grep -q -- "$v" "$dir/report.md" || fail "report.md does not name variant $v"; done
  grep -q "\*\*smoke run, no verdict\*\* ($smoke" "$dir/report.md" || fail "report.md does not say it is a smoke run ($smoke)"
  grep -q '<svg' "$dir/report.html" || fail "report.html has no inline chart"
  svgs_valid "$dir" 2
}

@test "experiments list: every experiment with its hypothesis, source, expected direction and time" {
  run make -s experiments
  assert_success
  for f in experiments/*.yaml; do
    assert_output --partial "$(basename "$f" .yaml)  (about"
  done
  assert_output --partial "source: "
  assert_output --partial "expects: "
}

@test "h1-shard-count QUICK=1 REPEAT=1 on the running lab: a whole report, the lab as before" {
  quick_runs_here
  local before
  before="$(lab_state)"
  # REPEAT=1 keeps the suite under its budget; h2 below runs REPEAT=2 (interleaved rounds)
  run make -s experiment NAME=h1-shard-count QUICK=1 REPEAT=1 LAB=running
  assert_success
  assert_output --partial "verdicts:"
  check_report "$(latest_run h1-shard-count)" 4 1 1
  assert_equal "$(lab_state)" "$before"
}

@test "h2-split-index QUICK=1 REPEAT=2 on the running lab: a whole report, the lab as before" {
  quick_runs_here
  local before dir
  before="$(lab_state)"
  run make -s experiment NAME=h2-split-index QUICK=1 REPEAT=2 LAB=running
  assert_success
  dir="$(latest_run h2-split-index)"
  check_report "$dir" 4 2 2
  # the split variants put odd store numbers in one index and even ones in the other
  assert_equal "$(jq '[.variants[] | select(.name == "2x4") | .layout.indices | length][0]' "$dir/results.json")" 2
  assert_equal "$(lab_state)" "$before"
  compare_with_changed_copy "$dir"
}

# compare_with_changed_copy DIR: `make experiment-compare` of the run in DIR (baseline) and a
# copy of it in which variant 1x8's mean latency is 1.5 times as high and its p95 half as high,
# and another commit (contender): exactly those two rows move, by +50% and -50%, with ratios 1.5
# and 0.5; the commit is named as an environment difference; every FORMAT answers
compare_with_changed_copy() {
  local dir="${1%/}" other="$BATS_TEST_TMPDIR/contender" json
  mkdir -p "$other"
  jq '.run_id += "-contender" | .environment.git_commit = "0000000" | (.variants[] | select(.name == "1x8") | .repetitions[].figures) |= (.avg_ms *= 1.5 | .p95_ms *= 0.5)' \
    "$dir/results.json" >"$other/results.json"
  run make -s experiment-compare A="$dir" B="$other"
  assert_success
  assert_output --partial "baseline $(jq -r .run_id "$dir/results.json") (QUICK), contender $(jq -r .run_id "$other/results.json") (QUICK)"
  assert_line "environment differs: git commit: $(jq -r .environment.git_commit "$dir/results.json") -> 0000000"
  # the interval is unbounded when the baseline's mean is not surely above zero (Fieller: n = 2 of a
  # QUICK run whose two windows differ a lot)
  assert_line --regexp '^\| avg_ms +\| 1x8 +\| .*\| +\+50% \| +1\.5 \[([-0-9.inf]+, [-0-9.inf]+|unbounded)\] \|.*$'
  run make -s experiment-compare A="$dir" B="$other" FORMAT=json
  assert_success
  json="$output"
  # ratio 1.5 and 0.5 for the changed rows, 1 (or no figure) for every other
  assert_equal "$(jq -r '[.rows[] | select(.ratio != null) | select(((.metric == "avg_ms" and .variant == "1x8") | not) and ((.metric == "p95_ms" and .variant == "1x8") | not)) | (.ratio - 1) | fabs < 1e-9] | all' <<<"$json")" true
  assert_equal "$(jq -r '.rows[] | select(.metric == "avg_ms" and .variant == "1x8") | (.ratio - 1.5) | fabs < 1e-9' <<<"$json")" true
  assert_equal "$(jq -r '.rows[] | select(.metric == "p95_ms" and .variant == "1x8") | (.ratio - 0.5) | fabs < 1e-9' <<<"$json")" true
  assert_equal "$(jq -r '[.rows[] | .baseline.n] | max' <<<"$json")" 2
  run make -s experiment-compare A="$dir" B="$other" FORMAT=csv
  assert_success
  assert_line --index 0 'metric,variant,unit,baseline_mean,baseline_stdev,baseline_n,contender_mean,contender_stdev,contender_n,diff,diff_pct,ratio,ratio_low,ratio_high,ratio_unbounded,p_value'
  run make -s experiment-compare A="$dir" B="$other" FORMAT=md
  assert_success
  assert_line --index 0 --partial "## h2-split-index: baseline"
  run make -s experiment-compare A="$dir" B="$other" FORMAT=xml
  assert_failure 2
  assert_output --partial "error: FORMAT=xml: want one of text, json, csv, md"
  refute_output --partial "    at "
  # the stored runs list names both ways to pass a run
  run make -s experiment-runs NAME=h2-split-index
  assert_success
  assert_output --partial "h2-split-index/$(jq -r .run_id "$dir/results.json")"
}

# The two experiments that set their own lab run once each (REPEAT=1: 9 and 6 variants on labs
# of their own would double the suite's time at REPEAT=2); a QUICK run is a smoke run anyway.
# quick_own_lab NAME VARIANTS EXPECTS: the whole report of NAME's QUICK run in $dir ($r its
# results.json); afterwards nothing of the experiment's lab runs and the test lab is as before.
quick_own_lab() {
  local before
  before="$(lab_state)"
  run make -s experiment NAME="$1" QUICK=1 REPEAT=1
  assert_success
  assert_output --partial "verdicts:"
  dir="$(latest_run "$1")" r="$(latest_run "$1")results.json"
  check_report "$dir" "$2" 1 "$3"
  assert_equal "$(lab_pids "$REPO/.lab/experiments")" ""
  assert_equal "$(lab_state)" "$before"
}

@test "explorium-shards-replicas QUICK=1 REPEAT=1 on a lab of its own with its node sizes: a whole report, then nothing of that lab" {
  quick_runs_here
  local dir r
  quick_own_lab explorium-shards-replicas 9 3
  # its lab: started once, every data node at half a core (what make up applied, as it said)
  assert_equal "$(jq -r '.lab.mode' "$r") $(jq '.lab.starts | length' "$r")" "own 1"
  local shape
  shape="$(jq -r '.lab.starts[0].shape' "$r")"
  for n in $(data_nodes); do [[ "$shape" == *"$n 0.5 cores"* ]] || fail "$n not at 0.5 cores in '$shape'"; done
  # query vs fetch time and rejections per cell, from Elasticsearch's own figures
  assert_equal "$(jq '[.variants[].repetitions[].figures.es | select((.fetch_ms_per_fetch | type == "number") and (.search_rejected | type == "number"))] | length' "$r")" 9
  grep -q 'by-variant-throughput_rps.svg' "$dir/report.md" || fail "no queries/s chart in the report"
}

@test "h3-index-groups QUICK=1 REPEAT=1: groups per index, store halves, a burst shaped and unshaped on a restarted lab" {
  quick_runs_here
  local dir r
  quick_own_lab h3-index-groups 6 6
  # one fresh lab, then the same data restarted with SHAPE=off for the unshaped burst
  assert_equal "$(jq -c '[.lab.starts[] | [.fresh, (.lab.shape // "lab.env")]]' "$r")" '[[true,"lab.env"],[false,"off"]]'
  [[ "$(jq -r '.lab.starts[0].shape' "$r")" == "SHAPE=groups"* ]]
  [[ "$(jq -r '.lab.starts[1].shape' "$r")" == "SHAPE=off"* ]]
  # each half measured in every variant; before / during the burst where there was one
  assert_equal "$(jq '[.variants[].repetitions[].figures.by_set | select((.odd.avg_ms | type == "number") and (.even.avg_ms | type == "number"))] | length' "$r")" 6
  assert_equal "$(jq '[.variants[] | select(.burst) | .repetitions[] | select((.figures.by_set.even.burst_p95_ratio | type == "number") and (.burst.tenant | length > 0) and (.timeline_by_set.even | length > 0))] | length' "$r")" 2
  # the bound direction (judged in full runs only) and the burst chart
  assert_equal "$(jq '[.plan.expect[] | select(.form == "bound" and .bound == 1.1)] | length' "$r")" 1
  [[ -s "$dir/burst-timeline.svg" ]] || fail "no burst timeline chart"
}

@test "make demo QUICK=1: the noisy-neighbour story told on the running lab, its report complete, the lab as before" {
  quick_runs_here
  local before allocators
  before="$(lab_state)"
  # the allocators of this lab's cluster (the lab's own; the demo starts one more and must stop
  # it), never another lab's on the machine
  allocators="$(lab_allocator_pids)"
  [[ -n "$allocators" || ",$LAB_SERVICES," != *,allocator,* ]] || fail "the lab's allocator not found (LAB_DIR=$LAB_DIR, ES=$ES)"
  # while the demo runs, the allocators of this cluster every 2 s (the demo's own among them)
  (while :; do lab_allocator_pids | paste -sd' '; sleep 2; done) >"$BATS_TEST_TMPDIR/allocators" 2>/dev/null 3>&- &
  local sampler=$!
  run make -s demo QUICK=1
  kill "$sampler" 2>/dev/null || true
  wait "$sampler" 2>/dev/null || true
  assert_success
  assert_output --regexp "\[demo\] steady storefront traffic on g1 and g2; in [0-9]+ s a search bot starts crawling [a-z0-9-]+ \(on g1\)"
  assert_output --regexp "\[demo\] \+[0-9]+s  g1 neighbours p95 "
  assert_output --partial "[demo] neighbours' p95: "
  # Locust's web UI while the story ran, and not after it
  assert_output --partial "load: Locust's web UI: http://$LAB_BIND:$LOAD_UI_PORT/"
  # the full run's node sizes (headroom for what floats) are left out of the user's lab, and it says so
  assert_output --partial "the full run's node sizes (each data node: cpu_weight 1000; the load engine: cpu_weight 1000, cpus_of g1, burst_cpus_of g2) are left out: the demo runs on the lab as it is"
  # the rates are shares of this lab's saturation, measured on it (calibrate.js)
  assert_output --regexp "calibrated: the lab answers [0-9.]+ page views/s saturated.*; the storefront at [0-9]+/s \(40% of it\), the bot at [0-9]+/s \(100% of it\)"
  ! curl -fsS -o /dev/null --max-time 2 "http://$LAB_BIND:$LOAD_UI_PORT/" 2>/dev/null || fail "the demo's web UI is still up"
  local dir r
  dir="$(latest_run noisy-neighbour)"
  r="$dir/results.json"
  check_report "$dir" 2 1 2
  # the control (elsewhere, quick: false) is a verdict run's only: left out of the demo, with its direction
  assert_equal "$(jq -c '.plan.left_out' "$r")" '["elsewhere"]'
  # the full run's node sizes (headroom for what floats) are not imposed on the user's lab: said (above), not applied
  assert_equal "$(jq -r '[.variants[] | .lab] | map(. == null) | all' "$r")" true
  grep -q "The lab: the full run's node sizes" "$dir/report.md" || fail "report.md does not say the node sizes were left out"
  # the storefront at 40% and every bot at 100% of the measured saturation, in results.json and the report
  assert_equal "$(jq '.calibration as $c | ($c.saturation_rps > 0) and ($c.passes | length >= 2) and .plan.workload.rate == $c.rate
      and ($c.rate == ([1, ($c.saturation_rps * 0.4 | round)] | max)) and ([.variants[] | .burst.rate == $c.burst_rates[.name] and .burst.rate == ([1, ($c.saturation_rps | round)] | max)] | all)' "$r")" true
  grep -q "The rates are shares of the lab's saturation" "$dir/report.md" || fail "report.md does not state the calibration"
  # the closed loop's record: the burst store, the allocator watched every second, the
  # neighbours' figures; whether it was flagged or moved is behaviour under load, checked by the
  # allocator's integration tests, not here
  assert_equal "$(jq '[.variants[].repetitions[] | select((.isolation.target | type) == "string" and (.isolation.samples | length) > 10
      and (.figures.neighbours.before_p95_ms | type) == "number" and (.figures.others.before_p95_ms | type) == "number"
      and (.figures.isolation | has("flag_s") and has("move_s") and has("recovered_s")))] | length' "$r")" 2
  assert_equal "$(jq -r '[.variants[] | .isolate.auto] | join(",")' "$r")" "true,false"
  # a store the allocator moved is followed by the load engine: its searches go through a node of
  # its new group within a few seconds of the move's end (FOLLOW_S=1)
  assert_equal "$(jq '[.variants[].repetitions[].isolation | select(.move.finished_s != null) | . as $i
      | select(any($i.routes[]?; .tenant == $i.target and .to == $i.move.to.group and .at_s >= $i.move.finished_s - 1 and .at_s <= $i.move.finished_s + 5) | not)] | length' "$r")" 0
  grep -q 'burst-timeline.svg' "$dir/report.md" || fail "report.md has no timeline chart"
  # its stores, indices, template and allocators are gone: the lab is as it was
  assert_equal "$(lab_state)" "$before"
  assert_equal "$(es GET '/_cat/templates/exp-*?h=name' | wc -l)" 0
  # the demo's allocator was seen while it ran (so this check sees one left behind), and is gone
  [[ "$(awk '{ print NF }' "$BATS_TEST_TMPDIR/allocators" | sort -n | tail -n 1)" -gt "$(wc -w <<<"$allocators")" ]] \
    || fail "the demo's allocator was never seen among this cluster's allocators: $(sort -u "$BATS_TEST_TMPDIR/allocators" | paste -sd';')"
  assert_equal "$(lab_allocator_pids)" "$allocators"
}

@test "an experiment that sets its own lab refuses LAB=running: one line, nothing created" {
  local before
  before="$(lab_state)"
  run make -s experiment NAME=explorium-shards-replicas QUICK=1 LAB=running
  assert_failure
  assert_output --partial "sets the lab it runs on"
  assert_output --partial "LAB=own"
  refute_output --partial "    at "
  assert_equal "$(lab_state)" "$before"
}

@test "Ctrl-C during a run: what it created is deleted, what it measured is written, marked incomplete" {
  quick_runs_here
  local before log="$BATS_TEST_TMPDIR/run.log" pid dir deadline
  before="$(lab_state)"
  node "$CLI" run h2-split-index --quick --repeat 2 --lab running --es-url "$ES" --locust "$(scripts/install/locust.sh)" --results "$RESULTS" >"$log" 2>&1 3>&- &
  pid=$!
  deadline=$((SECONDS + 240))
  until grep -qs '^\[2/' "$log"; do
    ((SECONDS < deadline)) || { kill -KILL "$pid"; fail "the run did not reach its second repetition: $(tail -5 "$log")"; }
    kill -0 "$pid" 2>/dev/null || fail "the run ended early: $(tail -5 "$log")"
    sleep 1
  done
  kill -INT "$pid"
  # not `run wait`: run's subshell is not the runner's parent
  local rc=0
  wait "$pid" || rc=$?
  assert_equal "$rc" 130
  grep -q "SIGINT: stopping" "$log" || fail "no word of the interruption: $(tail -5 "$log")"
  assert_equal "$(lab_state)" "$before"
  dir="$(latest_run h2-split-index)"
  assert_equal "$(jq -r .complete "$dir/results.json")" false
  assert_equal "$(jq -r .incomplete_reason "$dir/results.json")" interrupted
  # the first repetition's figures were kept
  [[ "$(jq '[.variants[].repetitions[] | select(.figures.requests > 0)] | length' "$dir/results.json")" -ge 1 ]] \
    || fail "the measured repetition is missing from results.json"
}

@test "bad input: no NAME, unknown experiment, REPEAT (and too few for a verdict), QUICK, LAB, ORDER_SEED, PUBLISH: one line, exit 2, nothing started" {
  run make -s experiment
  assert_failure 2
  assert_output --partial "NAME= is required"
  run make -s experiment NAME=h9-nothing
  assert_failure 2
  assert_output --partial "unknown experiment 'h9-nothing': pick one of appbase-write-scaling, azure-refresh, azure-replicas, azure-shard-count, explorium-shards-replicas, h1-shard-count, h2-split-index, h3-index-groups, many-shards"
  run make -s experiment NAME=h2-split-index REPEAT=many
  assert_failure 2
  assert_output --partial "REPEAT: must be an integer"
  run make -s experiment NAME=h2-split-index QUICK=yes
  assert_failure 2
  assert_output --partial "QUICK=yes"
  # a verdict run below the repetitions its tests need: refused before any lab starts
  run make -s experiment NAME=h2-split-index REPEAT=3
  assert_failure 2
  assert_output --partial "error: h2-split-index: 3 repetitions give no verdict: \"2x4 answers faster than 1x8 (average and p95)\": a one-sided Mann-Whitney test reaches 0.025 with one repetition out of order from 5 repetitions of each of its 2 variants (Holm's first step in a family of 2 directions: 0.05 / 2); set REPEAT=5 (or more), or QUICK=1 for a smoke run without a verdict"
  run make -s experiment NAME=h2-split-index ORDER_SEED=soon
  assert_failure 2
  assert_output --partial "--order-seed soon: want a whole number"
  run make -s experiment NAME=h2-split-index PUBLISH=yes
  assert_failure 2
  assert_output --partial "PUBLISH=yes: want force"
  run make -s experiment NAME=h2-split-index LAB=yours
  assert_failure 2
  assert_output --partial "LAB=yours"
  assert_equal "$(lab_pids "$REPO/.lab/experiments")" ""
}

@test "a spec error names the file, the field and what is allowed" {
  cp experiments/h2-split-index.yaml "$BATS_TEST_TMPDIR/h2-split-index.yaml"
  sed -i 's/name: 1x8, indices: 1, shards: 8,/name: 1x8, indices: 1, shards: 0,/' "$BATS_TEST_TMPDIR/h2-split-index.yaml"
  run node "$CLI" check h2-split-index --dir "$BATS_TEST_TMPDIR"
  assert_failure 2
  assert_output --regexp "h2-split-index.yaml: variants\[[0-9]+\]\.shards: must be a positive integer \(got 0\)"
  assert_equal "${#lines[@]}" 1
}

@test "a variant the lab cannot hold, a lab that is not up, a lab that is not quiet: refused, nothing created" {
  local before spec="$BATS_TEST_TMPDIR/h2-split-index.yaml" locust port loop
  before="$(lab_state)"
  locust="$(scripts/install/locust.sh)"
  # 2 replicas in an index group of two data nodes
  sed 's/^\(\s*\)replicas: 1$/\1replicas: 2/; s/^\(\s*\)group: all$/\1group: g1/' experiments/h2-split-index.yaml >"$spec"
  run node "$CLI" run h2-split-index --quick --dir "$BATS_TEST_TMPDIR" --lab running --es-url "$ES" --locust "$locust"
  assert_failure 2
  assert_output --regexp "variant [0-9a-z]+: 2 replica\(s\) need 3 data nodes in group g1; the lab has 2"
  assert_equal "$(lab_state)" "$before"

  port="$(node -e 'const s = require("net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); })')"
  run node "$CLI" run h2-split-index --quick --lab running --es-url "http://127.0.0.1:$port" --locust "$locust"
  assert_failure 2
  assert_output --partial "the lab is not up: Elasticsearch does not answer at http://127.0.0.1:$port"

  # other clients searching while the experiment would measure (bounded: 3 x 1500 requests)
  local loops=() i
  for i in 1 2 3; do
    (for _ in $(seq 1 1500); do curl -s -o /dev/null --max-time 2 "$ES/_search?size=0"; done) >/dev/null 2>&1 3>&- &
    loops+=($!)
  done
  sleep 1
  run node "$CLI" run h2-split-index --quick --lab running --es-url "$ES" --locust "$locust"
  kill "${loops[@]}" 2>/dev/null || true
  wait "${loops[@]}" 2>/dev/null || true
  assert_failure 2
  assert_output --partial "the lab is not quiet:"
  assert_equal "$(lab_state)" "$before"
}
