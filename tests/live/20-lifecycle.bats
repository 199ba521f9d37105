#!/usr/bin/env bats
# make up / status / logs on a running lab, and the refusals that protect it.

setup() { load ../lib/lab; }

@test "make up on a running lab returns at once, says so, and restarts nothing" {
  local before
  before="$(lab_pids "$LAB_DIR" | sort | paste -sd,)"
  run make -s -C "$REPO" up
  assert_success
  assert_output --partial "already up"
  assert_equal "$(lab_pids "$LAB_DIR" | sort | paste -sd,)" "$before"
}

@test "make status lists every service with its runtime, URL, state and RSS" {
  run make -s -C "$REPO" status
  assert_success
  local n
  for n in $(lab_nodes); do
    assert_line --regexp "^$n +(native|compose) +[-a-z0-9]+ +$(es_url "$n") +up +[0-9]+"
  done
  assert_line --partial "cluster: green"
}

@test "make logs shows a node's log; an unknown SERVICE is a clear error" {
  run make -s -C "$REPO" logs SERVICE=es-data-2
  assert_success
  assert_output --partial "es-data-2"
  run "$LAB" logs es-nope
  assert_failure
  assert_output --partial "unknown SERVICE 'es-nope'"
}

@test "make node-kill with an unknown NODE fails with one line and kills nothing" {
  local before
  before="$(lab_pids "$LAB_DIR" | sort | paste -sd,)"
  run "$LAB" kill es-data-9
  assert_failure 2
  assert_output --partial "unknown NODE 'es-data-9'"
  assert_equal "$(lab_pids "$LAB_DIR" | sort | paste -sd,)" "$before"
}

@test "a second lab whose ports this lab holds is refused, naming the port, and starts nothing" {
  local other="$BATS_TEST_TMPDIR/other-lab"
  run env LAB_DIR="$other" "$LAB" up
  assert_failure
  assert_output --partial "held by another tenantlab lab"
  assert_output --partial "port $ES_MASTER_HTTP_PORT"
  assert_equal "$(lab_pids "$other")" ""
  [[ ! -e "$other/runtime" ]]
}

@test "a node that cannot start fails make up with its log tail, and nothing is left running" {
  local other="$BATS_TEST_TMPDIR/broken-lab"
  shift_ports 2000
  run env LAB_DIR="$other" ES_HEAP=12q "$LAB" up
  assert_failure
  assert_output --partial "exited during startup"
  assert_output --partial "last 40 lines"
  assert_output --partial "Invalid initial heap size"
  assert_equal "$(lab_pids "$other")" ""
  [[ ! -e "$other/runtime" ]]
}
