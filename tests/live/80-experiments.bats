#!/usr/bin/env bats
# Experiments (make experiment; the runner package @tenantlab/experiments) on the running test lab: every delivered
# experiment with QUICK=1 (on a copy of its spec that keeps two variants: tests/lib/quick-spec.mjs)
# writes a whole report (every variant and repetition, numeric
# figures, a computed verdict per expected direction, valid SVG charts, results.json valid
# against its schema) and leaves the lab's indices and aliases as they were; Ctrl-C cleans up and
# still writes what was measured; bad input is one line, exit 2, nothing created. No test looks
# at a timing or a verdict's value: figures come from full runs (experiments/results/). The
# experiments that start labs of their own run after the test lab stops
# (tests/own-lab/20-experiments.bats). About 7 minutes on 2 cores.

bats_require_minimum_version 1.5.0

# on compose the whole file is skipped: the runner, its refusals and its bad input run on the host
# against the lab's published ports in every runtime (about 25 s of the compose part)
setup_file() { load ../lib/lab; load ../lib/experiments; quick_runs_here; experiments_setup_file; }
setup() {
  load ../lib/lab
  load ../lib/experiments
  experiments_setup
  # the runner's own CLI, for the calls make does not offer (a spec folder of a test's own)
  CLI="$(runner_dir)/bin/tenantlab-experiment"
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

@test "h1-shard-count QUICK=1 REPEAT=1 on the running lab, two of its shard counts: a whole report, the lab as before" {
  quick_runs_here
  local before dir
  before="$(lab_state)"
  # REPEAT=1 keeps the suite under its budget; h2 below runs REPEAT=2 (interleaved rounds)
  run make -s experiment NAME=h1-shard-count QUICK=1 REPEAT=1 LAB=running SPECS="$(quick_specs h1-shard-count s16 s2)"
  assert_success
  assert_output --partial "verdicts:"
  dir="$(latest_run h1-shard-count)"
  check_report "$dir" 2 1 1
  assert_equal "$(left_out "$dir/results.json")" "s4,s8"
  assert_equal "$(jq -c '[.variants[].layout.primary_shards]' "$dir/results.json")" '[16,2]'
  assert_equal "$(lab_state)" "$before"
}

@test "h2-split-index QUICK=1 REPEAT=2 on the running lab, one index against two: a whole report, the lab as before" {
  quick_runs_here
  local before dir
  before="$(lab_state)"
  run make -s experiment NAME=h2-split-index QUICK=1 REPEAT=2 LAB=running SPECS="$(quick_specs h2-split-index 1x8 2x4)"
  assert_success
  dir="$(latest_run h2-split-index)"
  check_report "$dir" 2 2 1
  assert_equal "$(left_out "$dir/results.json")" "1x16,2x8"
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
  node "$CLI" run h2-split-index --quick --repeat 2 --dir "$(quick_specs h2-split-index 1x8 2x4)" --lab running --es-url "$ES" --locust "$(scripts/install/locust.sh)" --results "$RESULTS" >"$log" 2>&1 3>&- &
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

@test "bad input: no NAME, unknown experiment, REPEAT (and too few for a verdict), QUICK, LAB, ORDER_SEED, PUBLISH, SPECS, a spec copy's variant: one line, exit 2, nothing started" {
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
  run make -s experiment NAME=h2-split-index SPECS="$BATS_TEST_TMPDIR/none"
  assert_failure 2
  assert_output --partial "error: SPECS=$BATS_TEST_TMPDIR/none: not a folder"
  run node tests/lib/quick-spec.mjs experiments/h2-split-index.yaml "$BATS_TEST_TMPDIR/q" 1x8 9x9
  assert_failure 2
  assert_output "quick-spec: h2-split-index.yaml has no variant 9x9 (it has 1x8, 2x4, 1x16, 2x8)"
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
