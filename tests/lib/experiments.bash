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
experiments_setup() { cd "$REPO" && unset NAME QUICK REPEAT LAB; }

# lab_state: the lab's indices and aliases, to compare before and after a run
lab_state() {
  es GET "/_cat/indices?h=index&s=index"
  es GET "/_cat/aliases?h=alias,index&s=alias,index"
}

# quick_runs_here: the QUICK runs measure on native; under the compose run they would double
# the suite's time for the same code path (Locust and the runner on the host, published ports)
quick_runs_here() {
  [[ "$(lab_runtime)" != compose ]] || skip "QUICK experiment runs: checked on the native test lab (same host-side runner and ports)"
}

# latest_run NAME: the newest run folder of NAME
latest_run() { ls -d "$RESULTS/$1"/*/ 2>/dev/null | sort | tail -n 1; }

# FIT: a jq function, true for a repetition the run counts (complete) or one whose only fault is
# the load engine's late arrivals above the spec's max_late_rate (`unfit` of runner/src/run/measure.js,
# markUnfit). Late arrivals are a timing: on a busy 2-core CI machine the generator can fall behind
# during a crawl, and the suites judge no timing (a full run's report does, and says so). Failed
# requests, cross-tenant hits and a failed step still make a repetition unfit here.
FIT='def fit: .complete or (.unfit == ["late_arrivals"]);'

# run_complete RESULTS_JSON: every repetition fit (above): the run complete, or incomplete by late
# arrivals alone (said on the test's output); else the test fails naming each repetition's reason,
# so a CI log says why without the run's files
run_complete() {
  [[ "$(jq -r .complete "$1")" == true ]] && return 0
  local why
  why="$(jq -r '[.incomplete_reason] + [.variants[]? | .name as $n | .repetitions[] | select(.complete | not) | "\($n): \(.incomplete_reason)"] | join("; ")' "$1")"
  jq -e "$FIT"' [.variants[].repetitions[] | fit] | all' "$1" >/dev/null || fail "the run is incomplete: $why"
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
