#!/usr/bin/env bats
# Tenant moves lose nothing when a data node dies under them: a node of the target group, then
# a node of the source group, is SIGKILLed while the tenant moves and catalog writes go on.
# At the end the alias finds exactly every acknowledged product at its latest version, and the
# source index holds none of the tenant's documents.

setup_file() {
  load ../lib/lab
  export MOVE_TENANT="mvfault-$$"
  run api POST /tenants "{\"id\":\"$MOVE_TENANT\",\"name\":\"Move under faults\",\"expected_products\":3000,\"group\":\"g1\"}"
  [[ "$output" == 201* ]] || { echo "create failed: $output" >&2; return 1; }
  write_products "$MOVE_TENANT" 1 3000
  es POST "/tenant-$MOVE_TENANT/_refresh" >/dev/null
}

teardown_file() {
  load ../lib/lab
  local n
  for n in $(data_nodes); do
    es GET "/_cat/nodes?h=name" | grep -qx "$n" || "$LAB" restart "$n" >/dev/null 2>&1 || true
  done
  api DELETE "/tenants/$MOVE_TENANT" >/dev/null 2>&1 || true
}

setup() { load ../lib/lab; }

# expected_versions LAST FROM:BUMP...: the "id updated_at" lines product_versions must show when
# products 1..LAST exist and those from FROM on were rewritten with updated_at + BUMP (later
# pairs win)
expected_versions() {
  local last="$1"
  shift
  jq -rn --arg t "$MOVE_TENANT" --argjson last "$last" --arg bumps "$*" '
    ($bumps | split(" ") | map(split(":") | map(tonumber))) as $b
    | range(1; $last + 1) as $n
    | (reduce $b[] as $x (0; if $n >= $x[0] then $x[1] else . end)) as $bump
    | "\($t):\($n) \(1700000000000 + $n + $bump)"' | sort
}

# assert_every_product_kept LAST FROM:BUMP...: every acknowledged product at its latest
# version, and nothing else; else the difference
assert_every_product_kept() {
  es POST "/tenant-$MOVE_TENANT/_refresh" >/dev/null
  product_versions "$MOVE_TENANT" >"$BATS_TEST_TMPDIR/actual"
  expected_versions "$@" >"$BATS_TEST_TMPDIR/expected"
  run diff "$BATS_TEST_TMPDIR/expected" "$BATS_TEST_TMPDIR/actual"
  [[ "$status" -eq 0 ]] || fail "products differ (< expected, > found): $(head -c 600 <<<"$output")"
}

# move_with_node_killed GROUP NODE NEW_FROM NEW_TO BUMP_FROM BUMP: moves the tenant to GROUP,
# SIGKILLs NODE at once, writes new products NEW_FROM..NEW_TO and rewrites BUMP_FROM..NEW_TO
# with updated_at + BUMP through the alias meanwhile, lets the job finish (resuming it if the
# node's death failed it), checks its copied count, then brings NODE back
move_with_node_killed() {
  local group="$1" node="$2" job state i
  run api POST "/tenants/$MOVE_TENANT/move" "{\"group\":\"$group\"}"
  assert_output --regexp '^202 '
  job="$(jq -r '.id' <<<"${output#* }")"

  make -s -C "$REPO" node-kill NODE="$node" >/dev/null
  # the drill is real only if the move was under way when the node died: the job as it was the
  # moment node-kill returned (the node's process gone) is running, in a phase before done
  local at_kill
  at_kill="$(api GET "/jobs/$job" | cut -d' ' -f2- | jq -c '{state, phase}')"
  echo "# $node killed while $job was $at_kill" >&3
  [[ "$(jq -r .state <<<"$at_kill")" == running && "$(jq -r .phase <<<"$at_kill")" =~ ^(prepare|split|copy|switch|cleanup)$ ]] \
    || fail "the move was not under way when $node was killed (job $job: $at_kill): nothing was drilled"
  # and the cluster lost the node while the tenant moves
  for ((i = 0; i < 30; i++)); do es GET "/_cat/nodes?h=name" | grep -qx "$node" || break; sleep 1; done
  ! es GET "/_cat/nodes?h=name" | grep -qx "$node" || fail "$node is still in the cluster after node-kill"
  # acknowledged while the node is dead and the tenant is moving: must all survive
  write_products "$MOVE_TENANT" "$3" "$4"
  write_products "$MOVE_TENANT" "$5" "$4" "$6"

  for ((i = 0; i < 240; i++)); do
    state="$(api GET "/jobs/$job" | cut -d' ' -f2- | jq -r .state)"
    [[ "$state" == succeeded ]] && break
    if [[ "$state" == failed ]]; then
      # a failed move is resumable: POST the same move again
      run api POST "/tenants/$MOVE_TENANT/move" "{\"group\":\"$group\"}"
      job="$(jq -r '.id' <<<"${output#* }")"
    fi
    sleep 1
  done
  assert_equal "$state" succeeded

  # the job's counters survive its failure and resume: products 1..BUMP_FROM-1, which no write
  # touched during the move, can only have reached the target by a copy, so were counted
  local copied
  copied="$(api GET "/jobs/$job" | cut -d' ' -f2- | jq -r .documents_copied)"
  ((copied >= $5 - 1)) || fail "job $job reports $copied documents copied, fewer than the $(($5 - 1)) products only a copy can have moved"

  run make -s -C "$REPO" node-restart NODE="$node"
  assert_success
}

@test "a move into g2 while a g2 node is killed loses nothing" {
  local source
  source="$(api GET "/tenants/$MOVE_TENANT" | cut -d' ' -f2- | jq -r .index)"
  move_with_node_killed g2 es-data-3 3001 3200 2901 5000

  run api GET "/tenants/$MOVE_TENANT"
  assert_equal "$(jq -r .group <<<"${output#* }")" g2
  assert_every_product_kept 3200 2901:5000
  run es POST "/$source/_count" "{\"query\": {\"term\": {\"store_id\": \"$MOVE_TENANT\"}}}"
  assert_equal "$(jq -r .count <<<"$output")" 0
}

@test "a move back into g1 while a node of the source group g2 is killed loses nothing" {
  # once per CI run: the move is the allocator's code in every runtime and the node kill the
  # runtime's; on compose the first move above is made by the allocator's container under a
  # container's kill (and tests/live/70-node-faults.bats kills and restarts the containers)
  [[ "$(lab_runtime)" != compose ]] || skip "the second move under a fault: checked on the native lab"
  move_with_node_killed g1 es-data-4 3201 3300 3001 9000
  run api GET "/tenants/$MOVE_TENANT"
  assert_equal "$(jq -r .group <<<"${output#* }")" g1
  assert_every_product_kept 3300 2901:5000 3001:9000
  assert_equal "$(es GET /_cluster/health | jq -r .status)" green
}
