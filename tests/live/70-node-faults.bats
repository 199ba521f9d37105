#!/usr/bin/env bats
# Fault drills: a data node killed with SIGKILL and restarted loses no acknowledged document.

setup_file() {
  load ../lib/lab
  es DELETE /smoke-faults >/dev/null 2>&1 || true
  es PUT /smoke-faults "{\"settings\": {\"number_of_shards\": 2, \"number_of_replicas\": 1,
    \"index.routing.allocation.require.$LAB_GROUP_ATTR\": \"$(node_var es-data-1 GROUP)\"}}" >/dev/null
  es GET "/_cluster/health/smoke-faults?wait_for_status=green&timeout=60s" >/dev/null
  bulk_docs smoke-faults 1 500
}

teardown_file() {
  load ../lib/lab
  # leave the lab whole for the files that run after this one
  [[ -n "$(node_pid_of es-data-1)" ]] || "$LAB" restart es-data-1 >/dev/null 2>&1 || true
  es DELETE /smoke-faults >/dev/null 2>&1 || true
}

setup() { load ../lib/lab; }

node_pid_of() { es GET "/_cat/nodes?h=name" 2>/dev/null | grep -qx "$1" && echo yes; return 0; }

@test "make node-kill of a data node turns the cluster yellow and keeps every document readable" {
  local before
  before="$(doc_digest smoke-faults)"
  [[ "$before" == "500 "* ]]
  echo "$before" >"$BATS_FILE_TMPDIR/digest"

  run make -s -C "$REPO" node-kill NODE=es-data-1
  assert_success
  assert_output --partial "killed es-data-1"

  local status="" i
  for ((i = 0; i < 60; i++)); do
    status="$(es GET "/_cluster/health" | jq -r .status)"
    [[ "$status" == yellow ]] && break
    sleep 1
  done
  assert_equal "$status" yellow
  assert_equal "$(es GET "/_cat/nodes?h=name" | wc -l)" "$(($(lab_nodes | wc -w) - 1))"
  # the surviving copies answer for the whole index
  assert_equal "$(doc_digest smoke-faults)" "$before"
}

@test "writes acknowledged while the node is down are readable at once" {
  bulk_docs smoke-faults 501 600
  es POST /smoke-faults/_refresh >/dev/null
  run doc_digest smoke-faults
  assert_success
  assert_output --regexp '^600 '
  # what the restarted cluster must still hold (next test)
  echo "$output" >"$BATS_FILE_TMPDIR/digest-down"
}

@test "make node-restart brings the node back, the cluster green; the writes made while it was down are kept, every document intact" {
  [[ -s "$BATS_FILE_TMPDIR/digest-down" ]] || fail "no record of the writes made while the node was down (the test above failed)"
  run make -s -C "$REPO" node-restart NODE=es-data-1
  assert_success
  assert_output --partial "es-data-1 is back"
  assert_equal "$(es GET "/_cluster/health" | jq -r .status)" green
  assert_equal "$(es GET "/_cat/nodes?h=name" | grep -c .)" "$(lab_nodes | wc -w)"
  # the restarted node holds copies again (allocation is pinned to its group)
  run es GET "/_cat/shards/smoke-faults?h=node"
  assert_output --partial es-data-1
  # counted again now that the node is back and green, after a refresh: exactly the 500 before
  # the kill and the 100 acknowledged while it was down, the same ids and sources
  es POST /smoke-faults/_refresh >/dev/null
  assert_equal "$(es GET /smoke-faults/_count | jq -r .count)" 600
  assert_equal "$(es POST /smoke-faults/_count '{"query": {"range": {"n": {"gte": 501, "lte": 600}}}}' | jq -r .count)" 100
  assert_equal "$(doc_digest smoke-faults)" "$(cat "$BATS_FILE_TMPDIR/digest-down")"
  # the restarted node's own copies (one of each shard: two copies on the group's two nodes)
  # caught up with them too
  assert_equal "$(es GET "/smoke-faults/_count?preference=_only_nodes:es-data-1" | jq -r .count)" 600
  # and the original 500 are untouched: same digest as before the kill, once the new ones go
  local ids="" i
  for ((i = 501; i <= 600; i++)); do ids+="{\"delete\":{\"_id\":\"doc-$i\"}}"$'\n'; done
  bulk smoke-faults "$ids" refresh=wait_for
  assert_equal "$(doc_digest smoke-faults)" "$(cat "$BATS_FILE_TMPDIR/digest")"
}
