#!/usr/bin/env bats
# The tenant allocator on a running lab (cluster + allocator): add a tenant over HTTP, then see
# its alias and its shards on the nodes of the right index group.

setup_file() {
  export SMOKE_TENANT="smoke-$$-$RANDOM"
  # two heavy tenants for make tenant-add / tenant-rm / groups / rebalance and the CLI's add / rm
  export RB_A="rb-a-$$" RB_B="rb-b-$$"
}

setup() {
  load ../lib/lab
}

teardown_file() {
  load ../lib/lab
  local t
  for t in "$SMOKE_TENANT" "$RB_A" "$RB_B"; do
    curl -fsS --max-time 60 -X DELETE "http://$LAB_BIND:$ALLOCATOR_PORT/tenants/$t" >/dev/null 2>&1 || true
  done
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

@test "a browser's request from elsewhere is refused: a rebinding Host, a foreign Origin, a text/plain body; nothing created" {
  local evil="rebind-$$" out
  # DNS rebinding: attacker.example resolved to 127.0.0.1, the browser sends its own name
  out="$(curl -sS --max-time 30 -w '\n%{http_code}' -H 'Host: attacker.example:8080' "$ALLOCATOR/tenants")"
  assert_equal "$(tail -n1 <<<"$out")" 421
  assert_equal "$(sed '$d' <<<"$out" | jq -r .error)" forbidden_host
  # a page of another site posting to the allocator
  out="$(curl -sS --max-time 30 -w '\n%{http_code}' -X POST -H 'Origin: http://attacker.example' -H 'content-type: application/json' \
    -d "{\"id\":\"$evil\",\"name\":\"x\",\"expected_products\":1}" "$ALLOCATOR/tenants")"
  assert_equal "$(tail -n1 <<<"$out")" 403
  assert_equal "$(sed '$d' <<<"$out" | jq -r .message)" "a POST from the page at 'http://attacker.example' is refused: only the console at http://${ALLOCATOR#http://}/ may change the lab (scripts send no Origin)"
  # a cross-site form may send text/plain without asking the server first: not a body here
  out="$(curl -sS --max-time 30 -w '\n%{http_code}' -X POST -H 'content-type: text/plain' \
    -d "{\"id\":\"$evil\",\"name\":\"x\",\"expected_products\":1}" "$ALLOCATOR/tenants")"
  assert_equal "$(tail -n1 <<<"$out")" 415
  run api GET "/tenants/$evil"
  assert_output --regexp '^404 '
  # the console's own origin, and the loopback name the lab prints, still work
  out="$(curl -sS --max-time 30 -o /dev/null -w '%{http_code}' -X DELETE -H "Origin: $ALLOCATOR" "$ALLOCATOR/tenants/$evil")"
  assert_equal "$out" 404
  out="$(curl -sS --max-time 30 -o /dev/null -w '%{http_code}' "http://localhost:${ALLOCATOR##*:}/groups")"
  assert_equal "$out" 200
}

@test "the console: its page with a policy that loads nothing from elsewhere, its state without a call per refresh, the stored runs with their reports" {
  local headers committed
  headers="$(curl -fsS --max-time 30 -D - -o "$BATS_TEST_TMPDIR/page.html" "$ALLOCATOR/")"
  grep -qi "^content-security-policy: default-src 'none'; script-src 'self'" <<<"$headers" || fail "no content security policy: $headers"
  grep -qi "frame-ancestors 'none'" <<<"$headers" || fail "the console may be framed: $headers"
  grep -q '<script type="module" src="/console/app.js">' "$BATS_TEST_TMPDIR/page.html"
  run api GET /console/vendor/uPlot.esm.js
  assert_output --regexp '^200 '
  run api GET /console/state
  assert_output --regexp '^200 '
  assert_equal "$(jq -r '[.groups[].name] | join(",")' <<<"${output#* }")" "$(groups | paste -sd,)"
  # every committed run is listed (compose mounts them into the allocator's container), each
  # with its report, which the allocator serves
  committed="$(ls -d "$REPO"/experiments/results/*/ | wc -l)"
  run api GET /console/runs
  assert_output --regexp '^200 '
  assert_equal "$(jq '[.runs[] | select(.where == "committed")] | length' <<<"${output#* }")" "$committed"
  local report
  report="$(jq -r '[.runs[] | select(.where == "committed" and .report != null)][0].report' <<<"${output#* }")"
  run api GET "$report"
  assert_output --regexp '^200 <!DOCTYPE html>'
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
  # the judged p95 with its signal, both objectives and the baseline (or that it is still learning)
  assert_line --regexp "^group +nodes +tenants +search_rate +search_ms_per_s +index_ms_per_s +p95 +objective +baseline +relative limit +ok "
  for g in $(groups); do assert_line --regexp "^$g +[0-9]+ +[0-9]+ "; done
  assert_output --partial "auto-isolation: off"
  assert_output --regexp "no hot tenant|HOT "
  # what a baseline that does not learn waits on: one line a group, naming a reason learning.js gives
  local why
  while IFS= read -r why; do
    [[ "$why" =~ ^(g[0-9]+)\'s\ baseline\ does\ not\ learn\ now:\ (too\ few\ searches|no\ signal|watched\ for\ less|held\ [0-9]+\ s|paused\ while) ]] \
      || fail "make hot's learning line names no group or no reason: $why"
    groups | grep -qx "${BASH_REMATCH[1]}" || fail "make hot's learning line names a group the lab does not have: $why"
  done < <(grep "baseline does not learn now" <<<"$output")
  # GET /hot says it for every group: learns, or why not (never both, never neither)
  run api GET /hot
  assert_success
  assert_equal "$(jq '[.groups[] | .learning | select(type == "object" and (.baseline | type) == "boolean" and ((.why == null) == .baseline))] | length' <<<"${output#* }")" "$(groups | wc -l)"
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
  assert_line --regexp "^[0-9]{2}:[0-9]{2}:[0-9]{2} g1 [0-9.]+/s p95 ([0-9.]+|-)ms.* base ([0-9.]+|-)ms "
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
  assert_output "tenantlab-allocator: $policy: invalid policy: hot.share must be > 0"
}

@test "a bad closed-loop policy (relative objective, minimum rise, probe interval) stops the allocator at start, in one line naming the key" {
  local policy="$BATS_TEST_TMPDIR/policy.json"
  local -a cases=(
    '.hot.relative = 1 => invalid policy: hot.relative must be > 1'
    '.hot.relative = 0.8 => invalid policy: hot.relative must be > 1'
    '.hot.minRiseMs = -5 => invalid policy: hot.minRiseMs must be >= 0'
    '.observe.windowS = 10 | .observe.probeIntervalMs = 15000 => invalid policy: observe.probeIntervalMs (15000 ms) is longer than observe.windowS (10 s)'
    '.hot.objectiveMs = {"default": 100, "g7": 40} => hot.objectiveMs names group g7'
  )
  for c in "${cases[@]}"; do
    jq "${c%% => *}" "$REPO/allocator/policy.json" >"$policy"
    run timeout 30 env ALLOCATOR_POLICY_FILE="$policy" ALLOCATOR_PORT=0 node "$REPO/allocator/src/main.js"
    assert_failure 2
    assert_equal "${#lines[@]}" 1
    assert_output --partial "tenantlab-allocator: $policy: ${c#* => }"
  done
}

@test "DELETE /tenants removes the alias and the documents" {
  run api DELETE "/tenants/$SMOKE_TENANT"
  assert_output --regexp '^200 '
  run curl -s -o /dev/null -w '%{http_code}' "$ES/_alias/tenant-$SMOKE_TENANT"
  assert_output 404
}

# group_tenants GROUP: the tenants column of GROUP's line in `make groups`
group_tenants() { make -s -C "$REPO" groups | awk -v g="$1" '$1 == g { print $4 }'; }
# tenant_field ID JQ: a field of the tenant as the API shows it
tenant_field() { api GET "/tenants/$1" | cut -d' ' -f2- | jq -r "$2"; }
CLI_ALLOC() { "$REPO/allocator/bin/tenantlab-allocator" --url "$ALLOCATOR" "$@"; }

@test "make tenant-add places a tenant as asked; make groups lists every group with its nodes and counts it" {
  local before
  before="$(group_tenants g1)"
  [[ "$before" =~ ^[0-9]+$ ]] || fail "make groups has no g1 line: $(make -s -C "$REPO" groups)"
  # heavy by traffic (300: three shared indices' worth), so make rebalance below has work
  run make -s -C "$REPO" tenant-add ID="$RB_A" PRODUCTS=40 TRAFFIC=300 GROUP=g1 DEDICATED=1
  assert_success
  assert_output --regexp "^$RB_A -> [a-z0-9._-]+ \(group g1, dedicated\), alias $(alias_of "$RB_A")$"
  assert_equal "$(tenant_field "$RB_A" '[.group, .kind, .expected_products, .traffic_weight] | join(" ")')" "g1 dedicated 40 300"
  run es GET "/_alias/$(alias_of "$RB_A")"
  assert_success
  assert_equal "$(jq -r 'keys | join(",")' <<<"$output")" "$(tenant_field "$RB_A" .index)"

  run make -s -C "$REPO" groups
  assert_success
  assert_line --index 0 --regexp '^name +nodes +indices +tenants +documents +load_per_node$'
  local g
  for g in $(groups); do
    assert_line --regexp "^$g +$(nodes_of_group "$g" | paste -sd,) +[0-9]+ +[0-9]+ +[0-9]+ +[0-9.]+$"
  done
  assert_line --regexp '^mean load per node [0-9.]+, balanced within 15%: (true|false)$'
  assert_equal "$(group_tenants g1)" "$((before + 1))"
  # what the API says, the table says
  assert_equal "$(group_tenants g1)" "$(api GET /groups | cut -d' ' -f2- | jq -r '.groups[] | select(.name == "g1") | .tenants')"
}

@test "the CLI's add: the same placement with --name --traffic --group --dedicated; bad input the API refuses is one line, exit 1" {
  run CLI_ALLOC add "$RB_B" 40 --name "Rebalance B" --traffic 300 --group g1 --dedicated
  assert_success
  assert_output --regexp "^$RB_B -> [a-z0-9._-]+ \(group g1, dedicated\), alias $(alias_of "$RB_B")$"
  assert_equal "$(tenant_field "$RB_B" '[.name, .group, .kind, .expected_products, .traffic_weight] | join(",")')" "Rebalance B,g1,dedicated,40,300"
  run CLI_ALLOC add "Bad Id" 5
  assert_failure 1
  assert_equal "${#lines[@]}" 1
  assert_output --regexp '^tenantlab-allocator: .*400'
  run CLI_ALLOC add "$RB_B" 41 --group g1
  assert_failure 1
  assert_equal "${#lines[@]}" 1
  assert_output --partial "tenant_conflict"
}

@test "make rebalance BY=static moves one of the two heavy g1 tenants to g2, then the CLI's rebalance has nothing to do" {
  [[ "$(tenant_field "$RB_A" .group) $(tenant_field "$RB_B" .group)" == "g1 g1" ]] || fail "the tenants added above are not both in g1"
  # the plan first: the two heavy tenants make g1 the busiest group; moving one of them (the
  # first by id at equal load: $RB_A) to the least busy one balances the groups
  run make -s -C "$REPO" plan BY=static
  assert_success
  assert_line --regexp "^$RB_A +[a-z0-9._-]+ +g2"
  refute_line --regexp "^$RB_B "
  run make -s -C "$REPO" rebalance BY=static
  assert_success
  # (the progress lines go to stderr, before it)
  assert_line --regexp "^rebalance-[a-z0-9-]+ succeeded: (.*, )?$RB_A->g2 succeeded(,|$)"
  refute_output --partial "$RB_B->"
  assert_equal "$(tenant_field "$RB_A" .group) $(tenant_field "$RB_B" .group)" "g2 g1"
  # the alias follows the move: its one index is in g2 now
  local index node
  index="$(tenant_field "$RB_A" .index)"
  es GET "/_cluster/health/$index?wait_for_status=green&timeout=60s" >/dev/null
  for node in $(es GET "/_cat/shards/$index?h=node"); do
    [[ " $(nodes_of_group g2 | paste -sd' ') " == *" $node "* ]] || fail "a shard of $index is on $node, not a g2 node"
  done
  assert_equal "$(es GET "/_alias/$(alias_of "$RB_A")" | jq -r 'keys | join(",")')" "$index"
  # balanced now: nothing to do, said in one line, exit 0
  run CLI_ALLOC rebalance --by static
  assert_success
  assert_output "balanced: no moves needed"
  run make -s -C "$REPO" plan BY=static
  assert_line --index 1 "balanced: no moves needed"
}

@test "make tenant-rm and the CLI's rm delete a tenant: alias and documents, counted; deleting it again is one line, exit 1" {
  write_products "$RB_A" 1 7
  es POST "/$(alias_of "$RB_A")/_refresh" >/dev/null
  run make -s -C "$REPO" tenant-rm ID="$RB_A"
  assert_success
  assert_output "deleted $RB_A (7 documents)"
  run api GET "/tenants/$RB_A"
  assert_output --regexp '^404 '
  run curl -s -o /dev/null -w '%{http_code}' "$ES/_alias/$(alias_of "$RB_A")"
  assert_output 404

  run CLI_ALLOC rm "$RB_B"
  assert_success
  assert_output "deleted $RB_B (0 documents)"
  run api GET "/tenants/$RB_B"
  assert_output --regexp '^404 '
  run CLI_ALLOC rm "$RB_B"
  assert_failure 1
  assert_equal "${#lines[@]}" 1
  assert_output --regexp "^tenantlab-allocator: .*404"
}
