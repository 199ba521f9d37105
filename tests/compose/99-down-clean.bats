#!/usr/bin/env bats
# The compose lab's end (tests/compose/run runs this file last, after the live suite): `make down`
# stops and removes the containers and the network and keeps the data volumes; `make clean`
# deletes the volumes too. Nothing of the project is left.

setup() {
  load ../lib/lab
}

project_of() { docker "$1" ls -q --filter "label=com.docker.compose.project=$COMPOSE_PROJECT_NAME"; }
# no_containers_left: none of the project's containers, else each named with its service and state
no_containers_left() {
  local left
  left="$(docker ps -a --filter "label=com.docker.compose.project=$COMPOSE_PROJECT_NAME" \
    --format '{{.Names}} (service {{.Label "com.docker.compose.service"}}, one-off {{.Label "com.docker.compose.oneoff"}}, {{.Status}})')"
  [[ -z "$left" ]] || fail "containers of the project left: $left"
}

@test "compose: make down removes the containers and the network, keeps the data volumes" {
  [[ "$(lab_runtime)" == compose ]] || skip "compose runtime only"
  run "$LAB" down
  assert_success
  no_containers_left
  assert_equal "$(project_of network)" ""
  [[ -n "$(project_of volume)" ]] || fail "make down deleted the data volumes"
  [[ ! -e "$LAB_DIR/runtime" ]] || fail "the lab still records a runtime after make down"
}

@test "compose: make clean deletes the volumes; nothing of the project is left" {
  [[ "$(docker volume ls -q --filter "label=com.docker.compose.project=$COMPOSE_PROJECT_NAME")" != "" ]] || skip "no compose lab data (the test above did not run)"
  RUNTIME=compose FORCE=1 run "$LAB" clean
  assert_success
  assert_equal "$(project_of volume)" ""
  assert_equal "$(project_of network)" ""
  no_containers_left
}
