#!/usr/bin/env bats
# Seed data on a running lab (cluster + allocator): the ci profile is seeded through the
# allocator as a user would (`make seed PROFILE=ci`) and every tenant ends with exactly the
# manifest's count. The catalogs stay: the traffic and dashboard tests that run after this file
# use them.

SEED_BIN="seed-data/bin/tenantlab-seed"

setup() {
  load ../lib/lab
  cd "$REPO"
  export PROFILE=ci SEED=1 SEED_PROGRESS=plain
}

@test "make seed PROFILE=ci loads every store with exactly the manifest's count" {
  run make -s -C "$REPO" seed
  assert_success
  assert_output --partial "every tenant matches the manifest"
  run "$SEED_BIN" manifest
  assert_success
  local manifest="$output" id want got total=0
  assert_equal "$(jq -r '.stores' <<<"$manifest")" 20
  es POST "/tenant-*/_refresh" >/dev/null
  while read -r id want; do
    got="$(es GET "/tenant-$id/_count" | jq -r .count)"
    assert_equal "$id=$got" "$id=$want"
    total=$((total + got))
  done < <(jq -r '.tenants[] | "\(.id) \(.expected_products)"' <<<"$manifest")
  assert_equal "$total" "$(jq -r '[.tenants[].expected_products] | add' <<<"$manifest")"
  # the initial-load settings are back: replicas and refresh as the allocator created them
  run es GET "/_all/_settings/index.number_of_replicas,index.refresh_interval?flat_settings=true"
  refute_output --partial '"index.refresh_interval":"-1"'
  refute_output --partial '"index.number_of_replicas":"0"'
  # the replicas copied their primaries' files: the load was flushed before they were added, so
  # no replica indexed the load again from the translog (unflushed, about every document was)
  local replayed
  replayed="$(es GET "/_cat/recovery?format=json&h=index,type,translog_ops" \
    | jq '[.[] | select(.type == "peer" and (.index | test("products-"))) | .translog_ops | tonumber] | add // 0')"
  (( replayed * 100 <= total )) || fail "the replicas replayed $replayed operations from the translog for $total documents loaded: the load was not flushed before the replicas came back"
}

# seeder_runs_here: the seeder's plans (what make up sends, drift, what is missing) and its warm-up
# run on the host and speak HTTP to any runtime's published port: checked on the native lab; the
# compose copy seeds and counts the ci profile (the first test), and make up of a running compose
# lab is tests/live/20-lifecycle.bats' (about 85 s of the compose part)
seeder_runs_here() {
  [[ "$(lab_runtime)" != compose ]] || skip "the seeder's plans on the host: checked on the native lab"
}

@test "make up on a seeded lab sends nothing again and duplicates nothing" {
  seeder_runs_here
  run make -s -C "$REPO" up
  assert_success
  assert_output --partial "profile ci (SEED=1) is already loaded"
  # the nodes started with the test lab and were never warmed: make up warms them once
  # (LAB_WARMUP=5s in the harness), searches and writes to a scratch index it drops
  # (on past LAB_WARMUP while the seeding's merges still run, and then it says so)
  assert_output --regexp "warm-up: [1-9][0-9]* storefront searches in [0-9.]+ s( \([0-9]+ s past [0-9]+ s while Elasticsearch finished merging\))?, 3 in flight .* and [1-9][0-9]* products written in [1-9][0-9]* bulks to a scratch index since dropped"
  # for the harness's LAB_WARMUP (5 s, tests/run), not lab.env's 30 s
  local warm_s past
  warm_s="$(grep -Eo 'storefront searches in [0-9]+' <<<"$output" | grep -Eo '[0-9]+$')"
  past="$(grep -Eo '[0-9]+ s past [0-9]+ s' <<<"$output" | awk '{print $4}' || true)"
  if [[ -n "$past" ]]; then assert_equal "past $past s" "past 5 s"
  else (( warm_s < 15 )) || fail "the warm-up ran ${warm_s} s: not the harness's LAB_WARMUP=5s"; fi
  run es GET "/tenantlab-warmup"
  assert_failure
  assert_output --partial "404"
  run make -s -C "$REPO" up
  assert_success
  assert_output --partial "warm-up: not needed (no node started since the last one)"
  run "$SEED_BIN" seed --keep-settings
  assert_success
  assert_output --partial "every tenant matches the manifest"
  run make -s -C "$REPO" seed-verify
  assert_success
}

@test "a catalog re-submission and a price/inventory update keep exact counts" {
  # the seeder on the host speaking HTTP to Elasticsearch: nothing of it depends on the runtime
  seeder_runs_here
  local tenant
  tenant="$("$SEED_BIN" manifest | jq -r '.tenants | max_by(.expected_products) | .id')"
  run make -s -C "$REPO" resubmit TENANT="$tenant"
  assert_success
  run make -s -C "$REPO" update TENANT="$tenant"
  assert_success
  run make -s -C "$REPO" seed-verify
  assert_success
}

# seq_nos INDEX_PATTERN: "index/shard max_seq_no" of every primary; any document indexed again
# (even unchanged, with the same external version) raises its shard's max_seq_no
seq_nos() {
  es GET "/$1/_stats?level=shards" | jq -r '.indices | to_entries[] | .key as $i | .value.shards
    | to_entries[] | .key as $s | .value[] | select(.routing.primary) | "\($i)/\($s) \(.seq_no.max_seq_no)"' | sort
}

# now_iso MS: the ISO-8601 time of epoch milliseconds MS (updated_at of the write contract)
now_iso() { printf '%s.%03dZ' "$(date -u -d "@$(($1 / 1000))" +%Y-%m-%dT%H:%M:%S)" "$(($1 % 1000))"; }

# Undoes the drift test's writes even when it failed half-way, so the later files see the
# profile exactly as seeded: the added product deleted, the removed one written back (newer
# than its delete's tombstone), both per the write contract.
teardown() {
  [[ -f "$BATS_FILE_TMPDIR/drift" ]] || return 0
  local added removed source v
  read -r added removed <"$BATS_FILE_TMPDIR/drift"
  v="$(date +%s%3N)"
  es DELETE "/tenant-${added%%:*}/_doc/$added?version=$v&version_type=external_gte" >/dev/null || true
  source="$(jq -c --arg at "$(now_iso "$v")" '.updated_at = $at' "$BATS_FILE_TMPDIR/removed.json")"
  # the write contract's bulk lines (_id "<tenant>:<product>", version = updated_at = $v)
  bulk "" "$(bulk_lines <<<"$source")"$'\n' "refresh=wait_for"
  rm -f "$BATS_FILE_TMPDIR/drift"
  make -s -C "$REPO" seed-verify
}

@test "make up on a used lab: a product added to one store and removed from another is reported as drift, nothing is re-sent" {
  seeder_runs_here
  local manifest plus minus before took
  manifest="$("$SEED_BIN" manifest)"
  # two small stores: one gets a product of its user's, the other loses one
  read -r plus minus < <(jq -r '[.tenants | sort_by(.expected_products)[] | .id][0:2] | join(" ")' <<<"$manifest")
  echo "$plus:900001 $minus:1" >"$BATS_FILE_TMPDIR/drift"
  write_products "$plus" 900001 900001
  es POST "/tenant-$minus/_search" "{\"query\":{\"ids\":{\"values\":[\"$minus:1\"]}}}" | jq -ce '.hits.hits[0]._source' >"$BATS_FILE_TMPDIR/removed.json"
  es DELETE "/tenant-$minus/_doc/$minus:1?version=$(date +%s%3N)&version_type=external_gte" >/dev/null
  es POST "/tenant-ci-*/_refresh" >/dev/null
  before="$(seq_nos 'tenant-ci-*')"
  [[ -n "$before" && "$before" != *null* ]] || fail "no max_seq_no per shard: $before"

  SECONDS=0
  run make -s -C "$REPO" up
  took=$SECONDS
  assert_success
  assert_output --partial "profile ci (SEED=1) is already loaded"
  assert_output --partial "warning: 2 of 20 stores differ from the manifest (net 0)"
  assert_output --partial "$plus +1 ("
  assert_output --partial "$minus -1 ("
  assert_output --partial "seed data: 0 documents sent"
  # not one document of any store was indexed again (the old `make up` re-sent all 50,000)
  assert_equal "$(seq_nos 'tenant-ci-*')" "$before"
  ((took < 60)) || fail "make up took ${took}s on a seeded lab"

  run make -s -C "$REPO" seed-verify
  assert_failure
  assert_output --partial "2 of 20 tenants do not match the manifest"
  assert_output --partial "tenant $plus:"
  assert_output --partial "(1 too many)"
  assert_output --partial "tenant $minus:"
  assert_output --partial "(1 missing)"
  # the teardown restores both stores and checks the profile is exact again
}

@test "make up loads only the tenants that are missing: new and empty ones, not those complete" {
  seeder_runs_here
  # a profile of its own (prefix cifill, ci x0.02: 1,000 products) so the ci catalogs stay as seeded
  export SEED_TENANT_PREFIX=cifill SEED_SCALE=0.02
  local manifest first second total sent
  manifest="$("$SEED_BIN" manifest)"
  read -r first second < <(jq -r '[.tenants[] | .id][0:2] | join(" ")' <<<"$manifest")
  total="$(jq -r '[.tenants[].expected_products] | add' <<<"$manifest")"
  # one store loaded, one created through the allocator with nothing in it, 18 not there
  run "$SEED_BIN" seed --tenant "$first" --keep-settings
  assert_success
  run api POST /tenants "$(jq -c --arg id "$second" '.tenants[] | select(.id == $id) | {id, name, expected_products, traffic_weight}' <<<"$manifest")"
  assert_output --regexp '^20[01] '
  sent=$((total - $(jq -r --arg id "$first" '.tenants[] | select(.id == $id) | .expected_products' <<<"$manifest")))

  run make -s -C "$REPO" up
  assert_success
  assert_output --partial "loading 19 of 20 tenants (18 new, 1 empty); 1 already loaded"
  assert_output --partial "seed data: $sent documents sent"
  refute_output --partial "warning"
  run make -s -C "$REPO" seed-verify
  assert_success
  run "$SEED_BIN" delete
  assert_success
}

@test "a bad profile name: one-line error, exit 2, nothing contacted" {
  run "$SEED_BIN" seed -p no-such-profile
  assert_failure 2
  assert_output "error: unknown profile 'no-such-profile': pick one of bigcommerce, ci, demo, large, platform"
}

@test "LAB_WARMUP that is not a duration: one-line error, exit 2, before the seeding" {
  LAB_WARMUP=soon run "$LAB" up
  assert_failure 2
  assert_output --partial "error: LAB_WARMUP=soon: want a duration like 30s or 1m (0s skips the warm-up)"
  refute_output --partial "seed data: checking"
  LAB_WARMUP=0s run "$SEED_BIN" warm -p ci --seconds 0
  assert_success
  assert_output "warm-up: skipped (LAB_WARMUP=0s)"
  run "$SEED_BIN" warm -p ci --log /nonexistent/queries.log
  assert_failure 2
  assert_output "error: warm: no query log at /nonexistent/queries.log: make up writes it (tenantlab-seed querylog --out FILE, then --log FILE)"
}

@test "SEED that is not a number: one-line error, exit 2" {
  SEED=abc run "$SEED_BIN" seed -p ci
  assert_failure 2
  assert_output "error: SEED (--seed) must be an integer >= 0, got 'abc'"
  SEED=abc run "$LAB" up
  assert_failure 2
  assert_output --partial "SEED must be a non-negative number"
}
