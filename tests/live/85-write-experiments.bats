#!/usr/bin/env bats
# The ingest and scale experiments (workload.scenario ingest and many-shards) with QUICK=1
# REPEAT=1: every variant measured, the write figures numeric, every acknowledged document found
# in the index afterwards, a smoke result in place of a verdict (QUICK judges nothing), the curve
# charts over x, results.json valid against its schema; the lab's indices as they
# were. Never a timing or a verdict's value: figures come from full runs (experiments/results/).
# The experiments that start labs of their own run after the test lab stops
# (tests/own-lab/20-experiments.bats). About 3 minutes on 2 cores.

bats_require_minimum_version 1.5.0

setup_file() { load ../lib/lab; load ../lib/experiments; quick_runs_here; experiments_setup_file; }
setup() { load ../lib/lab; load ../lib/experiments; experiments_setup; }

# quick_write_run NAME VARIANTS EXPECTS [make args...]: NAME's QUICK=1 REPEAT=1 run, its report
# checked; $dir and $r its folder and results.json, $printed its output; the test lab's indices as before, and
# nothing of an experiment's own lab left running
quick_write_run() {
  local name="$1" variants="$2" expects="$3" before
  shift 3
  before="$(lab_state)"
  run make -s experiment NAME="$name" QUICK=1 REPEAT=1 "$@"
  assert_success
  assert_output --partial "verdicts:"
  # what the run printed (the checks below run commands of their own)
  printed="$output"
  dir="$(latest_run "$name")" r="$(latest_run "$name")results.json"
  check_write_report "$dir" "$variants" "$expects"
  assert_equal "$(lab_pids "$REPO/.lab/experiments")" ""
  assert_equal "$(lab_state)" "$before"
}

@test "the running lab's nodes have lab.env's write queue (ES_WRITE_QUEUE)" {
  local want="${ES_WRITE_QUEUE:-$(sed -n 's/^ES_WRITE_QUEUE=//p' lab.env)}"
  [[ -n "$want" ]] || fail "lab.env has no ES_WRITE_QUEUE"
  run es GET '/_nodes/settings?filter_path=nodes.*.settings.thread_pool.write.queue_size'
  assert_success
  assert_equal "$(echo "$output" | jq -r '[.nodes[].settings.thread_pool.write.queue_size] | unique | join(",")')" "$want"
}

@test "azure-refresh QUICK=1 REPEAT=1 on the running lab: bulks counted item by item, every acknowledged document in the index, the lab as before" {
  quick_runs_here
  local dir r printed
  quick_write_run azure-refresh 2 3 LAB=running
  [[ "$printed" == *"docs/s"* ]] || fail "no docs/s column in the closing table"
  assert_equal "$(ingest_figures "$r")" 2
  assert_equal "$(jq -r '[.variants[].settings.refresh_interval] | join(",")' "$r")" "1s,30s"
  assert_equal "$(jq -r '.environment.data.kind' "$r")" log-events
  # the published figures beside the lab's
  grep -q 'published-vs-lab-bulk_ops_per_s.svg' "$dir/report.md" || fail "no published-vs-lab chart"
}

@test "azure-shard-count QUICK=1 REPEAT=1 on the running lab, three of its shard counts: their curve" {
  quick_runs_here
  local dir r printed
  quick_write_run azure-shard-count 3 1 LAB=running SPECS="$(quick_specs azure-shard-count s1 s4 s32)"
  assert_equal "$(ingest_figures "$r")" 3
  assert_equal "$(left_out "$r")" "s16,s2,s8"
  assert_equal "$(jq -c '[.variants[].layout.primary_shards]' "$r")" '[1,4,32]'
  assert_equal "$(jq -r '.plan.expect[0] | [.form, (.x | length)] | join(",")' "$r")" "peak,3"
  [[ -s "$dir/curve-peak-docs_per_s.svg" ]] || fail "no curve chart"
}

@test "many-shards QUICK=1 REPEAT=1 on the running lab: indices made, their cost to the master, all deleted" {
  quick_runs_here
  local dir r printed
  quick_write_run many-shards 4 3 LAB=running
  [[ "$printed" == *"indices/s"* ]] || fail "no indices/s column in the closing table"
  assert_equal "$(jq -c '[.variants[].settings.indices]' "$r")" '[10,20,40,80]'
  # every index made, with its figures; the count made equals the variant's
  assert_equal "$(jq '[.variants[] | .settings.indices as $n | .repetitions[].figures.many_shards | select(.indices_created == $n
      and ([.indices_per_s, .cluster_state_bytes, .cluster_state_bytes_before, .master_heap_max_mb, .master_gc_ms, .pending_tasks_max, .delete_s, .docs_indexed] | all(type == "number")))] | length' "$r")" 4
}

@test "write experiments, bad input: a store profile for ingest, a storefront knob: one line naming the field, exit 2" {
  local edit want
  for edit in 's/^  profile: azure-logs .*/  profile: ci/' 's/^  clients: 4 .*/  vus: 4/'; do
    cp experiments/azure-refresh.yaml "$BATS_TEST_TMPDIR/azure-refresh.yaml"
    sed -i "$edit" "$BATS_TEST_TMPDIR/azure-refresh.yaml"
    run node "$(runner_dir)/bin/tenantlab-experiment" check azure-refresh --dir "$BATS_TEST_TMPDIR"
    assert_failure 2
    assert_equal "${#lines[@]}" 1
  done
  assert_output --regexp "azure-refresh.yaml: workload.vus: not for scenario: ingest \(it takes clients and bulk_docs or bulk_bytes\)"
  sed -i 's/^  vus: 4/  clients: 4/; s/^  profile: azure-logs .*/  profile: ci/' "$BATS_TEST_TMPDIR/azure-refresh.yaml"
  run node "$(runner_dir)/bin/tenantlab-experiment" check azure-refresh --dir "$BATS_TEST_TMPDIR"
  assert_output --regexp "dataset.profile: scenario: ingest writes documents of a document profile: appbase-grammar, azure-logs \(got \"ci\", a store profile\)"
}
