#!/usr/bin/env bats
# The native runtime's process supervisor (scripts/lib/process.sh) with plain `sleep` processes:
# the pid it records is the program's own, checked by pid and start time, from the first moment.
# tests/live/25-supervisor.bats does the same with the lab's real services under CPU load.

setup() {
  load ../lib/lab
  export LAB_DIR="$BATS_TEST_TMPDIR/lab"
  source "$REPO/scripts/lib/process.sh"
  mkdir -p "$RUN_DIR" "$LOG_DIR"
}

teardown() {
  local pid
  for pid in $(lab_process_pids) $(cat "$BATS_TEST_TMPDIR/other" 2>/dev/null); do kill -KILL "$pid" 2>/dev/null || true; done
}

@test "with job control on, the recorded pid is the program's own process, which leads its session" {
  # util-linux setsid forks when its caller leads a process group, which job control makes
  # every background job do: a recorded `$!` was then a parent that had already exited
  (set -m; spawn_detached "$(log_file s)" sleep 30 >"$(pid_file s)")
  run running_pid s
  assert_success
  local pid="$output"
  assert_equal "$(tr '\0' ' ' <"/proc/$pid/cmdline")" "sleep 30 "
  assert_equal "$(ps -o sid= -p "$pid" | tr -d ' ')" "$pid"
  assert_equal "$(lab_of_pid "$pid")" "$LAB_DIR"
  assert_equal "$(readlink "/proc/$pid/cwd")" "$LAB_ROOT"
  assert_equal "$(lab_process_pids)" "$pid"
  stop_name s TERM 5
  run running_pid s
  assert_failure
  [[ ! -e "$(pid_file s)" ]]
  assert_equal "$(lab_process_pids)" ""
}

@test "a process checked the moment its start returns is never taken for a dead one" {
  # the old check read /proc/PID/environ, which is empty while the program is being exec'd
  local i dead=0
  for ((i = 0; i < 40; i++)); do
    spawn_detached "$(log_file "s$i")" sleep 30 >"$(pid_file "s$i")"
    running_pid "s$i" >/dev/null || dead=$((dead + 1))
  done
  assert_equal "$dead" 0
  assert_equal "$(lab_process_pids | wc -l)" 40
  for ((i = 0; i < 40; i++)); do stop_name "s$i" KILL 5; done
  assert_equal "$(lab_process_pids)" ""
}

@test "a pid file naming a pid that is now another process is not the lab's, and stop leaves it alone" {
  sleep 30 3>&- &
  local other=$!
  echo "$other" >"$BATS_TEST_TMPDIR/other"
  echo "$other 1" >"$(pid_file s)"
  run running_pid s
  assert_failure
  stop_name s KILL 1
  kill -0 "$other"
  { kill "$other" && wait "$other"; } 2>/dev/null || true
}

@test "an exited process is gone at once for stop, even while it is still a zombie" {
  spawn_detached "$(log_file s)" sleep 0.1 >"$(pid_file s)"
  sleep 1
  run running_pid s
  assert_failure
  local t0=$SECONDS
  stop_name s TERM 10
  ((SECONDS - t0 < 3))
}

@test "a program that cannot be started records no pid and says why in its log" {
  spawn_detached "$(log_file s)" /nonexistent/program >"$(pid_file s)"
  run running_pid s
  assert_failure
  run cat "$(log_file s)"
  assert_output --partial "cannot start /nonexistent/program"
}
