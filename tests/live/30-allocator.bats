#!/usr/bin/env bats
# The tenant allocator on a running lab (cluster + allocator): add a tenant over HTTP, then see
# its alias and its shards on the nodes of the right index group.

setup_file() {
  export SMOKE_TENANT="smoke-$$-$RANDOM"
}

setup() {
  load ../lib/lab
}

teardown_file() {
  load ../lib/lab
  curl -fsS --max-time 60 -X DELETE "http://$LAB_BIND:$ALLOCATOR_PORT/tenants/$SMOKE_TENANT" >/dev/null 2>&1 || true
}

@test "the allocator is ready and knows the lab's groups" {
  run api GET /readyz
  assert_success
  assert_output --partial '200 '
  run api GET /groups
  assert_success
  local body="${output#* }"
  assert_equal "$(jq -r '[.groups[].name] | join(",")' <<<"$body")" "$(groups | paste -sd,)"
}

@test "POST /tenants places a tenant: 201, then 200 for the same spec, 409 for another" {
  run api POST /tenants "{\"id\":\"$SMOKE_TENANT\",\"name\":\"Smoke\",\"expected_products\":100,\"group\":\"g2\"}"
  assert_success
  assert_output --regexp '^201 '
  run api POST /tenants "{\"id\":\"$SMOKE_TENANT\",\"name\":\"Smoke\",\"expected_products\":100,\"group\":\"g2\"}"
  assert_output --regexp '^200 '
  run api POST /tenants "{\"id\":\"$SMOKE_TENANT\",\"name\":\"Smoke\",\"expected_products\":999,\"group\":\"g2\"}"
  assert_output --regexp '^409 '
  assert_output --partial '"error":"tenant_conflict"'
}

@test "the tenant's alias filters on store_id and is its write index" {
  run api GET "/tenants/$SMOKE_TENANT"
  assert_output --regexp '^200 '
  local index
  index="$(jq -r .index <<<"${output#* }")"
  run es GET "/_alias/tenant-$SMOKE_TENANT"
  assert_success
  assert_equal "$(jq -r 'keys | join(",")' <<<"$output")" "$index"
  assert_equal "$(jq -r --arg i "$index" --arg a "tenant-$SMOKE_TENANT" '.[$i].aliases[$a].filter.term.store_id' <<<"$output")" "$SMOKE_TENANT"
  assert_equal "$(jq -r --arg i "$index" --arg a "tenant-$SMOKE_TENANT" '.[$i].aliases[$a].is_write_index' <<<"$output")" true
}

@test "every shard copy of the tenant's index is on a g2 node" {
  run api GET "/tenants/$SMOKE_TENANT"
  local index
  index="$(jq -r .index <<<"${output#* }")"
  es GET "/_cluster/health/$index?wait_for_status=green&timeout=60s" >/dev/null
  run es GET "/_cat/shards/$index?h=node,state&format=json"
  assert_success
  local allowed node
  allowed=" $(nodes_of_group g2 | paste -sd' ') "
  assert [ "$(jq length <<<"$output")" -gt 0 ]
  for node in $(jq -r '.[].node' <<<"$output"); do
    [[ "$allowed" == *" $node "* ]] || fail "shard of $index on $node, not a g2 node ($allowed)"
  done
  assert_equal "$(jq -r '[.[] | select(.state != "STARTED")] | length' <<<"$output")" 0
}

@test "a document written through the alias is found through the alias" {
  run es PUT "/tenant-$SMOKE_TENANT/_doc/$SMOKE_TENANT:1?version=1700000000000&version_type=external_gte&refresh=true" \
    "{\"store_id\":\"$SMOKE_TENANT\",\"name\":\"smoke product\",\"updated_at\":1700000000000}"
  assert_success
  run es GET "/tenant-$SMOKE_TENANT/_count"
  assert_equal "$(jq -r .count <<<"$output")" 1
}

@test "bad input gets a 4xx with {error, message}" {
  run api POST /tenants '{"id":"Bad Id","name":"x","expected_products":1}'
  assert_output --regexp '^400 '
  assert_equal "$(jq -r 'keys | join(",")' <<<"${output#* }")" "error,message"
  run api DELETE /tenants/no-such-tenant-here
  assert_output --regexp '^404 '
}

@test "the CLI's move --wait, off a terminal, prints one progress line per phase" {
  local progress="$BATS_TEST_TMPDIR/progress"
  run bash -c "'$REPO/allocator/bin/tenantlab-allocator' --url '$ALLOCATOR' move '$SMOKE_TENANT' --group g1 --wait 2>'$progress'"
  assert_success
  assert_output --regexp "^move-[a-z0-9]+-[a-f0-9]+ succeeded tenant=$SMOKE_TENANT "
  # complete lines, no carriage returns, and no phase twice (not one line per poll)
  [[ "$(cat "$progress")" != *$'\r'* ]] || fail "carriage returns in: $(cat -A "$progress")"
  assert [ "$(wc -l <"$progress")" -ge 1 ]
  run grep -cvE '^(queued|running)( [a-z]+)? copied=[0-9]+$' "$progress"
  assert_output 0
  assert_equal "$(cut -d' ' -f1-2 "$progress" | sort | uniq -d)" ""
}

@test "make hot: each group against its objective, the hot tenants, auto-isolation; make tenants shows observed cost" {
  run make -s -C "$REPO" hot
  assert_success
  assert_output --regexp "groups over the last [0-9.]+ s \(window [0-9]+ s\), cluster (green|yellow)"
  for g in $(groups); do assert_line --regexp "^$g +[0-9]+ +[0-9]+ "; done
  assert_output --partial "auto-isolation: off"
  assert_output --regexp "no hot tenant|HOT "
  run make -s -C "$REPO" tenants
  assert_success
  assert_line --regexp '^id +group +index .* search/s +search_ms/s +share_of_group +writes/s +hot$'
  run api GET "/tenants/$SMOKE_TENANT"
  assert_success
  assert_equal "$(jq -r '.cost | has("search_rate") and has("search_ms_per_s") and has("share_of_group") and has("share_of_index") and has("write_rate")' <<<"${output#* }")" true
}

@test "make watch off a terminal prints one plain line per refresh and stops when asked" {
  run timeout 30 "$REPO/allocator/bin/tenantlab-allocator" --url "$ALLOCATOR" watch --every 1 --for 3.5
  assert_success
  [[ "$output" != *$'\e'* ]] || fail "escape sequences off a terminal: $(cat -A <<<"$output")"
  assert [ "${#lines[@]}" -ge 3 ]
  assert [ "${#lines[@]}" -le 5 ]
  assert_line --regexp "^[0-9]{2}:[0-9]{2}:[0-9]{2} g1 [0-9.]+/s probe "
  run "$REPO/allocator/bin/tenantlab-allocator" --url "$ALLOCATOR" watch --every 0
  assert_failure 2
  assert_output "tenantlab-allocator: --every must be 0.5 to 60 seconds, got '0'"
}

@test "make plan BY=observed|static says what it weighed; a bad BY is one line" {
  run make -s -C "$REPO" plan BY=static
  assert_success
  assert_line --index 0 --regexp "^plan by declared traffic weights"
  run make -s -C "$REPO" plan BY=observed
  assert_success
  assert_line --index 0 --regexp "^plan by observed search cost \(last [0-9.]+ s\)"
  run make -s -C "$REPO" plan BY=sideways
  assert_failure
  assert_output --partial "--by must be observed or static, got 'sideways'"
}

@test "a policy naming a group the lab does not have stops the allocator at start, in one line" {
  local policy="$BATS_TEST_TMPDIR/policy.json"
  jq '.hot.objectiveMs = {"default": 100, "g9": 50}' "$REPO/allocator/policy.json" >"$policy"
  run timeout 30 env ALLOCATOR_POLICY_FILE="$policy" ALLOCATOR_PORT=0 node "$REPO/allocator/src/main.js"
  assert_failure 2
  assert_output "tenantlab-allocator: $policy: hot.objectiveMs names group g9, which the lab does not have (groups: $(groups | paste -sd, | sed 's/,/, /g'); or \"default\")"
  jq '.hot.share = -0.2' "$REPO/allocator/policy.json" >"$policy"
  run timeout 30 env ALLOCATOR_POLICY_FILE="$policy" ALLOCATOR_PORT=0 node "$REPO/allocator/src/main.js"
  assert_failure 2
  assert_output "tenantlab-allocator: $policy: invalid policy: /hot/share must be > 0"
}

@test "DELETE /tenants removes the alias and the documents" {
  run api DELETE "/tenants/$SMOKE_TENANT"
  assert_output --regexp '^200 '
  run curl -s -o /dev/null -w '%{http_code}' "$ES/_alias/tenant-$SMOKE_TENANT"
  assert_output 404
}
