#!/usr/bin/env bats
# The compose runtime, live (tests/compose/run, `make test-compose`): the lab that run started
# with `make up` on compose, in its own project and on ports + 1000. Everything from the host
# goes to the ports the containers publish on LAB_BIND.

setup() {
  load ../lib/lab
}

# dc ARGS...: docker compose on the test lab's project, as runtimes/compose/bin/lab calls it
dc() {
  local files
  mapfile -t files < <("$REPO/runtimes/compose/bin/lab" files)
  docker compose --project-directory "$REPO" "${files[@]}" --env-file "$LAB_ENV_FILE" "$@"
}

# containers: "SERVICE STATE HEALTH IMAGE" of every container of the project
containers() {
  dc ps -a --format json | jq -r 'if type == "array" then .[] else . end | "\(.Service) \(.State) \(.Health) \(.Image)"'
}

@test "compose: green with every node of lab.env, each with its roles" {
  run es GET "/_cluster/health?wait_for_status=green&timeout=60s"
  assert_success
  assert_equal "$(jq -r .status <<<"$output")" green
  assert_equal "$(jq -r .number_of_nodes <<<"$output")" "$(lab_nodes | wc -w)"
  local node want got
  for node in $(lab_nodes); do
    got="$(es GET "/_nodes/$node" | jq -r '.nodes[].roles | sort | join(",")')"
    want="$(node_var "$node" ROLES | tr ',' '\n' | sort | paste -sd,)"
    assert_equal "$got" "$want"
  done
}

@test "compose: the image's entrypoint takes the heap from ES_JAVA_OPTS and settings from dotted env vars" {
  # ES_HEAP (512m, 1g) in bytes: compose passes it as ES_JAVA_OPTS=-Xms.. -Xmx..
  local n="${ES_HEAP%[mMgG]}" want
  case "${ES_HEAP: -1}" in g | G) want=$((n * 1024 * 1024 * 1024)) ;; *) want=$((n * 1024 * 1024)) ;; esac
  run es GET "/_nodes/jvm"
  assert_success
  assert_equal "$(jq -r '[.nodes[].jvm.mem.heap_max_in_bytes] | unique | join(",")' <<<"$output")" "$want"
  # cluster.name and the watermarks come from environment variables named like settings
  run es GET "/_cluster/settings?include_defaults=true&flat_settings=true"
  assert_equal "$(jq -r '.defaults["cluster.routing.allocation.disk.watermark.low"] // .persistent["cluster.routing.allocation.disk.watermark.low"]' <<<"$output")" "$ES_DISK_WATERMARK_LOW"
}

@test "compose: _cat/nodeattrs shows each data node's index group" {
  run es GET "/_cat/nodeattrs?h=node,attr,value"
  assert_success
  local node
  # a loop over nothing proves nothing: the topology has data nodes
  [[ -n "$(data_nodes)" ]] || fail "no data node in the topology"
  for node in $(data_nodes); do
    assert_line --regexp "^$node +$LAB_GROUP_ATTR +$(node_var "$node" GROUP)\$"
  done
}

@test "compose: GET / answers like Elasticsearch, from the lab's cluster" {
  run es GET /
  assert_success
  assert_equal "$(jq -r .cluster_name <<<"$output")" "$CLUSTER_NAME"
  assert_equal "$(jq -r .version.number <<<"$output")" "$ES_VERSION"
}

@test "compose: allocation filtering pins an index to its group" {
  local index="tenantlab-it-compose-g2"
  es DELETE "/$index" >/dev/null 2>&1 || true
  es PUT "/$index" "{\"settings\": {\"number_of_shards\": 2, \"number_of_replicas\": 1, \"index.routing.allocation.require.$LAB_GROUP_ATTR\": \"g2\"}}" >/dev/null
  es GET "/_cluster/health/$index?wait_for_status=green&timeout=60s" >/dev/null
  run es GET "/_cat/shards/$index?h=node"
  assert_success
  # every copy placed (2 shards, 1 replica): a loop over nothing proves nothing
  assert_equal "${#lines[@]}" 4
  local node
  while read -r node; do
    assert_equal "$(node_var "$node" GROUP)" g2
  done <<<"$output"
  es DELETE "/$index" >/dev/null
}

@test "compose: the containers run the LAB_IMAGES set, healthy; no Kibana or Grafana with local images" {
  run containers
  assert_success
  local service state health image
  while read -r service state health image; do
    assert_equal "$state $health" "running healthy"
    if [[ "${LAB_IMAGES:-official}" == local ]]; then
      [[ "$image" == "$LOCAL_IMAGE_PREFIX/"* ]] || fail "$service runs $image, not a $LOCAL_IMAGE_PREFIX/ image"
    fi
  done <<<"$output"
  if [[ "${LAB_IMAGES:-official}" == local ]]; then
    refute_output --partial kibana
    refute_output --partial grafana
  fi
}

@test "compose: every published port is on 127.0.0.1 only, checked from the host" {
  local published url port
  published="$(dc ps --format json | jq -r 'if type == "array" then .[] else . end
    | .Publishers[]? | select(.PublishedPort > 0) | "\(.URL) \(.PublishedPort)"' | sort -u)"
  [[ -n "$published" ]] || fail "no published port"
  while read -r url port; do
    assert_equal "$url" "$LAB_BIND"
    # and nothing listens on that port on any other address of the host
    run ss -Hltn "sport = :$port"
    assert_output --regexp "127\.0\.0\.1:$port"
    refute_output --regexp "(0\.0\.0\.0|\*|\[::\]):$port"
  done <<<"$published"
}

@test "compose: the allocator is ready and Prometheus scrapes every target (the load's while a run lasts)" {
  run curl -fsS --max-time 10 "http://$LAB_BIND:$ALLOCATOR_PORT/readyz"
  assert_success
  local deadline=$((SECONDS + 60)) down
  while :; do
    # the load's target (job load, the locust service of a make load) is down between runs: by design
    down="$(curl -fsS --max-time 10 "http://$LAB_BIND:$PROMETHEUS_PORT/api/v1/targets" \
      | jq -r '.data.activeTargets[] | select(.labels.job != "load" and .health != "up") | "\(.labels.job): \(.health) \(.lastError)"')"
    [[ -z "$down" ]] && break
    ((SECONDS < deadline)) || fail "Prometheus targets not up: $down"
    sleep 2
  done
  # and the load's is configured, at the name a make load run answers to (--use-aliases)
  run curl -fsS --max-time 10 "http://$LAB_BIND:$PROMETHEUS_PORT/api/v1/targets"
  assert_equal "$(jq -r '[.data.activeTargets[] | select(.labels.job == "load") | .labels.instance] | join(",")' <<<"$output")" "locust:9646"
}

@test "compose: make up again is idempotent (same containers, still green)" {
  local before after
  before="$(dc ps -q | sort)"
  run "$LAB" up
  assert_success
  after="$(dc ps -q | sort)"
  assert_equal "$after" "$before"
  assert_equal "$(cluster_status)" green
}

@test "compose: node-kill turns the cluster yellow, node-restart brings it back green with every document" {
  local index="tenantlab-it-compose-faults" node=es-data-3 digest
  es DELETE "/$index" >/dev/null 2>&1 || true
  es PUT "/$index" "{\"settings\": {\"number_of_shards\": 1, \"number_of_replicas\": 1, \"index.routing.allocation.require.$LAB_GROUP_ATTR\": \"$(node_var "$node" GROUP)\"}}" >/dev/null
  local i body=""
  for i in $(seq 1 200); do body+="{\"index\":{\"_id\":\"$i\"}}"$'\n'"{\"n\":$i}"$'\n'; done
  curl -fsS --max-time 30 -XPOST "$ES/$index/_bulk?refresh=true" -H 'content-type: application/x-ndjson' --data-binary "$body" >/dev/null
  es GET "/_cluster/health/$index?wait_for_status=green&timeout=60s" >/dev/null
  digest="$(doc_digest "$index")"
  run "$LAB" kill "$node"
  assert_success
  # wait_for_status=yellow would also accept green (before the master notices): poll for yellow
  local deadline=$((SECONDS + 30)) status
  until status="$(cluster_status)" && [[ "$status" == yellow ]]; do
    ((SECONDS < deadline)) || fail "the cluster is '$status', not yellow, 30 s after killing $node"
    sleep 0.5
  done
  run "$LAB" restart "$node"
  assert_success
  assert_equal "$(cluster_status)" green
  assert_equal "$(doc_digest "$index")" "$digest"
  es DELETE "/$index" >/dev/null
}

@test "compose: an image build that cannot succeed is one line of what to do, and leaves no image" {
  [[ "${LAB_IMAGES:-official}" == local ]] || skip "the local images are built only with LAB_IMAGES=local"
  local prefix="tenantlab-broken-$$"
  LOCAL_IMAGE_PREFIX="$prefix" LOCAL_BASE_SUITE=nosuchsuite run "$REPO/runtimes/compose/images/build" base
  assert_failure
  assert_output --partial "no apt source for suite nosuchsuite"
  assert_output --partial "set LOCAL_BASE_SUITE in lab.env"
  assert_equal "$(docker images -q "$prefix/*")" ""
}
