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
}

@test "make up on a seeded lab sends nothing again and duplicates nothing" {
  run make -s -C "$REPO" up
  assert_success
  assert_output --partial "profile ci (SEED=1) is already loaded"
  run "$SEED_BIN" seed --keep-settings
  assert_success
  assert_output --partial "every tenant matches the manifest"
  run make -s -C "$REPO" seed-verify
  assert_success
}

@test "a catalog re-submission and a price/inventory update keep exact counts" {
  local tenant
  tenant="$("$SEED_BIN" manifest | jq -r '.tenants | max_by(.expected_products) | .id')"
  run make -s -C "$REPO" resubmit TENANT="$tenant"
  assert_success
  run make -s -C "$REPO" update TENANT="$tenant"
  assert_success
  run make -s -C "$REPO" seed-verify
  assert_success
}

@test "a bad profile name: one-line error, exit 2, nothing contacted" {
  run "$SEED_BIN" seed -p no-such-profile
  assert_failure 2
  assert_output "error: unknown profile 'no-such-profile': pick one of ci, demo, large"
}

@test "SEED that is not a number: one-line error, exit 2" {
  SEED=abc run "$SEED_BIN" seed -p ci
  assert_failure 2
  assert_output "error: SEED (--seed) must be an integer >= 0, got 'abc'"
  SEED=abc run "$LAB" up
  assert_failure 2
  assert_output --partial "SEED must be a non-negative number"
}
