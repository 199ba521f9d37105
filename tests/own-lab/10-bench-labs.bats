#!/usr/bin/env bats
# The benchmarks that start labs of their own, in their smoke form, so a broken `make bench-*`
# fails CI: bench-startup (ROUNDS=1, BENCH_PROFILE=none: one `make up SEED=0` with the AOT cache
# and one without, the RSS per node) and bench-shape (ROUNDS=1: one SHAPE=groups and one
# SHAPE=off lab, each to green and 25 s idle), no BENCH_SAVE. Each must exit 0 and write a new
# result (under the repository's .lab/results/, where these two keep theirs) in which every
# part it promises is there and a number (jq), leave the committed results as they are (git
# status) and stop every process of its lab (the lab's folder gone). Figures are never checked
# (the committed runs are docs/benchmarks.md's). Run by make test after the test lab has stopped:
# two labs at a time on 2 cores would measure each other. Bad input first: one line, exit 2.
# About 3 minutes (startup about a minute: two fresh lab starts of 15-20 s and their teardown;
# shape about 2 minutes: two starts of about 25 s, each followed by 25 s idle).

bats_require_minimum_version 1.5.0

setup() {
  load ../lib/lab
  load ../lib/bench-result
  cd "$REPO" || return 1
  # a caller's knobs would change what is measured (SHAPE stays: it is lab.env's, loaded once)
  unset BENCH_SAVE BENCH_PROFILE ROUNDS LAB_BENCH_PORT_OFFSET PROFILE SEED
}

# runs_of NAME: the runs of bench-NAME kept under the repository's .lab/results/, oldest first
runs_of() { ls -d "$REPO"/.lab/results/*-"bench-$1" 2>/dev/null | sort; }

# bench_run NAME ENV...: `make -s bench-NAME` with ENV and no BENCH_SAVE, through bats' run;
# first keeps what bench_result compares (the committed results' git status, the runs so far)
bench_run() {
  local name="$1"
  shift
  GIT_BEFORE="$(git status --porcelain -- tests/bench/results)"
  RUNS_BEFORE="$(runs_of "$name" | wc -l)"
  run --separate-stderr env "$@" make -s "bench-$name"
}

# bench_result NAME: after bench_run: the result line names one new run of bench-NAME, RESULT its
# JSON; the committed results as they were; no process of the benchmark's lab left, nor its folder
bench_result() {
  local name="$1" runs lab="$REPO/.lab/bench-$1"
  runs="$(runs_of "$name" | wc -l)"
  [[ "$runs" == $((RUNS_BEFORE + 1)) ]] || fail "bench-$name kept $((runs - RUNS_BEFORE)) runs under $REPO/.lab/results, want 1"
  RESULT="$(runs_of "$name" | tail -n 1)/bench-$name.json"
  assert_line "result: $RESULT"
  jq -e 'type == "object"' "$RESULT" >/dev/null || fail "$RESULT: missing or not a JSON object"
  assert_equal "$(git status --porcelain -- tests/bench/results)" "$GIT_BEFORE"
  assert_equal "$(lab_dir_pids "$lab" | paste -sd' ')" ""
  [[ ! -e "$lab" ]] || fail "bench-$name left its lab's folder $lab"
}

@test "make bench-startup, smoke form: one make up SEED=0 with the AOT cache and one without, the RSS of every node; bad input is one line" {
  run --separate-stderr env ROUNDS=0 make -s bench-startup
  assert_failure 2
  assert_regex "$stderr" "^error: ROUNDS=0: want a number of rounds"
  run --separate-stderr env BENCH_PROFILE='demo;x' make -s bench-startup
  assert_failure 2
  assert_regex "$stderr" "^error: BENCH_PROFILE=demo;x: want a seed profile"

  bench_run startup ROUNDS=1 BENCH_PROFILE=none
  assert_success
  assert_line --regexp '^round 1: make up SEED=0 ES_AOT_CACHE=off ready in [0-9.]+s$'
  assert_line --regexp '^round 1: make up SEED=0 ready in [0-9.]+s$'
  assert_line --regexp '^bench-startup: make up SEED=0, median of 1: [0-9.]+s '
  assert_line --regexp '^bench-startup: RSS total [0-9]+ MiB'
  bench_result startup
  assert_result '.bench == "bench-startup" and .runtime == "native" and .seeded == null' \
    '.up_seed0_s | nums and length == 1' \
    '.up_seed0_no_aot_s | nums and length == 1' \
    '(.rss_mib | length) == .lab.nodes and ([.rss_mib[]] | nums) and ([.rss_mib[]] | all(. > 0))' \
    '[.targets[]] | nums and length == 5'
}

@test "make bench-shape, smoke form: one SHAPE=groups and one SHAPE=off lab, each to green, its RSS and idle CPU; bad input is one line" {
  run --separate-stderr env ROUNDS=x make -s bench-shape
  assert_failure 2
  assert_regex "$stderr" "^error: ROUNDS=x: want a number of rounds"

  bench_run shape ROUNDS=1
  assert_success
  assert_line --regexp '^round 1 SHAPE=groups: green in [0-9.]+s, RSS [0-9]+ MiB, idle CPU [0-9.]+% of a core$'
  assert_line --regexp '^round 1 SHAPE=off: green in [0-9.]+s, RSS [0-9]+ MiB, idle CPU [0-9.]+% of a core$'
  local what
  for what in 'make up -> green \(s\)' 'RSS total, idle \(MiB\)' 'CPU, idle \(% of a core\)'; do
    assert_line --regexp "^bench-shape: $what: shaped [0-9.]+, unshaped [0-9.]+, ratio [0-9.]+ \(median of 1, "
  done
  bench_result shape
  assert_result '.bench == "bench-shape" and .runtime == "native" and .rounds == 1 and .idle_s == 20' \
    '[.groups, .off | .up_s, .rss_mib, .idle_cpu_percent | length] == [1, 1, 1, 1, 1, 1]' \
    '[.groups, .off | .up_s[], .rss_mib[], .idle_cpu_percent[]] | nums' \
    '[.groups, .off | .rss_mib[]] | all(. > 0)' \
    '[.lab.nodes] | nums'
}
