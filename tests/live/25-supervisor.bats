#!/usr/bin/env bats
# The native supervisor under load: the lab's services (runtimes/lib/services/*.sh) stopped and
# started 10 times in a row while two busy loops keep both cores of the machine busy. Every
# start must be judged by the process the lab recorded: no false "exited during startup", the
# recorded pid is the live process that holds the service's port, and nothing is left over.
# Half of the rounds start with job control on (`set -m`, as in an interactive shell), where
# util-linux `setsid` forks and a shell's `$!` is a parent that exits at once.

setup_file() {
  load ../lib/lab
  [[ "$(cat "$LAB_DIR/runtime" 2>/dev/null)" == native ]] || return 0
  # Bounded even if teardown never runs; output and bats' fd 3 closed so bats does not wait
  local i
  for i in 1 2; do
    timeout 600 sh -c 'while :; do :; done' >/dev/null 2>&1 3>&- &
    echo $! >>"$BATS_FILE_TMPDIR/burners"
  done
}

teardown_file() {
  load ../lib/lab
  local pid
  for pid in $(cat "$BATS_FILE_TMPDIR/burners" 2>/dev/null); do kill "$pid" 2>/dev/null || true; done
  [[ "$(cat "$LAB_DIR/runtime" 2>/dev/null)" == native ]] || return 0
  # the files after this one need every service up
  SEED=0 "$LAB" up >/dev/null 2>&1 || true
}

setup() {
  load ../lib/lab
  [[ "$(cat "$LAB_DIR/runtime" 2>/dev/null)" == native ]] || skip "native runtime only"
  source "$REPO/scripts/lib/process.sh"
  source "$REPO/runtimes/lib/services.sh"
}

# node_pids: the recorded pids of the lab's nodes, sorted
node_pids() { local n; for n in $(lab_nodes); do running_pid "$n"; done | sort; }

# assert_service_runs NAME: the recorded pid is alive, tagged as this lab's, leads its own
# session (so no fork happened after it was recorded) and is the one listening on the port
assert_service_runs() {
  local name="$1" pid port
  pid="$(running_pid "$name")" || fail "$name: no live process for its pid file ($(cat "$(pid_file "$name")" 2>/dev/null))"
  port="$(service_field "$name" SERVICE_PORT)"
  owned_by_lab "$pid" || fail "$name: pid $pid does not carry TENANTLAB_LAB=$LAB_DIR"
  assert_equal "$(ps -o sid= -p "$pid" | tr -d ' ')" "$pid"
  holds_port "$pid" "$port" || fail "$name: port $port is held by '$(port_holder "$port")', not by its recorded pid $pid"
}

@test "services stopped and started 10 times with both cores busy: each start judged by its own process and port" {
  local burners round name nodes started pid
  export REPO
  burners="$(cat "$BATS_FILE_TMPDIR/burners")"
  nodes="$(node_pids)"
  [[ -n "$nodes" ]] || fail "the lab's nodes are not running"
  for ((round = 1; round <= 10; round++)); do
    for pid in $burners; do kill -0 "$pid" 2>/dev/null || fail "CPU burner $pid ended early"; done
    for name in $(lab_services); do stop_service "$name"; done
    for name in $(lab_services); do
      [[ -z "$(port_holder "$(service_field "$name" SERVICE_PORT)")" ]] || fail "round $round: $name's port still held after stop"
    done
    # stopped: only the nodes are left of this lab
    assert_equal "$(lab_process_pids | sort)" "$nodes"

    if ((round % 2)); then
      # the public path: `make up` on a lab whose services are down starts only those
      SEED=0 run "$LAB" up
    else
      # the driver's own start and check, with job control on
      run bash -c 'set -m
        for f in scripts/lib/config.sh scripts/lib/cluster.sh scripts/lib/process.sh runtimes/lib/services.sh; do
          source "$REPO/$f"
        done
        for n in $(lab_services); do start_service "$n" && wait_for_service "$n" "$LAB_UP_TIMEOUT" || exit 1; done'
    fi
    refute_output --partial "exited during startup"
    assert_success

    started=""
    for name in $(lab_services); do
      assert_service_runs "$name"
      started+="$(running_pid "$name")"$'\n'
    done
    # nothing else of this lab runs: the nodes and exactly one process per service
    assert_equal "$(lab_process_pids | sort)" "$(printf '%s\n%s' "$nodes" "$started" | sed '/^$/d' | sort)"
  done
}
