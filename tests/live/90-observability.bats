#!/usr/bin/env bats
# The observability stack on a running lab: every scrape target up, every rule evaluating, and,
# after a short seed and load, every panel target of every dashboard (variables resolved from the
# live Prometheus, as Grafana would) returning at least one series. A failure names the
# dashboard, the panel and the query.
#
# Targets on the load's metrics (tenantlab_load_*, and the rules over them) are checked on the
# `make load` this file starts (job `load`): a Prometheus of the lab that does not answer, a load
# that does not start or is not scraped, a dashboard variable with no value fail, never skip.
# Targets that need the allocator (the other tenantlab_*, tenantlab:*, index_group:* series) are
# checked when the allocator is part of the lab (and then it must be up); the rest always.

setup_file() {
  load ../lib/lab
  export PROM="http://$LAB_BIND:$PROMETHEUS_PORT"
  export PROBE_INDEX="obs-probe-$$"
  export PROBE_TENANT="obs-$$-$RANDOM"
  # a lab without Prometheus has nothing to check here (every test skips, saying so); a lab with
  # it must answer, and must get its load: no test turns that into a skip
  prometheus_in_lab || return 0
  local i
  for ((i = 0; i < 30; i++)); do curl -fsS --max-time 5 "$PROM/-/ready" >/dev/null 2>&1 && break; sleep 1; done
  curl -fsS --max-time 5 "$PROM/-/ready" >/dev/null 2>&1 \
    || { echo "Prometheus is part of this lab (LAB_SERVICES=$LAB_SERVICES, runtime $(runtime)) but does not answer at $PROM/-/ready" >&2; return 1; }
  start_background_load || return 1
  short_seed_and_load
}

# A bounded `make load` (the seeded ci stores when there are some, headless: UI=0) serving its
# /metrics at LAB_BIND:LOAD_METRICS_PORT, which Prometheus scrapes as job `load`, while this file
# runs, in a session of its own so teardown_file can stop all of it.
start_background_load() {
  local tenants='ci-*'
  [[ -x "$REPO/traffic/run.sh" ]] || { echo "no load to start: $REPO/traffic/run.sh is missing or not executable" >&2; return 1; }
  if ! api GET /tenants | grep -q '"ci-0001"'; then
    # run alone (make test ONLY=observability): a small catalog of our own to load
    tenants='obsseed-*'
    (cd "$REPO" && PROFILE=ci SEED=1 SEED_SCALE=0.02 SEED_TENANT_PREFIX=obsseed SEED_PROGRESS=none \
      seed-data/bin/tenantlab-seed seed >/dev/null 2>&1) || true
  fi
  # tagged as the lab's: if anything goes wrong, tests/run finds and stops it with the lab
  setsid env TENANTLAB_LAB="$LAB_DIR" bash -c "cd '$REPO' && SCENARIO=mixed DURATION=150s RATE=4 TENANTS='$tenants' RESUBMIT=none UI=0 \
    exec timeout 240 make -s load" >"$BATS_FILE_TMPDIR/load.log" 2>&1 </dev/null 3>&- &
  echo $! >"$BATS_FILE_TMPDIR/load.pid"
}

stop_background_load() {
  local pid
  pid="$(cat "$BATS_FILE_TMPDIR/load.pid" 2>/dev/null)" || return 0
  stop_group "$pid"
}

teardown_file() {
  load ../lib/lab
  stop_background_load
  (cd "$REPO" && PROFILE=ci SEED=1 SEED_SCALE=0.02 SEED_TENANT_PREFIX=obsseed \
    seed-data/bin/tenantlab-seed delete >/dev/null 2>&1) || true
  curl -fsS --max-time 30 -X DELETE "$ES/$PROBE_INDEX" >/dev/null 2>&1 || true
  local g
  for g in $(groups); do
    curl -fsS --max-time 60 -X DELETE "http://$LAB_BIND:$ALLOCATOR_PORT/tenants/$PROBE_TENANT-$g" >/dev/null 2>&1 || true
  done
}

setup() {
  load ../lib/lab
  source "$REPO/tests/lib/observability.bash"
  prometheus_in_lab || skip "Prometheus is not part of this lab (LAB_SERVICES=$LAB_SERVICES)"
}

runtime() { cat "$LAB_DIR/runtime" 2>/dev/null || echo native; }
# background_load_started: setup_file started the load (it fails the file when it cannot)
background_load_started() {
  [[ -s "$BATS_FILE_TMPDIR/load.pid" ]] \
    || fail "no background load was started by this file's setup_file (Prometheus is part of the lab): $(tail -n 5 "$BATS_FILE_TMPDIR/load.log" 2>/dev/null)"
}
# The compose runtime always runs the observability overlay and the allocator
prometheus_in_lab() { [[ "$(runtime)" == compose ]] || is_service prometheus; }
allocator_in_lab() { [[ "$(runtime)" == compose ]] || is_service allocator; }
is_service() { [[ ",${LAB_SERVICES:-}," == *",$1,"* ]]; }

# promq EXPR: the JSON result array of an instant query; fails with Prometheus' error
promq() {
  local out
  out="$(curl -sS --max-time 20 -G "$PROM/api/v1/query" --data-urlencode "query=$1")" || return 1
  jq -e '.status == "success"' <<<"$out" >/dev/null || { jq -r '"\(.errorType): \(.error)"' <<<"$out"; return 1; }
  jq -c '.data.result' <<<"$out"
}
series_count() { local r; r="$(promq "$1")" || { echo "error: $r"; return 1; }; jq length <<<"$r"; }

# wait_until SECONDS EXPR: 0 once EXPR returns a series
wait_until() {
  local deadline=$((SECONDS + $1))
  until [[ "$(series_count "$2" 2>/dev/null)" =~ ^[1-9] ]]; do
    ((SECONDS < deadline)) || return 1
    sleep 2
  done
}

# A probe index (indexing, searches, refreshes) and, with the allocator, one probe tenant per
# index group (tenant metrics, managed indices for the per-group shard panels), then time for
# Prometheus to scrape it all twice and evaluate the rules.
short_seed_and_load() {
  local i g body=""
  es PUT "/$PROBE_INDEX" '{"settings":{"number_of_shards":1,"number_of_replicas":0}}' >/dev/null
  for ((i = 1; i <= 300; i++)); do
    body+="{\"index\":{}}"$'\n'"{\"n\":$i,\"title\":\"probe product $i\"}"$'\n'
  done
  curl -fsS --max-time 60 -X POST "$ES/$PROBE_INDEX/_bulk?refresh=wait_for" -H 'content-type: application/x-ndjson' \
    --data-binary "$body" >/dev/null
  if allocator_in_lab; then
    for g in $(groups); do
      curl -fsS --max-time 60 -X POST "http://$LAB_BIND:$ALLOCATOR_PORT/tenants" -H 'content-type: application/json' \
        -d "{\"id\":\"$PROBE_TENANT-$g\",\"name\":\"Observability probe\",\"expected_products\":10,\"group\":\"$g\"}" >/dev/null || true
    done
  fi
  for ((i = 0; i < 20; i++)); do
    es POST "/$PROBE_INDEX/_search" "{\"query\":{\"match\":{\"title\":\"product $i\"}}}" >/dev/null
    if allocator_in_lab; then
      for g in $(groups); do
        curl -fsS --max-time 10 -X POST "$ES/tenant-$PROBE_TENANT-$g/_search" -H 'content-type: application/json' \
          -d "{\"stats\":[\"tenant-$PROBE_TENANT-$g\"],\"query\":{\"match_all\":{}}}" >/dev/null 2>&1 || true
      done
    fi
  done
  wait_until 90 'sum(increase(elasticsearch_indices_indexing_index_total[1m])) > 0' || true
  if allocator_in_lab; then
    wait_until 90 'tenantlab:index_index_group:info' || true
    wait_until 60 'index_group:elasticsearch_search_queries:rate1m' || true
  fi
}

@test "every scrape target is up: Prometheus, the exporter and (when in the lab) the allocator; the load's is configured" {
  local deadline=$((SECONDS + 60)) targets bad
  while :; do
    targets="$(curl -fsS --max-time 10 "$PROM/api/v1/targets?state=active")"
    allocator_in_lab || targets="$(jq '.data.activeTargets |= map(select(.labels.job != "allocator"))' <<<"$targets")"
    # the load's endpoint exists only while a run lasts: its health is the next test's
    bad="$(jq -r '.data.activeTargets[] | select(.labels.job != "load" and .health != "up") | "\(.labels.job) \(.scrapeUrl): \(.health) \(.lastError)"' <<<"$targets")"
    [[ -z "$bad" ]] && break
    ((SECONDS < deadline)) || break
    sleep 2
  done
  assert_equal "$bad" ""
  run jq -r '[.data.activeTargets[].labels.job] | sort | join(" ")' <<<"$targets"
  if allocator_in_lab; then
    assert_output "allocator elasticsearch load prometheus"
  else
    assert_output "elasticsearch load prometheus"
  fi
  # every 5 s, at the load's port of lab.env (native) or its service (compose)
  run jq -r '.data.activeTargets[] | select(.labels.job == "load") | "\(.scrapeInterval) \(.scrapeUrl)"' <<<"$targets"
  assert_output --regexp '^5s http://[^ ]+/metrics$'
  [[ "$(runtime)" == compose ]] || assert_output "5s http://$LAB_BIND:$LOAD_METRICS_PORT/metrics"
}

@test "the load's target is up while a run lasts, with its tenantlab_load_* series" {
  background_load_started
  wait_until 120 'up{job="load"} == 1' \
    || fail "Prometheus never scraped the background load: $(curl -fsS --max-time 10 "$PROM/api/v1/targets?state=active" \
      | jq -c '[.data.activeTargets[] | select(.labels.job == "load") | {scrapeUrl, health, lastError}]'); $(tail -n 5 "$BATS_FILE_TMPDIR/load.log")"
  wait_until 60 'sum(rate(tenantlab_load_request_duration_seconds_count{scenario="storefront", index_group!="none"}[1m])) > 0' \
    || fail "the background load sent no storefront request to a group: $(tail -n 5 "$BATS_FILE_TMPDIR/load.log")"
  # every series of the interface, with its labels (counters a healthy run may not create aside:
  # late arrivals, cross-tenant hits)
  local q
  for q in \
    'tenantlab_load_request_duration_seconds_bucket{scenario="storefront", index_group=~"g.+", query_type!="", outcome="ok", le="+Inf"}' \
    'tenantlab_load_arrivals_total{scenario="storefront"}' \
    'tenantlab_load_checks_total{check!="", result="pass"}' \
    'tenantlab_load_in_flight{scenario="storefront"}' \
    'tenantlab_load_run_info{run_id!="", scenario!="", engine="locust", version!=""} == 1'; do
    [[ "$(series_count "$q")" =~ ^[1-9] ]] || fail "no series for $q"
  done
  # no tenant label: thousands of tenants would be thousands of series
  assert_equal "tenant-labelled load series: $(series_count '{__name__=~"tenantlab_load_.+", tenant!=""}')" "tenant-labelled load series: 0"
  # the recording rules over them
  wait_until 60 'index_group:tenantlab_load_requests:rate1m > 0' || fail "no index_group:tenantlab_load_requests:rate1m"
  wait_until 30 'index_group:tenantlab_load_request_duration_seconds:p95_1m > 0' \
    || fail "no index_group:tenantlab_load_request_duration_seconds:p95_1m"
}

@test "every recording and alert rule evaluates without error" {
  run curl -fsS --max-time 10 "$PROM/api/v1/rules"
  assert_success
  local rules="$output"
  [[ "$(jq '[.data.groups[].rules[]] | length' <<<"$rules")" -ge 20 ]] || fail "rules not loaded: $(jq -c '.data.groups | map(.name)' <<<"$rules")"
  run jq -r '.data.groups[] | .name as $g | .rules[] | select(.health == "err") | "\($g) \(.name): \(.lastError)"' <<<"$rules"
  assert_output ""
}

@test "the exporter reports every node of lab.env, and the index group join covers every data node" {
  local n
  # a node restarted by an earlier fault drill is back after the exporter's next scrape
  wait_until 60 "count(count by (name) (elasticsearch_jvm_uptime_seconds)) >= $(lab_nodes | wc -w)" || true
  run promq 'count by (name) (elasticsearch_jvm_uptime_seconds)'
  assert_success
  for n in $(lab_nodes); do
    jq -e --arg n "$n" 'map(.metric.name) | index($n)' <<<"$output" >/dev/null || fail "no exporter series for node $n"
  done
  [[ "$(series_count 'up{job="allocator"} == 1')" != 0 ]] || {
    allocator_in_lab && fail "the allocator is part of the lab but Prometheus cannot scrape it"
    skip "no allocator in this lab: no index group join"
  }
  # the allocator observes the nodes every 10 s, Prometheus scrapes and evaluates every 10 s:
  # a node restarted by a fault drill rejoins the map within about half a minute
  wait_until 90 "count(tenantlab:node_index_group:info) >= $(data_nodes | wc -l)" || true
  run promq 'tenantlab:node_index_group:info'
  assert_success
  for n in $(data_nodes); do
    assert_equal "$n $(jq -r --arg n "$n" '.[] | select(.metric.name == $n) | .metric.index_group' <<<"$output")" \
      "$n $(node_var "$n" GROUP)"
  done
}

# resolve_variables FILE: {"name": "(v1|v2)", ...} from the live Prometheus, as Grafana's All
# option does; a variable with no value is left out (its targets are reported, not queried).
resolve_variables() {
  local vals='{}' v name query sel label values
  while IFS= read -r v; do
    name="$(jq -r .name <<<"$v")"
    query="$(variable_query "$v")"
    if [[ "$query" =~ ^label_values\((.*),[[:space:]]*([A-Za-z_][A-Za-z0-9_]*)[[:space:]]*\)$ ]]; then
      sel="${BASH_REMATCH[1]}" label="${BASH_REMATCH[2]}"
    elif [[ "$query" =~ ^label_values\([[:space:]]*([A-Za-z_][A-Za-z0-9_]*)[[:space:]]*\)$ ]]; then
      sel="" label="${BASH_REMATCH[1]}"
    else
      echo "variable $name: unsupported query '$query'" >&2
      return 1
    fi
    values="$(curl -fsS --max-time 10 -G "$PROM/api/v1/label/$label/values" ${sel:+--data-urlencode "match[]=$sel"} \
      | jq -c '.data')" || return 1
    vals="$(jq -c --arg n "$name" --argjson vs "$values" --argjson var "$v" '
      if ($vs | length) > 0 then
        . + {($n): ("(" + ($vs | map(gsub("(?<c>[.*+?^${}()|\\[\\]\\\\])"; "\\\(.c)")) | join("|")) + ")")}
      elif $var.allValue then . + {($n): $var.allValue}
      else . end' <<<"$vals")"
  done < <(dashboard_variables "$1")
  echo "$vals"
}

# check_dashboard FILE: every target returns >= 1 series (retrying for a while: rates need two
# scrapes), or is skipped for a documented reason. Fails listing every empty or broken target.
check_dashboard() {
  local file="$DASHBOARDS_DIR/$1" vals t expr name n allocator_up load_data deadline
  local pending=() failures=() skipped=() checked=0
  vals="$(resolve_variables "$file")" || fail "cannot resolve the variables of $1"
  allocator_up="$(series_count 'up{job="allocator"} == 1')" || fail "Prometheus at $PROM does not answer: $allocator_up"
  load_data="$(series_count 'up{job="load"} == 1')" || fail "Prometheus at $PROM does not answer: $load_data"
  while IFS= read -r t; do
    expr="$(jq -r .expr <<<"$t")" name="$(target_name "$t")"
    if [[ "$expr" =~ \$\{?([A-Za-z_][A-Za-z0-9_]*) ]]; then
      # the probe and the background load give every variable values: none is a failure
      failures+=("$name: variable \$${BASH_REMATCH[1]} has no value in Prometheus :: $(jq -r .raw <<<"$t")")
    elif [[ "$expr" =~ tenantlab_load_ ]]; then
      if [[ "$load_data" == 0 ]]; then
        failures+=("$name: Prometheus scrapes no load (job load down) though this file started one")
      else
        pending+=("$t")
      fi
    elif [[ "$expr" =~ tenantlab_|tenantlab:|index_group: ]] && [[ "$allocator_up" == 0 ]]; then
      if allocator_in_lab; then
        failures+=("$name: the allocator is part of the lab but its scrape target is down")
      else
        skipped+=("$name: no allocator in this lab")
      fi
    else
      pending+=("$t")
    fi
  done < <(dashboard_targets "$file" "$vals")

  deadline=$((SECONDS + 45))
  while ((${#pending[@]})); do
    local still=()
    for t in "${pending[@]}"; do
      n="$(series_count "$(jq -r .expr <<<"$t")")" || true
      if [[ "$n" =~ ^[1-9] ]]; then
        checked=$((checked + 1))
      elif [[ "$n" == error* ]]; then
        failures+=("$(target_name "$t"): $n :: $(jq -r .expr <<<"$t")")
      else
        still+=("$t")
      fi
    done
    pending=("${still[@]}")
    ((${#pending[@]} == 0 || SECONDS >= deadline)) && break
    sleep 5
  done
  for t in "${pending[@]}"; do failures+=("$(target_name "$t"): no series :: $(jq -r .expr <<<"$t")"); done

  for t in "${skipped[@]}"; do echo "# skipped target: $t" >&3; done
  if ((${#failures[@]})); then
    fail "$(printf '%s\n' "$1: ${#failures[@]} target(s) failed, $checked returned series:" "${failures[@]}")"
  fi
  ((checked > 0)) || fail "$1: no target checked (${#skipped[@]} skipped: $(printf '%s; ' "${skipped[@]}" | cut -c1-200))"
}

@test "Cluster overview: every panel target returns series" {
  check_dashboard cluster-overview.json
}

# wait_for_baseline: the Index groups dashboard draws each group's baseline and relative limit,
# series the allocator exports only once it has learned the group's normal from what it judges the
# group by now (learning.js, baseline.js: about a minute of this file's background load on a lab
# whose allocator learned nothing yet, more after a history of bursts: the baseline waits while a
# store's share has risen). Waits for a ready baseline (or the stale one a restart kept) in some
# group, for at most the background load's length (150 s); else fails with what each group's
# baseline waits on.
wait_for_baseline() {
  local deadline=$((SECONDS + 150)) out=''
  while ((SECONDS < deadline)); do
    out="$(api GET /groups)" || out=''
    [[ "$out" == 200\ * ]] && jq -e '[.groups[].latency | select(. != null) | .baseline | select(. != null and (.ready or .stale))] | length > 0' <<<"${out#200 }" >/dev/null && return 0
    sleep 3
  done
  fail "no group's baseline was ready within 150 s of the background load: $(jq -c '[.groups[] | {name, signal: .latency.signal, p95_ms: .latency.p95_ms, baseline: (.latency.baseline | if . then {ready, samples, span_s} else null end), learning: .latency.learning}]' <<<"${out#* }" 2>/dev/null || echo "${out:0:300}")"
}

@test "Index groups: every panel target returns series (needs the allocator's node -> group map)" {
  background_load_started
  ! allocator_in_lab || wait_for_baseline
  check_dashboard index-groups.json
}

@test "Ingest: every panel target returns series" {
  check_dashboard ingest.json
}

@test "Tenants: every panel target returns series (needs the allocator)" {
  check_dashboard tenants.json
}

@test "Load: every panel target returns series (needs a load run scraped by Prometheus)" {
  background_load_started
  wait_until 120 'sum(rate(tenantlab_load_request_duration_seconds_count[1m])) > 0' \
    || fail "Prometheus scraped no request of the background load: $(tail -n 5 "$BATS_FILE_TMPDIR/load.log")"
  check_dashboard load.json
}

@test "group health judges each group on the load's p95 while Prometheus scrapes a run (make hot, GET /hot)" {
  background_load_started
  allocator_in_lab || skip "no allocator in this lab"
  # the allocator's own query (the shoppers' p95 per group over 30 s); a name it no longer
  # exports fails here, not as an empty query
  local query
  query="$(node --input-type=module -e "import { loadP95Query } from '$REPO/allocator/src/observe/load-latency.js'; console.log(loadP95Query(30))")" \
    || fail "allocator/src/observe/load-latency.js has no loadP95Query"
  [[ "$query" == histogram_quantile* ]] || fail "loadP95Query(30) is not a p95 query: $query"
  wait_until 120 "max($query) > 0" \
    || fail "Prometheus has no p95 by index group of the background load: $(tail -n 5 "$BATS_FILE_TMPDIR/load.log")"
  local body="" i
  for ((i = 0; i < 30; i++)); do
    body="$(curl -fsS --max-time 30 "$ALLOCATOR/hot")" || true
    [[ "$(jq '[.groups[] | select(.load_p95_ms | type == "number" and . > 0)] | length' <<<"$body" 2>/dev/null)" -gt 0 ]] && break
    sleep 2
  done
  [[ "$(jq '[.groups[] | select(.load_p95_ms | type == "number" and . > 0)] | length' <<<"$body")" -gt 0 ]] \
    || fail "no group of GET /hot has a load p95: $(jq -c '[.groups[] | {group, load_p95_ms}]' <<<"$body")"
  # and the group is judged on it: what its shoppers feel, not the probe
  [[ "$(jq '[.groups[] | select(.load_p95_ms != null and .signal == "load" and .p95_ms == .load_p95_ms)] | length' <<<"$body")" -gt 0 ]] \
    || fail "a group with a load p95 is not judged on it: $(jq -c '[.groups[] | {group, signal, p95_ms, load_p95_ms}]' <<<"$body")"
  run make -s -C "$REPO" hot
  assert_success
  assert_output --regexp 'load p95'
}

@test "Home: every panel target whose source is up returns series" {
  check_dashboard home.json
}
