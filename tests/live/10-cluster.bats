#!/usr/bin/env bats
# The lab foundation on a running lab: topology, allocation filtering, GET /, loopback binding.

setup() { load ../lib/lab; }

@test "the cluster is green with every node of lab.env" {
  run es GET "/_cluster/health"
  assert_success
  assert_equal "$(jq -r .status <<<"$output")" green
  assert_equal "$(jq -r .number_of_nodes <<<"$output")" "$(lab_nodes | wc -w)"
  assert_equal "$(jq -r .cluster_name <<<"$output")" "$CLUSTER_NAME"
}

@test "every node has the roles lab.env gives it" {
  run es GET "/_nodes?filter_path=nodes.*.name,nodes.*.roles"
  assert_success
  local n want got
  for n in $(lab_nodes); do
    want="$(node_var "$n" ROLES | tr ',' '\n' | sort | paste -sd,)"
    got="$(jq -r --arg n "$n" '.nodes[] | select(.name == $n) | .roles | sort | join(",")' <<<"$output")"
    assert_equal "$n:$got" "$n:$want"
  done
}

@test "exactly one elected master, the configured master node" {
  run es GET "/_cat/master?h=node"
  assert_success
  assert_equal "$(echo $output)" "$LAB_MASTER_NODE"
}

@test "_cat/nodeattrs tags each data node with its index group (two g1, two g2)" {
  run es GET "/_cat/nodeattrs?h=node,attr,value&format=json"
  assert_success
  local n
  for n in $(data_nodes); do
    assert_equal "$n=$(jq -r --arg n "$n" --arg a "$LAB_GROUP_ATTR" '.[] | select(.node == $n and .attr == $a) | .value' <<<"$output")" \
      "$n=$(node_var "$n" GROUP)"
  done
  assert_equal "$(jq -r --arg a "$LAB_GROUP_ATTR" '[.[] | select(.attr == $a and .value == "g1")] | length' <<<"$output")" 2
  assert_equal "$(jq -r --arg a "$LAB_GROUP_ATTR" '[.[] | select(.attr == $a and .value == "g2")] | length' <<<"$output")" 2
  # the master holds no data and so no group
  assert_equal "$(jq -r --arg n "$LAB_MASTER_NODE" '[.[] | select(.node == $n)] | length' <<<"$output")" 0
}

@test "an index pinned to an index group has every shard on that group's nodes" {
  local g index
  for g in $(groups); do
    index="smoke-pinned-$g"
    es DELETE "/$index" >/dev/null 2>&1 || true
    run es PUT "/$index" "{\"settings\": {\"number_of_shards\": 2, \"number_of_replicas\": 1,
      \"index.routing.allocation.require.$LAB_GROUP_ATTR\": \"$g\"}}"
    assert_success
    run es GET "/_cluster/health/$index?wait_for_status=green&timeout=60s"
    assert_success
    run es GET "/_cat/shards/$index?h=node,state&format=json"
    assert_success
    assert_equal "$(jq length <<<"$output")" 4
    local allowed placed
    allowed="$(nodes_of_group "$g" | sort | paste -sd,)"
    placed="$(jq -r '.[].node' <<<"$output" | sort -u | paste -sd,)"
    assert_equal "$index on $placed" "$index on $allowed"
    es DELETE "/$index" >/dev/null
  done
}

@test "GET / answers 200 with the cluster name and the pinned version; HEAD / too" {
  run curl -fsS -o /dev/null -w '%{http_code}' "$ES/"
  assert_output 200
  run es GET "/"
  assert_success
  assert_equal "$(jq -r .version.number <<<"$output")" "$ES_VERSION"
  assert_equal "$(jq -r .cluster_name <<<"$output")" "$CLUSTER_NAME"
  assert_equal "$(jq -r .name <<<"$output")" "$LAB_MASTER_NODE"
  run curl -fsS -I -o /dev/null -w '%{http_code}' "$ES/"
  assert_output 200
}

@test "every data node answers HTTP on its own port" {
  local n
  for n in $(lab_nodes); do
    run curl -fsS "$(es_url "$n")/"
    assert_success
    assert_equal "$(jq -r .name <<<"$output")" "$n"
  done
}

@test "the lab's processes listen on 127.0.0.1 only" {
  [[ "$(cat "$LAB_DIR/runtime" 2>/dev/null)" == native ]] \
    || skip "native processes only (the compose run checks its published ports from the host: tests/compose/10-compose.bats)"
  local pids
  pids="$(pgrep -f -- "-Dtenantlab.lab=$LAB_DIR " | paste -sd'|')"
  [[ -n "$pids" ]]
  run bash -c "ss -Hltnp | grep -E 'pid=($pids),' | awk '{print \$4}' | sort -u"
  assert_success
  [[ -n "$output" ]]
  refute_output --regexp '^(0\.0\.0\.0|\*|\[::\]|::)'
  local addr
  for addr in $output; do [[ "$addr" == 127.0.0.1:* ]] || fail "listening on $addr"; done
}
