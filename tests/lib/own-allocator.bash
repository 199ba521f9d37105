# An allocator of a test file's own (its own index prefix, port and policy) on the running lab's
# cluster, with stores placed and seeded, and everything it made removed afterwards. Used by the
# closed-loop and console tests, which need a fast policy the lab's own allocator must not get.
#   own_allocator_start DIR PREFIX POLICY_JQ     (exports OWN_PORT; the log in DIR/allocator.log)
#   own_stores PREFIX FIXTURES id:group:products:weight ...
#   own_allocator_stop DIR PREFIX ids...
# Needs tests/lib/lab.bash loaded (api, bulk, bulk_lines, es).

own_allocator_start() {
  local dir="$1" prefix="$2" policy_jq="$3" i
  OWN_PORT="$(node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")"
  export OWN_PORT
  jq "$policy_jq" allocator/policy.json >"$dir/policy.json" || return 1
  ALLOCATOR_PORT="$OWN_PORT" ALLOCATOR_INDEX_PREFIX="$prefix" ALLOCATOR_POLICY_FILE="$dir/policy.json" \
    ALLOCATOR_STATS_INTERVAL_MS=1000 ALLOCATOR_LOG_LEVEL=warn \
    node allocator/src/main.js >"$dir/allocator.log" 2>&1 3>&- &
  echo $! >"$dir/allocator.pid"
  for ((i = 0; i < 120; i++)); do
    curl -fsS "http://127.0.0.1:$OWN_PORT/readyz" >/dev/null 2>&1 && return 0
    sleep 0.5
  done
  cat "$dir/allocator.log" >&2
  return 1
}

# each spec id:group:products:weight places store PREFIX<id> and writes its catalogue (documents
# newer than any tombstone an earlier run left)
own_stores() {
  local prefix="$1" fixtures="$2" base spec id g n w out
  shift 2
  base="$(($(date +%s%3N) - 1000))"
  for spec in "$@"; do
    IFS=: read -r id g n w <<<"$spec"
    id="${prefix}$id"
    out="$(ALLOCATOR="http://127.0.0.1:$OWN_PORT" api POST /tenants "{\"id\":\"$id\",\"name\":\"$id\",\"expected_products\":$n,\"traffic_weight\":$w,\"group\":\"$g\",\"dedicated\":false}")"
    [[ "$out" == 201* ]] || { echo "cannot create tenant $id: $out" >&2; return 1; }
    bulk "" "$(jq -nc --arg t "$id" --argjson n "$n" --argjson base "$base" -f "$fixtures/catalog.jq" | bulk_lines)"$'\n' "refresh=wait_for" || return 1
  done
}

own_allocator_stop() {
  local dir="$1" prefix="$2" pid id names
  shift 2
  # nothing started (a skipped file): and never a delete by an empty prefix
  [[ -n "$prefix" && -n "$dir" ]] || return 0
  pid="$(cat "$dir/allocator.pid" 2>/dev/null)" || true
  if [[ -n "$pid" ]]; then
    for id in "$@"; do ALLOCATOR="http://127.0.0.1:$OWN_PORT" api DELETE "/tenants/${prefix}$id" >/dev/null 2>&1 || true; done
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  fi
  # wildcard deletes are refused (action.destructive_requires_name): by name
  names="$(es GET "/_cat/indices/${prefix}*?h=index&expand_wildcards=all" 2>/dev/null | paste -sd, -)" || true
  [[ -n "$names" ]] && es DELETE "/$names" >/dev/null 2>&1
  es DELETE "/_index_template/${prefix}products" >/dev/null 2>&1 || true
}

# A test file's whole setup_file: the load engine installed, the allocator started with the
# policy, the stores placed. Exports OWN_DIR, OWN_PREFIX, OWN_PORT and OWN_IDS for the tests and
# own_allocator_teardown_file.
#   own_allocator_setup_file PREFIX POLICY_JQ id:group:products:weight ...
own_allocator_setup_file() {
  local prefix="$1" policy_jq="$2" spec
  shift 2
  cd "$REPO" || return 1
  scripts/install/locust.sh >/dev/null || return 1
  export OWN_DIR="$BATS_FILE_TMPDIR" OWN_PREFIX="$prefix" OWN_IDS=""
  for spec in "$@"; do OWN_IDS+="${spec%%:*} "; done
  own_allocator_start "$OWN_DIR" "$OWN_PREFIX" "$policy_jq" || return 1
  own_stores "$OWN_PREFIX" tests/fixtures/traffic "$@"
}

own_allocator_teardown_file() {
  # shellcheck disable=SC2086 # the ids are words
  own_allocator_stop "$OWN_DIR" "$OWN_PREFIX" $OWN_IDS
}
