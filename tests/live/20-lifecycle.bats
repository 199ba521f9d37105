#!/usr/bin/env bats
# make up / status / logs on a running lab, and the refusals that protect it.

setup() { load ../lib/lab; }

@test "make up on a running lab returns at once, says so, and restarts nothing" {
  local before
  before="$(lab_instances)"
  [[ -n "$before" ]] || fail "nothing of the lab runs ($(lab_runtime))"
  run make -s -C "$REPO" up
  assert_success
  assert_output --partial "already up"
  assert_equal "$(lab_instances)" "$before"
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
  before="$(lab_instances)"
  [[ -n "$before" ]] || fail "nothing of the lab runs ($(lab_runtime))"
  run "$LAB" kill es-data-9
  assert_failure 2
  assert_output --partial "unknown NODE 'es-data-9'"
  assert_equal "$(lab_instances)" "$before"
}

@test "a second lab whose ports this lab holds is refused, naming the port, and starts nothing" {
  local other="$BATS_TEST_TMPDIR/other-lab" project="$COMPOSE_PROJECT_NAME-other"
  # compose: another project (a second checkout's lab); native: another LAB_DIR
  run env LAB_DIR="$other" COMPOSE_PROJECT_NAME="$project" "$LAB" up
  assert_failure
  if [[ "$(lab_runtime)" == compose ]]; then
    assert_output --partial "is already in use"
    assert_equal "$(docker ps -aq --filter "label=com.docker.compose.project=$project")" ""
  else
    assert_output --partial "held by another tenantlab lab"
  fi
  assert_output --partial "port $ES_MASTER_HTTP_PORT"
  assert_equal "$(lab_pids "$other")" ""
  [[ ! -e "$other/runtime" ]]
}

@test "a node that cannot start fails make up with its log tail, and nothing is left running" {
  local other="$BATS_TEST_TMPDIR/broken-lab" project="$COMPOSE_PROJECT_NAME-broken"
  shift_ports 2000
  run env LAB_DIR="$other" COMPOSE_PROJECT_NAME="$project" ES_HEAP=12q "$LAB" up
  assert_failure
  if [[ "$(lab_runtime)" == compose ]]; then
    assert_output --partial "last lines of its log"
    # nothing of that project is left: no container, no network (its data volumes are kept)
    assert_equal "$(docker ps -aq --filter "label=com.docker.compose.project=$project")" ""
    assert_equal "$(docker network ls -q --filter "label=com.docker.compose.project=$project")" ""
    docker volume ls -q --filter "label=com.docker.compose.project=$project" | xargs -r docker volume rm >/dev/null
  else
    assert_output --partial "exited during startup"
    assert_output --partial "last 40 lines"
  fi
  assert_output --partial "Invalid initial heap size"
  assert_equal "$(lab_pids "$other")" ""
  [[ ! -e "$other/runtime" ]]
}
