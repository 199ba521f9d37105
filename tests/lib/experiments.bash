# What the experiment suites (tests/live/80-experiments.bats, 85-write-experiments.bats) share:
# the lab's state to compare before and after a run, where runs land, the SVG check.

RESULTS="$REPO/.lab/results/experiments"

# runner_dir: the experiment runner's package (@tenantlab/experiments), found by its name
# wherever the repository keeps it (it has moved before); the suites run it through make and
# scripts/experiment, this only for the calls those do not offer (a spec folder of a test's own)
runner_dir() {
  local f
  for f in "$REPO"/*/package.json "$REPO"/*/*/package.json; do
    [[ "$f" == */node_modules/* ]] && continue
    jq -e '.name == "@tenantlab/experiments"' "$f" >/dev/null 2>&1 && { dirname "$f"; return 0; }
  done
  echo "the experiment runner's package (@tenantlab/experiments) is nowhere under $REPO" >&2
  return 1
}

# the suites' setup_file and setup: the checkout, the load engine (Locust) installed once, no
# knob of the caller's shell
experiments_setup_file() { cd "$REPO" && scripts/install/locust.sh >/dev/null; }
experiments_setup() { cd "$REPO" && unset NAME QUICK REPEAT LAB SPECS; }

# quick_specs NAME VARIANT...: a folder (the test's own) holding a copy of experiments/NAME.yaml
# whose QUICK run measures only the VARIANTs (tests/lib/quick-spec.mjs: the others marked quick:
# false, left out by the runner with their directions, a list direction kept on the VARIANTs);
# prints the folder, for `make experiment SPECS=` or the runner's --dir. Two or three variants
# take every code path of a smoke run that nine do (layout, lab starts, figures, charts, report)
quick_specs() {
  local name="$1" out="$BATS_TEST_TMPDIR/specs"
  shift
  node "$REPO/tests/lib/quick-spec.mjs" "$REPO/experiments/$name.yaml" "$out" "$@" >/dev/null || return 1
  echo "$out"
}

# left_out RESULTS_JSON: the variants the run left out (plan.left_out), sorted, comma-separated
left_out() { jq -r '.plan.left_out // [] | sort | join(",")' "$1"; }

# lab_state: the lab's indices and aliases, to compare before and after a run
lab_state() {
  es GET "/_cat/indices?h=index&s=index"
  es GET "/_cat/aliases?h=alias,index&s=alias,index"
}

# quick_runs_here: the QUICK runs measure on native; under the compose run they would double
# the suite's time for the same code path (Locust and the runner on the host, published ports)
quick_runs_here() {
  [[ "$(lab_runtime)" != compose ]] || skip "the experiment runner on the host: checked on the native test lab (same host-side runner and ports)"
}

# latest_run NAME: the newest run folder of NAME
latest_run() { ls -d "$RESULTS/$1"/*/ 2>/dev/null | sort | tail -n 1; }

# FIT: a jq function, true for a repetition the run counts (complete) or one whose only fault is
# the load engine's late arrivals above the spec's max_late_rate (`unfit` of runner/src/run/measure.js,
# markUnfit). Late arrivals are a timing: on a busy 2-core CI machine the generator can fall behind
# during a crawl, and the suites judge no timing (a full run's report does, and says so). Failed
# requests, cross-tenant hits and a failed step still make a repetition unfit here.
FIT='def fit: .complete or (.unfit == ["late_arrivals"]);'

# run_complete RESULTS_JSON: every repetition fit (above) and at least one complete: the run
# complete, or incomplete by late arrivals alone in some repetitions (said on the test's output);
# else the test fails naming each repetition's reason, so a CI log says why without the run's
# files. A run none of whose repetitions is complete proves nothing of the code paths it smokes.
run_complete() {
  [[ "$(jq -r .complete "$1")" == true ]] && return 0
  local why
  why="$(jq -r '[.incomplete_reason] + [.variants[]? | .name as $n | .repetitions[] | select(.complete | not) | "\($n): \(.incomplete_reason)"] | join("; ")' "$1")"
  jq -e "$FIT"' [.variants[].repetitions[] | fit] | all' "$1" >/dev/null || fail "the run is incomplete: $why"
  jq -e '[.variants[].repetitions[] | select(.complete)] | length > 0' "$1" >/dev/null \
    || fail "no repetition of the run is complete (late arrivals in every one): $why"
  echo "# incomplete by the load engine's late arrivals only (a timing, not judged here): $why" >&3
}

# results_valid FILE: results.json follows its schema (the runner's own reader)
results_valid() {
  run node --input-type=module -e '
    const { readResults } = await import(process.argv[1]);
    readResults(process.argv[2]);' "$(runner_dir)/src/results.js" "$1"
  assert_success
}

# measured_with_locust DIR: the run says the load engine measured it, in results.json and its report
measured_with_locust() {
  local r="${1%/}/results.json"
  assert_equal "$(jq -r '.environment.load_engine.name' "$r")" locust
  assert_equal "$(jq -r '[.environment.load_engine.version, .runner.generator_cpu_percent] | map(type) | join(",")' "$r")" "string,number"
  assert_equal "$(jq -r '.environment.versions | has("k6")' "$r")" false
  grep -q '^- load engine: Locust ' "${1%/}/report.md" || fail "report.md does not name the load engine"
}

# svgs_valid DIR MIN: every chart of DIR parses as an SVG document, and there are at least MIN
svgs_valid() {
  local svg n=0
  for svg in "$1"/*.svg; do
    python3 -c 'import sys, xml.dom.minidom as m; d = m.parse(sys.argv[1]); sys.exit(d.documentElement.tagName != "svg")' "$svg" \
      || fail "$svg is not a valid SVG document"
    n=$((n + 1))
  done
  ((n >= $2)) || fail "fewer than $2 charts in $1"
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

# check_write_report DIR VARIANTS EXPECTS: a finished write run's report, one repetition each
check_write_report() {
  local dir="${1%/}" variants="$2" expects="$3" r="$1/results.json"
  [[ -s "$r" ]] || fail "no results.json in $dir"
  results_valid "$r"
  run_complete "$r"
  assert_equal "$(jq -r '.variants | length' "$r")" "$variants"
  # no document lost: the index held exactly what the clients saw acknowledged (none unanswered here)
  assert_equal "$(jq '[.variants[].repetitions[] | select(.complete and .integrity.count > 0 and .integrity.count == .integrity.acknowledged)] | length' "$r")" "$variants"
  # a QUICK run is a smoke run: its $expects directions unjudged, and it says so
  assert_equal "$(jq '.plan.expect | length' "$r")" "$expects"
  assert_equal "$(jq -r '[(.verdicts | length), .smoke.result, .plan.smoke] | join(",")' "$r")" "0,passed,true"
  assert_equal "$(jq -r '[.environment.data.document_bytes, .environment.data.bulk_bytes, .environment.versions.elasticsearch, .runner.wall_seconds] | all(. != null)' "$r")" true
  measured_with_locust "$dir"
  for v in $(jq -r '.variants[].name' "$r"); do grep -q -- "$v" "$dir/report.md" || fail "report.md does not name variant $v"; done
  grep -q '\*\*smoke run, no verdict\*\* (passed)' "$dir/report.md" || fail "report.md does not say it is a smoke run"
  grep -q '## Elasticsearch side' "$dir/report.md" || fail "report.md has no Elasticsearch section"
  svgs_valid "$dir" 3
}

# ingest_figures R: repetitions whose ingest figures (clients' counts, Elasticsearch's side) are all numbers
ingest_figures() {
  jq '[.variants[].repetitions[].figures | select(
      ([.ingest.docs_per_s, .ingest.bulk_ops_per_s, .ingest.docs_indexed, .ingest.docs_rejected, .ingest.docs_failed, .avg_ms, .p95_ms] | all(type == "number"))
      and .ingest.docs_indexed > 0
      and ([.es.indexing_docs_per_s, .es.merges, .es.merge_ms, .es.refreshes, .es.refresh_ms, .es.segments, .es.write_queue_max, .es.write_rejected, .es.indexing_pressure_rejected] | all(type == "number")))] | length' "$1"
}
