#!/usr/bin/env bats
# The test harness itself (tests/harness: what tests/run, tests/compose/run and tests/check run),
# end to end on the small fixtures of tests/fixtures/harness (bats files, node --test suites, a
# pytest suite and promtool rule tests that are not tests of the lab: the harness never globs
# them): what it counts as passed, failed and skipped, what its report names, that a run that
# did not reach its end never prints a closing line, and that a hung file is stopped and named.
# Its parsers' own unit tests are tests/harness/test/.

bats_require_minimum_version 1.5.0

setup_file() {
  load ../lib/lab
  # the load engine's Python has pytest: the fixture's pytest suite runs on it
  LOCUST="$("$REPO/scripts/install/locust.sh")"
  export HARNESS_PYTHON="${LOCUST%/locust}/python"
}

setup() {
  load ../lib/lab
  cd "$REPO" || return 1
  FIX=tests/fixtures/harness
  LOGS="$BATS_TEST_TMPDIR/logs"
  unset CI
}

# harness [--runtime R] SPEC...: the harness on fixtures, with the fixture tables and a log of
# its own; $output, $lines and $status as bats' run gives them
harness() {
  run node "$REPO/tests/harness/bin/harness.mjs" suites --allowed "$REPO/$FIX/allowed-skips.tsv" \
    --limits "$REPO/$FIX/limits.tsv" --log-dir "$LOGS" "$@"
}

# the closing line: the last line, and the only one of its form
closing_is() {
  assert_equal "${lines[-1]}" "$1"
  assert_equal "$(grep -cE '^[0-9]+ passed, [0-9]+ failed$' <<<"$output")" 1
}

# no closing line at all; the last line says the run is incomplete, where and why
incomplete_at() {
  refute_output --regexp $'(^|\n)[0-9]+ passed, [0-9]+ failed(\n|$)'
  [[ "${lines[-1]}" == "INCOMPLETE RUN, stopped in \"$1\": $2"* ]] || fail "last line: ${lines[-1]}"
}

@test "a bats file: passes, a failure with its file and line, an allowed skip counted, any other skip a failure" {
  harness bats=$FIX/outcomes.bats
  assert_failure 1
  closing_is "2 passed, 2 failed"
  assert_line "  $FIX/outcomes.bats:6: fails on line 6"
  assert_line "  unexpected skip: $FIX/outcomes.bats: skips for a reason nobody allowed # skip nobody allowed this"
  assert_line "#   $FIX/outcomes.bats: skips for a reason the fixture list allows # skip allowed by the fixture list"
  # the console still shows bats' own TAP, under the file's name
  assert_line "# $FIX/outcomes.bats"
  assert_line --regexp '^not ok 2 fails on line 6'
}

@test "a skip allowed on one runtime is unexpected on another" {
  harness --runtime compose bats=$FIX/outcomes.bats
  closing_is "2 passed, 3 failed"
  assert_line "  unexpected skip: $FIX/outcomes.bats: skips for a reason the fixture list allows # skip allowed by the fixture list"
}

@test "a dev: row allows its skip on a developer's machine, never under CI=true" {
  harness bats=$FIX/dev-skip.bats
  assert_success
  closing_is "0 passed, 0 failed"
  CI=true harness bats=$FIX/dev-skip.bats
  assert_failure 1
  closing_is "0 passed, 1 failed"
  assert_line --partial "unexpected skip: $FIX/dev-skip.bats: skips on a developer's machine # skip only here (no row of tests/allowed-skips.tsv allows it on native under CI=true)"
}

@test "a bats file killed part-way, one that runs fewer tests than its plan, one whose setup_file exits: each a failure naming it" {
  harness bats=$FIX/killed.bats bats=$FIX/vanishing.bats bats=$FIX/setup-file-exits.bats
  assert_failure 1
  closing_is "4 passed, 4 failed"
  assert_line "  $FIX/killed.bats: 2 of its 3 tests ran, the file died part-way (bats exit 1)"
  assert_line "  $FIX/vanishing.bats: 2 of its 3 tests ran, the file died part-way (bats exit 1)"
  assert_line "  $FIX/setup-file-exits.bats:2: setup_file failed"
  assert_line "  $FIX/setup-file-exits.bats: 1 of its 2 tests ran, the file died part-way (bats exit 1)"
}

@test "a hung bats file is stopped at its limit, naming the test it was in, and nothing of it is left running" {
  local t0=$SECONDS
  harness bats=$FIX/hangs.bats bats=$FIX/outcomes.bats
  assert_failure 1
  # the limit is 3 s: stopped well before the test's own 600 s, and the next file still ran
  ((SECONDS - t0 < 30)) || fail "took $((SECONDS - t0)) s"
  closing_is "3 passed, 3 failed"
  assert_line "  $FIX/hangs.bats: over its limit of 3 s, stopped in test 2 of 3, after \"first\""
  run pgrep -f 'sleep 600'
  assert_failure
}

@test "node --test: cancelled tests (a suite's hook threw, a timeout) count as failed, each named with file and line" {
  harness npm=$FIX/node:cancelled
  closing_is "1 passed, 3 failed"
  local f="$FIX/node"
  assert_line "  $f/hook-fails.fixture.cjs:6: cancelled one [cancelledByParent]"
  assert_line "  $f/hook-fails.fixture.cjs:7: cancelled two [cancelledByParent]"
  assert_line "  $f/hook-fails.fixture.cjs:4: a suite whose hook throws [hookFailed]"
  assert_line "  $f/times-out.fixture.cjs:4: never ends in time [testTimeoutFailure]"
}

@test "node --test: what a test or its child process prints that looks like the summary adds nothing" {
  harness npm=$FIX/node:child-output
  assert_success
  # it was there, as column-0 comments, before the runner's own summary
  assert_equal "$(grep -c '^# pass 7$' <<<"$output")" 3
  closing_is "2 passed, 0 failed"
  refute_line "failed:"
}

@test "node --test: a failed subtest is named, not the suite around it" {
  harness npm=$FIX/node:failing
  closing_is "1 passed, 1 failed"
  assert_line "  $FIX/node/failing.fixture.cjs:7: fails inside [testCodeFailure]"
}

@test "node --test: skips through the allowed list (a skipped suite too); a todo fails unless a row allows it" {
  harness npm=$FIX/node:skips
  closing_is "1 passed, 2 failed"
  assert_line "  unexpected skip: $FIX/node: skipped, not allowed # skip nobody allowed this"
  assert_line "  unexpected todo: $FIX/node: a todo # todo: later"
  assert_line "#   $FIX/node: skipped, allowed # skip allowed by the fixture list"
  assert_line "#   $FIX/node: a skipped suite # skip allowed for the suite"
  harness npm=$FIX/node:todo-allowed
  assert_success
  closing_is "1 passed, 0 failed"
  assert_line "#   $FIX/node: an allowed todo # todo: allowed by the fixture list"
}

@test "node --test: a non-zero exit with nothing failed, and a runner without its summary, are failures naming the suite" {
  harness npm=$FIX/node:exit-code npm=$FIX/node:no-summary
  closing_is "1 passed, 2 failed"
  assert_line "  $FIX/node: npm run exit-code exited 3 with no failed test"
  assert_line "  $FIX/node: npm run no-summary ended without the runner's summary (exit 0)"
}

@test "pytest: every test counted where it runs: a failure and an error named with file and line, skips and xfails through the allowed list" {
  harness pytest=$FIX:py
  assert_failure 1
  closing_is "1 passed, 4 failed"
  assert_line "  $FIX/py/test_outcomes.py:9: py/test_outcomes.py::test_fails [failure]"
  assert_line "  $FIX/py/test_errors.py:10: py/test_errors.py::test_with_broken_fixture [error]"
  assert_line "  unexpected skip: $FIX/py: py/test_outcomes.py::test_skipped_not_allowed # skip nobody allowed this"
  assert_line "  unexpected skip: $FIX/py: py/test_outcomes.py::test_xfail # skip xfail: an expected failure nobody allowed"
  assert_line "#   $FIX/py: py/test_outcomes.py::test_skipped_allowed # skip allowed by the fixture list"
}

@test "promtool: each test group a test of its own, named by its comment; a failing group shows promtool's words" {
  harness promtool=$FIX/promtool/rules.test.yml
  assert_failure 1
  closing_is "1 passed, 1 failed"
  assert_line --regexp '^ok 1 1: doubled is twice the input in [0-9]+ms$' 
  assert_line "  $FIX/promtool/rules.test.yml: 2: a wrong expectation"
  assert_line --partial 'exp: {__name__="fixture:doubled"} 3E+00'
  # its group files are gone
  run compgen -G "$REPO/$FIX/promtool/.promtool-group-*"
  assert_failure
}

@test "the harness itself dying part-way prints no closing line: the counts so far, where it stopped, non-zero" {
  harness bats=$FIX/outcomes.bats part="compose runtime" throw="a bug of the harness"
  assert_failure 1
  incomplete_at "compose runtime" "the harness itself failed: a bug of the harness; 2 passed and 2 failed before it"
  # the report still lists what had failed
  assert_line "  $FIX/outcomes.bats:6: fails on line 6"
}

@test "a harness stopped by a signal: no closing line, where it was, its suite's processes gone, non-zero" {
  node "$REPO/tests/harness/bin/harness.mjs" suites --allowed "$REPO/$FIX/allowed-skips.tsv" --limits "$REPO/$FIX/limits.tsv" \
    --log-dir "$LOGS" part="the hung part" bats=$FIX/outcomes.bats bats=$FIX/hangs.bats >"$BATS_TEST_TMPDIR/out" 2>&1 &
  local pid=$! i
  for ((i = 0; i < 100; i++)); do pgrep -f 'sleep 600' >/dev/null && break; sleep 0.1; done
  kill -TERM "$pid"
  status=0
  wait "$pid" || status=$?
  assert_equal "$status" 1
  output="$(cat "$BATS_TEST_TMPDIR/out")"
  mapfile -t lines <<<"$output"
  incomplete_at "the hung part" "interrupted by SIGTERM"
  run pgrep -f 'sleep 600'
  assert_failure
}

@test "the report: skips, failures, wall time by part, slowest files, slowest tests, the log, then the closing line" {
  harness part="first part" bats=$FIX/outcomes.bats part="second part" npm=$FIX/node:failing
  closing_is "3 passed, 3 failed"
  local at_skip at_failed at_parts at_files at_tests at_log i
  for i in "${!lines[@]}"; do
    case "${lines[i]}" in
      "# 1 skipped (allowed by tests/allowed-skips.tsv):") at_skip=$i ;;
      "failed:") at_failed=$i ;;
      "wall time by part:") at_parts=$i ;;
      "slowest files "*) at_files=$i ;;
      "slowest tests:") at_tests=$i ;;
      "# full log: "*) at_log=$i ;;
    esac
  done
  ((at_skip < at_failed && at_failed < at_parts && at_parts < at_files && at_files < at_tests && at_tests < at_log))
  ((at_log == ${#lines[@]} - 2))
  [[ "${lines[at_parts + 1]}" =~ ^\ +[0-9]+s\ \ first\ part$ ]]
  [[ "${lines[at_parts + 2]}" =~ ^\ +[0-9]+s\ \ second\ part$ ]]
  # the slowest test first: the fixture's sleep 0.3
  [[ "${lines[at_tests + 1]}" =~ ^\ +[0-9]+ms\ \ tests/fixtures/harness/outcomes.bats:\ slow,\ then\ passes$ ]]
}

@test "the run's log: everything printed, latest.log points to it, and its record beside it" {
  harness bats=$FIX/outcomes.bats
  local log
  log="$(readlink "$LOGS/latest.log")"
  [[ "$log" =~ ^[0-9]{8}T[0-9]{6}Z\.log$ ]] || fail "log name: $log"
  assert_line "# full log: $LOGS/$log"
  assert_equal "$(cat "$LOGS/$log")" "$output"
  run jq -r '[.complete, .passed, .failed, .skipped, (.suites | length), .suites[0].suite] | join(" ")' "$LOGS/${log%.log}.json"
  assert_output "true 2 2 1 1 $FIX/outcomes.bats"
}

@test "the committed tables: allowed skips (five fields, known runtimes, files that exist) and limits read" {
  run node --input-type=module -e '
    import { loadAllowedSkips } from "./tests/harness/src/skips.mjs";
    import { loadLimits } from "./tests/harness/src/limits.mjs";
    const rows = loadAllowedSkips("tests/allowed-skips.tsv");
    console.log(rows.length, loadLimits("tests/limits.tsv").length);
    for (const r of rows) console.log(r.file);'
  assert_success
  [[ "${lines[0]}" =~ ^[1-9][0-9]*\ [1-9][0-9]*$ ]] || fail "$output"
  local file
  for file in "${lines[@]:1}"; do
    # shellcheck disable=SC2086 # the file field is a pattern
    compgen -G "$REPO/$file" >/dev/null || fail "no file matches '$file'"
  done
}
