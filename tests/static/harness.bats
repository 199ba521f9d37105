#!/usr/bin/env bats
# The test harness itself (tests/lib/harness.bash, shared by tests/run and tests/compose/run), on
# the small fixtures of tests/fixtures/harness (bats files and node --test suites that are not
# tests of the lab: tests/run never globs them): what it counts as passed, failed and skipped,
# what its report names, and that its closing line is the last.

setup_file() {
  export HARNESS_BATS_DIR
  HARNESS_BATS_DIR="$("$BATS_TEST_DIRNAME/../../scripts/install/bats.sh")"
}

setup() {
  load ../lib/lab
  # a run under another harness writes its state there: not this one
  unset HARNESS_STATE_OUT
  harness_name=tests/run harness_runtime=native
  source "$REPO/tests/lib/harness.bash"
  bats_dir="$HARNESS_BATS_DIR"
  allowed_skips_file="$REPO/tests/fixtures/harness/allowed-skips.tsv"
  FIX="$REPO/tests/fixtures/harness"
  OUT="$BATS_TEST_TMPDIR/out"
}

# counts: "PASSED FAILED SKIPPED"
counts() { echo "$passed $failed $skipped"; }

@test "a bats file: passes, a failure with its file and line, an allowed skip counted, any other skip a failure" {
  run_bats "$FIX/outcomes.bats" >"$OUT"
  assert_equal "$(counts)" "2 2 1"
  assert_equal "${#failures[@]}" 2
  assert_equal "${failures[0]}" "tests/fixtures/harness/outcomes.bats:6: fails on line 6"
  assert_equal "${failures[1]}" "unexpected skip: tests/fixtures/harness/outcomes.bats: skips for a reason nobody allowed # skip nobody allowed this"
  assert_equal "${skips[*]}" "tests/fixtures/harness/outcomes.bats: skips for a reason the fixture list allows # skip allowed by the fixture list"
  grep -q '^unexpected skip: tests/fixtures/harness/outcomes.bats: skips for a reason nobody allowed # skip nobody allowed this' "$OUT"
  # the console still shows bats' own TAP, under the file's name
  grep -qx '# tests/fixtures/harness/outcomes.bats' "$OUT"
  grep -q '^not ok 2 fails on line 6' "$OUT"
}

@test "a skip allowed on one runtime is unexpected on another" {
  harness_runtime=compose
  run_bats "$FIX/outcomes.bats" >"$OUT"
  assert_equal "$(counts)" "2 3 0"
  assert_equal "${failures[1]}" "unexpected skip: tests/fixtures/harness/outcomes.bats: skips for a reason the fixture list allows # skip allowed by the fixture list"
}

@test "a bats file killed part-way is a failure naming the file" {
  run_bats "$FIX/killed.bats" >"$OUT"
  assert_equal "$failed" 1
  assert_equal "$skipped" 0
  assert_equal "${failures[*]}" "tests/fixtures/harness/killed.bats: 2 of its 3 tests ran, the file died part-way (bats exit 1)"
  grep -q '^not ok - tests/fixtures/harness/killed.bats: 2 of its 3 tests ran' "$OUT"
}

@test "a bats file that runs fewer tests than its plan is one failure, counted per file" {
  # the other file's counts are its own: the failure names the file that fell short
  run_bats "$FIX/outcomes.bats" "$FIX/vanishing.bats" >"$OUT"
  assert_equal "$(counts)" "4 3 1"
  assert_equal "${failures[2]}" "tests/fixtures/harness/vanishing.bats: 2 of its 3 tests ran, the file died part-way (bats exit 1)"
}

@test "setup_file that exits: its failure with its line, and the tests that never ran, one more" {
  run_bats "$FIX/setup-file-exits.bats" >"$OUT"
  assert_equal "$(counts)" "0 2 0"
  assert_equal "${failures[0]}" "tests/fixtures/harness/setup-file-exits.bats:2: setup_file failed"
  assert_equal "${failures[1]}" "tests/fixtures/harness/setup-file-exits.bats: 1 of its 2 tests ran, the file died part-way (bats exit 1)"
}

@test "node --test: cancelled tests (a suite's hook threw, a timeout) count as failed, each named with file and line" {
  run_node_tests tests/fixtures/harness/node cancelled >"$OUT"
  assert_equal "$(counts)" "1 3 0"
  local f="tests/fixtures/harness/node"
  assert_equal "$(printf '%s\n' "${failures[@]}")" "$f/hook-fails.fixture.cjs:6: cancelled one [cancelledByParent]
$f/hook-fails.fixture.cjs:7: cancelled two [cancelledByParent]
$f/hook-fails.fixture.cjs:4: a suite whose hook throws [hookFailed]
$f/times-out.fixture.cjs:4: never ends in time [testTimeoutFailure]"
}

@test "node --test: what a test or its child process prints that looks like the summary adds nothing" {
  run_node_tests tests/fixtures/harness/node child-output >"$OUT"
  # it was there, as column-0 comments, before the runner's own summary
  assert_equal "$(grep -c '^# pass 7$' "$OUT")" 3
  assert_equal "$(counts)" "2 0 0"
  assert_equal "${#failures[@]}" 0
}

@test "node --test: a failed subtest is named, not the suite around it" {
  run_node_tests tests/fixtures/harness/node failing >"$OUT"
  assert_equal "$(counts)" "1 1 0"
  assert_equal "${failures[*]}" "tests/fixtures/harness/node/failing.fixture.cjs:7: fails inside [testCodeFailure]"
}

@test "node --test: skips through the allowed list (a skipped suite too); a todo is counted, not failed" {
  run_node_tests tests/fixtures/harness/node skips >"$OUT"
  assert_equal "$(counts)" "1 1 2"
  assert_equal "$todo" 1
  assert_equal "${failures[*]}" "unexpected skip: tests/fixtures/harness/node: skipped, not allowed # skip nobody allowed this"
  assert_equal "$(printf '%s\n' "${skips[@]}")" "tests/fixtures/harness/node: skipped, allowed # skip allowed by the fixture list
tests/fixtures/harness/node: a skipped suite # skip allowed for the suite"
}

@test "node --test: npm's non-zero exit with nothing failed is a failure naming the package" {
  run_node_tests tests/fixtures/harness/node exit-code >"$OUT"
  assert_equal "$(counts)" "1 1 0"
  assert_equal "${failures[*]}" "tests/fixtures/harness/node: npm run exit-code exited 3 with no failed test"
}

@test "node --test: a runner that ends without its summary is a failure; its lookalike lines add nothing" {
  run_node_tests tests/fixtures/harness/node no-summary >"$OUT"
  assert_equal "$(counts)" "0 1 0"
  assert_equal "${failures[*]}" "tests/fixtures/harness/node: npm run no-summary ended without the runner's summary (exit 0)"
}

@test "skip_step: a step's skip goes through the allowed list too" {
  skip_step "a step" "allowed for the step" >"$OUT"
  skip_step "another step" "nobody allowed this" >>"$OUT"
  assert_equal "$(counts)" "0 1 1"
  assert_equal "${failures[*]}" "unexpected skip: tests/run: another step # skip nobody allowed this"
}

@test "the report: failures with file, line and name, then the ten slowest tests, then the closing line, last" {
  run_bats "$FIX/outcomes.bats" >"$OUT"
  run_node_tests tests/fixtures/harness/node failing >>"$OUT"
  run report_counts
  assert_failure 1
  assert_equal "${lines[-1]}" "3 passed, 3 failed"
  local at_failed at_slowest i
  for i in "${!lines[@]}"; do
    [[ "${lines[i]}" == "failed:" ]] && at_failed=$i
    [[ "${lines[i]}" == "slowest tests:" ]] && at_slowest=$i
  done
  ((at_failed < at_slowest))
  assert_equal "${lines[at_failed + 1]}" "  tests/fixtures/harness/outcomes.bats:6: fails on line 6"
  assert_line "  tests/fixtures/harness/node/failing.fixture.cjs:7: fails inside [testCodeFailure]"
  # the slowest first: the fixture's sleep 0.3
  [[ "${lines[at_slowest + 1]}" =~ ^\ +[0-9]+ms\ \ tests/fixtures/harness/outcomes.bats:\ slow,\ then\ passes$ ]]
  assert_line --regexp '^# 1 skipped \(allowed by tests/fixtures/harness/allowed-skips.tsv\):$'
}

@test "the report gives each part's wall time, in the order they ran, before the closing line" {
  part "first part" >"$OUT"
  SECONDS=0
  parts=("0"$'\t'"first part")
  part "second part" >>"$OUT"
  parts[1]="3"$'\t'"second part"
  SECONDS=5
  run report_counts
  assert_success
  assert_equal "$(head -n 2 "$OUT" | paste -sd'|')" "# first part|# second part"
  local at i
  for i in "${!lines[@]}"; do [[ "${lines[i]}" == "wall time by part:" ]] && at=$i; done
  [[ -n "$at" ]] || fail "no wall time by part in: $output"
  assert_equal "${lines[at + 1]}" "       3s  first part"
  assert_equal "${lines[at + 2]}" "       2s  second part"
  assert_equal "${lines[-1]}" "0 passed, 0 failed"
}

@test "a clean run: no failure section, exit 0, the closing line last" {
  run_node_tests tests/fixtures/harness/node child-output >"$OUT"
  run report_counts
  assert_success
  refute_line "failed:"
  assert_equal "${lines[-1]}" "2 passed, 0 failed"
}

@test "a harness under another: its counts, failures, skips and timings reach the caller's report" {
  run_sub_harness "$FIX/sub-harness" "$bats_dir" >"$OUT"
  # on the compose runtime the fixture list allows neither skip
  assert_equal "$(counts)" "2 3 0"
  assert_equal "${failures[1]}" "unexpected skip: tests/fixtures/harness/outcomes.bats: skips for a reason the fixture list allows # skip allowed by the fixture list"
  assert_equal "${#timings[@]}" 3
  # its closing line a comment; the caller's report lists its failures once
  grep -qx '# 2 passed, 3 failed (fixtures/harness/sub-harness)' "$OUT"
  ! grep -qx 'failed:' "$OUT"
}

@test "a harness under another that dies without its closing line is a failure" {
  run_sub_harness bash -c 'echo "ok 1 something"; exit 1' >"$OUT"
  assert_equal "$(counts)" "0 1 0"
  assert_equal "${failures[*]}" "bash -c echo \"ok 1 something\"; exit 1 ended without its closing line"
}

@test "the run's log: everything printed, in a file under the logs folder that latest.log points to" {
  local logs="$BATS_TEST_TMPDIR/logs"
  run bash -c '
    LAB_ROOT="$1"; source "$LAB_ROOT/tests/lib/harness.bash"
    start_run_log "$2" || exit 9
    echo "a line"; echo "to stderr" >&2
    fail_step "a failed step"
    report_counts; status=$?
    end_run_log
    exit "$status"' _ "$REPO" "$logs"
  assert_failure 1
  assert_equal "${lines[-1]}" "0 passed, 1 failed"
  local log
  log="$(readlink "$logs/latest.log")"
  [[ "$log" =~ ^[0-9]{8}T[0-9]{6}Z\.log$ ]]
  assert_line "# full log: $logs/$log"
  assert_equal "$(cat "$logs/$log")" "$output"
  grep -qx "to stderr" "$logs/latest.log"
}

@test "the committed list of allowed skips: five fields a row, known runtimes, files that exist" {
  local runtimes file test reason why rows=0 rt
  while IFS=$'\t' read -r runtimes file test reason why; do
    [[ -z "$runtimes" || "$runtimes" == "#"* ]] && continue
    rows=$((rows + 1))
    [[ -n "$why" && "$why" != *$'\t'* ]] || fail "not five fields: $runtimes $file $test $reason"
    for rt in ${runtimes//,/ }; do
      [[ "$rt" =~ ^(native|compose|external)$ ]] || fail "unknown runtime '$rt' in: $file $test"
    done
    # shellcheck disable=SC2086 # the file field is a pattern
    compgen -G "$REPO/$file" >/dev/null || fail "no file matches '$file'"
  done <"$REPO/tests/allowed-skips.tsv"
  ((rows > 0))
}
