#!/usr/bin/env bats
# The experiments that start labs of their own (LAB=own: the lab the spec sets, in
# .lab/experiments), in their smoke form: QUICK=1 REPEAT=1 on a copy of each spec that keeps two
# or three variants taking every code path the full set takes (tests/lib/quick-spec.mjs): a lab
# of the spec's node sizes, a restart with SHAPE=off, a short write queue, a fresh lab per node
# count. Each writes a whole report (tests/lib/experiments.bash) and leaves nothing of its lab
# running. Run by make test after the test lab has stopped: an experiment's lab beside the test
# lab is ten JVMs on 2 cores. No test looks at a timing or a verdict's value: figures come from
# full runs (experiments/results/). About 5 minutes on 2 cores.

bats_require_minimum_version 1.5.0

setup_file() { load ../lib/lab; load ../lib/experiments; experiments_setup_file; }
setup() { load ../lib/lab; load ../lib/experiments; experiments_setup; }

# own_lab_run NAME [make args...]: NAME's QUICK=1 REPEAT=1 run on a lab of its own, on the spec
# copy in $specs; $dir and $r its folder and results.json, $printed its output; afterwards
# nothing of the experiment's lab runs
own_lab_run() {
  local name="$1"
  shift
  run make -s experiment NAME="$name" QUICK=1 REPEAT=1 SPECS="$specs" "$@"
  assert_success
  assert_output --partial "verdicts:"
  printed="$output"
  dir="$(latest_run "$name")" r="$(latest_run "$name")results.json"
  assert_equal "$(jq -r '.lab.mode' "$r")" own
  assert_equal "$(lab_pids "$REPO/.lab/experiments")" ""
  assert_equal "$(lab_dir_pids "$REPO/.lab/experiments" | paste -sd' ')" ""
}

@test "explorium-shards-replicas QUICK=1 REPEAT=1 on a lab of its own with its node sizes, 1 and 3 replicas: a whole report, then nothing of that lab" {
  local dir r printed specs shape
  specs="$(quick_specs explorium-shards-replicas s6r1 s6r3)"
  own_lab_run explorium-shards-replicas
  check_report "$dir" 2 1 1
  assert_equal "$(left_out "$r")" "s10r1,s10r2,s10r3,s3r1,s3r2,s3r3,s6r2"
  assert_equal "$(jq -c '[.variants[] | [.layout.primary_shards, .settings.replicas]]' "$r")" '[[6,1],[6,3]]'
  # its lab: started once, every data node at half a core (what make up applied, as it said)
  assert_equal "$(jq '.lab.starts | length' "$r")" 1
  shape="$(jq -r '.lab.starts[0].shape' "$r")"
  for n in $(data_nodes); do [[ "$shape" == *"$n 0.5 cores"* ]] || fail "$n not at 0.5 cores in '$shape'"; done
  # query vs fetch time and rejections per cell, from Elasticsearch's own figures
  assert_equal "$(jq '[.variants[].repetitions[].figures.es | select((.fetch_ms_per_fetch | type == "number") and (.search_rejected | type == "number"))] | length' "$r")" 2
  grep -q 'by-variant-throughput_rps.svg' "$dir/report.md" || fail "no queries/s chart in the report"
}

@test "h3-index-groups QUICK=1 REPEAT=1, all nodes against a burst shaped and unshaped: store halves, then the lab restarted with SHAPE=off" {
  local dir r printed specs
  specs="$(quick_specs h3-index-groups dual-4 burst-shaped burst-unshaped)"
  own_lab_run h3-index-groups
  check_report "$dir" 3 1 2
  assert_equal "$(left_out "$r")" "dual-8,groups-4,groups-8"
  # one fresh lab, then the same data restarted with SHAPE=off for the unshaped burst
  assert_equal "$(jq -c '[.lab.starts[] | [.fresh, (.lab.shape // "lab.env")]]' "$r")" '[[true,"lab.env"],[false,"off"]]'
  [[ "$(jq -r '.lab.starts[0].shape' "$r")" == "SHAPE=groups"* ]] || fail "the first lab is not shaped: $(jq -r '.lab.starts[0].shape' "$r")"
  [[ "$(jq -r '.lab.starts[1].shape' "$r")" == "SHAPE=off"* ]] || fail "the restarted lab is shaped: $(jq -r '.lab.starts[1].shape' "$r")"
  # each half measured in every variant; before / during the burst where there was one
  assert_equal "$(jq '[.variants[].repetitions[].figures.by_set | select((.odd.avg_ms | type == "number") and (.even.avg_ms | type == "number"))] | length' "$r")" 3
  assert_equal "$(jq '[.variants[] | select(.burst) | .repetitions[] | select((.figures.by_set.even.burst_p95_ratio | type == "number") and (.burst.tenant | length > 0) and (.timeline_by_set.even | length > 0))] | length' "$r")" 2
  # the bound direction (judged in full runs only) and the burst chart
  assert_equal "$(jq '[.plan.expect[] | select(.form == "bound" and .bound == 1.1)] | length' "$r")" 1
  [[ -s "$dir/burst-timeline.svg" ]] || fail "no burst timeline chart"
}

@test "azure-replicas QUICK=1 REPEAT=1 on a lab of its own with a short write queue, 0 and 2 replicas: rejections counted, then nothing of that lab" {
  local dir r printed specs
  specs="$(quick_specs azure-replicas r0 r2)"
  own_lab_run azure-replicas
  check_write_report "$dir" 2 3
  assert_equal "$(left_out "$r")" "r1"
  assert_equal "$(ingest_figures "$r")" 2
  # the lab it asked for: half-core nodes, every node's write queue 20 (as the nodes said)
  assert_equal "$(jq -r '.lab.starts | length' "$r")" 1
  assert_equal "$(jq -r '.lab.starts[0].write_queue' "$r")" 20
  [[ "$(jq -r '.lab.starts[0].shape' "$r")" == *"0.5 cores"* ]] || fail "not half-core nodes: $(jq -r '.lab.starts[0].shape' "$r")"
}

@test "appbase-write-scaling QUICK=1 REPEAT=1, 1 to 3 data nodes: a fresh lab for each variant and their curve" {
  local dir r printed specs
  specs="$(quick_specs appbase-write-scaling n1 n2 n3)"
  own_lab_run appbase-write-scaling RUNTIME=native
  check_write_report "$dir" 3 2
  assert_equal "$(left_out "$r")" "n4"
  assert_equal "$(ingest_figures "$r")" 3
  # a fresh lab for each node count, each data node at 0.4 cores, written through all of them
  assert_equal "$(jq -c '[.lab.starts[] | [.fresh, .lab.data_nodes_per_group]]' "$r")" '[[true,1],[true,2],[true,3]]'
  assert_equal "$(jq -r '[.lab.starts[].shape | test("0.4 cores")] | all' "$r")" true
  assert_equal "$(jq -r '.plan.expect[0] | [.form, (.x | length)] | join(",")' "$r")" "linear,3"
  [[ -s "$dir/curve-linear-docs_per_s.svg" ]] || fail "no curve chart"
}
