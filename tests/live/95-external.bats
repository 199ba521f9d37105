#!/usr/bin/env bats
# RUNTIME=external: the lab's tools on an existing cluster that wants TLS and credentials. The
# test lab's cluster is put behind a TLS-terminating proxy with basic auth and an API-key check
# (tests/lib/external.bash: Debian's nginx, a CA and certificate made here); a second lab, of no
# nodes, is started on it with `make up RUNTIME=external`: its allocator, exporter and Prometheus,
# the seeder, `make load` and a QUICK experiment all go through the proxy. A wrong password, a
# wrong key and an untrusted certificate are one line each; no secret appears in a log, a result
# file or the process list. Native test lab only (the compose run would repeat the same code).

bats_require_minimum_version 1.5.0

setup_file() {
  load ../lib/lab
  load ../lib/external
  [[ "$(lab_runtime)" == native ]] || return 0
  local dir="$BATS_FILE_TMPDIR/ext" port
  for ((port = 14443; port < 14543; port++)); do ss -Hltn "sport = :$port" | grep -q . || break; done
  export PROXY_PORT="$port"
  proxy_setup "$dir" "$ES_MASTER_HTTP_PORT"
  start_proxy "$dir"
  # the external lab: its own folder, services on ports of their own, its own allocator state
  # and tenants, so the test lab's are untouched
  cat >"$BATS_FILE_TMPDIR/ext.env" <<ENV
LAB_DIR=$dir/lab
RUNTIME=external
ES_URL=https://127.0.0.1:$PROXY_PORT
ES_USERNAME=lab
ES_PASSWORD_FILE=$dir/secrets/password
ES_CA_CERT=$dir/ca.pem
ALLOCATOR_INDEX_PREFIX=tenantlab-ext-
SEED_TENANT_PREFIX=ext
ALLOCATOR_PORT=$((ALLOCATOR_PORT + 3000))
ES_EXPORTER_PORT=$((ES_EXPORTER_PORT + 3000))
PROMETHEUS_PORT=$((PROMETHEUS_PORT + 3000))
ENV
}

teardown_file() {
  load ../lib/lab
  load ../lib/external
  [[ "$(lab_runtime)" == native ]] || return 0
  local dir="$BATS_FILE_TMPDIR/ext" i
  env $(cat "$BATS_FILE_TMPDIR/ext.env") "$REPO/scripts/lab" down >/dev/null 2>&1 || true
  stop_proxy "$dir"
  # what the external lab made on the test lab's cluster: its allocator's indices and template
  for i in $(es GET "/_cat/indices/tenantlab-ext-*?h=index&expand_wildcards=all" 2>/dev/null); do es DELETE "/$i" >/dev/null || true; done
  es DELETE "/_index_template/tenantlab-ext-*" >/dev/null 2>&1 || true
}

setup() {
  load ../lib/lab
  load ../lib/external
  load ../lib/experiments
  [[ "$(lab_runtime)" == native ]] || skip "RUNTIME=external: checked against the native test lab"
  cd "$REPO"
  DIR="$BATS_FILE_TMPDIR/ext"
  unset PROFILE SEED NAME QUICK REPEAT LAB
}

# ext CMD...: CMD with the external lab's settings
ext() { env $(cat "$BATS_FILE_TMPDIR/ext.env") "$@"; }
ext_var() { sed -n "s/^$1=//p" "$BATS_FILE_TMPDIR/ext.env"; }
# the secrets and the Authorization values made of them; never an empty pattern (grep -f
# with an empty line matches everything, with no line nothing)
secrets() {
  local pw key
  pw="$(cat "$DIR/secrets/password")" key="$(cat "$DIR/secrets/api-key")"
  [[ -n "$pw" && -n "$key" ]] || { echo "secrets: the password or the API key under $DIR/secrets is missing" >&2; return 1; }
  printf '%s\n' "$pw" "$key" "$(printf 'lab:%s' "$pw" | base64 -w0)"
}
# refute_secret_in FILE|DIR...: each exists and holds something, and no secret is in any
# (grep: 1 = no match; 2, an unreadable path, fails too)
refute_secret_in() {
  local p patterns="$BATS_TEST_TMPDIR/secret-patterns"
  secrets >"$patterns" || fail "no secrets to look for"
  for p in "$@"; do
    if [[ -d "$p" ]]; then
      [[ -n "$(find "$p" -type f -size +0 -print -quit)" ]] || fail "$p holds no file with content: nothing to look for a secret in"
    else
      [[ -s "$p" ]] || fail "$p is missing or empty: nothing to look for a secret in"
    fi
  done
  run grep -rlF -f "$patterns" -- "$@"
  assert_failure 1
  assert_output ""
}
# jvms: the JVMs of the test lab and of the external lab (pids by their LAB_DIR), never the
# machine's: a developer's own lab beside the tests has JVMs too
jvms() { echo "test lab: $(lab_jvm_pids "$LAB_DIR" | paste -sd' '); external lab: $(lab_jvm_pids "$(ext_var LAB_DIR)" | paste -sd' ')"; }

@test "a wrong password is one line naming the cluster and the 401; nothing is started" {
  run --separate-stderr ext ES_PASSWORD_FILE= ES_PASSWORD=wrong-password "$REPO/scripts/lab" up
  assert_failure
  assert_equal "$(grep -c '^error:' <<<"$stderr")" 1
  assert_regex "$stderr" "error: Elasticsearch at https://127\.0\.0\.1:$PROXY_PORT: HTTP 401 Unauthorized.*ES_PASSWORD"
  [[ ! -e "$(ext_var LAB_DIR)/runtime" ]]
  assert_equal "$(ext bash -c 'source scripts/lib/config.sh; source scripts/lib/process.sh; lab_process_pids')" ""
  # and a wrong API key
  run --separate-stderr ext ES_USERNAME= ES_PASSWORD_FILE= ES_API_KEY=d3Jvbmc6a2V5 packages/contract/bin/connection check
  assert_failure 3
  assert_regex "$stderr" "^error: Elasticsearch at https://127\.0\.0\.1:$PROXY_PORT: HTTP 401 Unauthorized.*ES_API_KEY"
}

@test "an untrusted certificate is one line naming ES_CA_CERT; no group attribute names the setting to add" {
  run --separate-stderr ext ES_CA_CERT="$DIR/other-ca.pem" "$REPO/scripts/lab" up
  assert_failure
  assert_equal "$(grep -c '^error:' <<<"$stderr")" 1
  assert_regex "$stderr" "error: Elasticsearch at https://127\.0\.0\.1:$PROXY_PORT: the cluster's TLS certificate is not trusted .*set ES_CA_CERT"
  run --separate-stderr ext LAB_GROUP_ATTR=rack "$REPO/scripts/lab" up
  assert_failure
  assert_regex "$stderr" "error: no node of the cluster at https://127\.0\.0\.1:$PROXY_PORT carries node\.attr\.rack.*add 'node\.attr\.rack: g1'"
  [[ ! -e "$(ext_var LAB_DIR)/runtime" ]]
  # bad settings: one line each, before anything is contacted
  run --separate-stderr ext ES_TLS_VERIFY=maybe "$REPO/scripts/lab" up
  assert_failure 2
  assert_regex "$stderr" "ES_TLS_VERIFY=maybe: want true"
  run --separate-stderr ext ES_PASSWORD_FILE="$REPO/lab.env" "$REPO/scripts/lab" up
  assert_failure 2
  assert_regex "$stderr" "inside the repository"
}

@test "make up RUNTIME=external: no node started; allocator, exporter and Prometheus work through the proxy; groups from the node attributes" {
  local jvms_before
  jvms_before="$(jvms)"
  [[ "$jvms_before" == "test lab: "[0-9]*"; external lab: " ]] || fail "the test lab's JVMs were not found by its LAB_DIR: $jvms_before"
  run ext SEED=0 make -s up
  assert_success
  assert_output --partial "index groups by node.attr.$LAB_GROUP_ATTR: g1 (2 nodes), g2 (2 nodes)"
  assert_output --partial "no Elasticsearch node is started"
  # no JVM started: the test lab's the same ones, the external lab's none (its services are
  # processes of its own: they are found by its LAB_DIR)
  assert_equal "$(jvms)" "$jvms_before"
  [[ -n "$(lab_dir_pids "$(ext_var LAB_DIR)")" ]] || fail "no process of the external lab found by its LAB_DIR"
  assert_equal "$(cat "$(ext_var LAB_DIR)/runtime")" external
  # connection.env keeps the settings, never a secret
  assert_equal "$(sed -n 's/^ES_URL=//p' "$(ext_var LAB_DIR)/connection.env" | tr -d "'\"")" "https://127.0.0.1:$PROXY_PORT"
  refute_secret_in "$(ext_var LAB_DIR)/connection.env"
  # the allocator discovered the groups from the cluster
  run curl -fsS "http://127.0.0.1:$(ext_var ALLOCATOR_PORT)/groups"
  assert_success
  assert_equal "$(jq -r '[.groups[].name] | sort | join(",")' <<<"$output")" "g1,g2"
  # the exporter scrapes the cluster through the proxy: health and every node of the cluster
  run curl -fsS "http://127.0.0.1:$(ext_var ES_EXPORTER_PORT)/metrics"
  assert_success
  assert_regex "$output" 'elasticsearch_cluster_health_status\{[^}]*color="green"[^}]*\} 1'
  assert_regex "$output" 'elasticsearch_cluster_health_number_of_nodes\{[^}]*\} '"$(lab_nodes | wc -w)"
  # Prometheus scrapes the exporter and the allocator
  local up
  for _ in $(seq 1 30); do
    up="$(curl -fsS "http://127.0.0.1:$(ext_var PROMETHEUS_PORT)/api/v1/query" --data-urlencode 'query=sum(up)' | jq -r '.data.result[0].value[1] // 0')"
    [[ "$up" -ge 3 ]] && break
    sleep 2
  done
  assert_equal "$up" 3
  run ext make -s status
  assert_success
  assert_output --partial "cluster: green at https://127.0.0.1:$PROXY_PORT (user lab, TLS checked against $DIR/ca.pem)"
  # a node of the cluster is not the lab's to kill
  run --separate-stderr ext make -s node-kill NODE=es-data-1
  assert_failure
  assert_regex "$stderr" "not the lab's to kill"
}

@test "the seeder and make load go through the proxy: exact counts, no failed request" {
  # a tenth of the ci catalog: the path through the proxy is what is checked, not the volume
  run ext PROFILE=ci SEED_SCALE=0.1 SEED_PROGRESS=plain make -s seed
  assert_success
  assert_output --partial "every tenant matches the manifest"
  # the documents are on the cluster behind the proxy
  local total
  total="$(es GET "/tenant-ext-*/_count" | jq -r .count)"
  assert_equal "$total" "$(ext PROFILE=ci SEED_SCALE=0.1 seed-data/bin/tenantlab-seed manifest | jq -r '[.tenants[].expected_products] | add')"
  run ext make -s load SCENARIO=storefront DURATION=15s RATE=5 TENANTS='ext-*'
  assert_success
  local summary
  summary="$(ls -d "$(ext_var LAB_DIR)"/results/*-storefront-*/summary.json | tail -n 1)"
  assert_equal "$(jq -r '.metrics.http_reqs.values.count > 0' "$summary")" true
  assert_equal "$(jq -r '.metrics.http_req_failed.values.rate' "$summary")" 0
}

@test "a QUICK experiment runs on the external cluster as it is; one that changes the topology is refused in one line" {
  # a write experiment: k6's bulks and the runner's count of every acknowledged document, both
  # through the proxy
  run ext make -s experiment NAME=azure-refresh QUICK=1 REPEAT=1
  assert_success
  assert_output --partial "verdicts:"
  local r
  r="$(ls -d "$REPO/.lab/results/experiments/azure-refresh"/*/ | sort | tail -n 1)results.json"
  assert_equal "$(jq -r .lab.es_url "$r")" "https://127.0.0.1:$PROXY_PORT"
  assert_equal "$(jq -r .environment.runtime "$r")" external
  run_complete "$r"
  # every repetition's index held every document its clients saw acknowledged
  assert_equal "$(jq '[.variants[].repetitions[] | select(.complete and .integrity.count > 0 and .integrity.count == .integrity.acknowledged)] | length' "$r")" \
    "$(jq '[.variants[].repetitions[]] | length' "$r")"
  refute_secret_in "$(dirname "$r")"
  run --separate-stderr ext make -s experiment NAME=appbase-write-scaling QUICK=1
  assert_failure 2
  assert_regex "$stderr" "^error: appbase-write-scaling changes the topology"
  run --separate-stderr ext make -s experiment NAME=h1-shard-count QUICK=1 LAB=own
  assert_failure 2
  assert_regex "$stderr" "LAB=own: the lab is the external cluster"
}

@test "no secret in the process list, the lab's logs, its results or its files" {
  [[ -e "$(ext_var LAB_DIR)/runtime" ]] || fail "the external lab is not running (make up RUNTIME=external failed above): nothing to look at"
  secrets >"$BATS_TEST_TMPDIR/patterns" || fail "no secrets to look for"
  # the process list (whole command lines), with the external lab's processes in it
  local ps_args ext_pids p
  ps_args="$(ps -e -ww -o pid=,args=)"
  ext_pids="$(lab_dir_pids "$(ext_var LAB_DIR)")"
  [[ -n "$ext_pids" ]] || fail "no process of the external lab found by its LAB_DIR: nothing to look at"
  for p in $ext_pids; do grep -qE "^ *$p " <<<"$ps_args" || fail "pid $p of the external lab is not in the process list"; done
  run grep -cF -f "$BATS_TEST_TMPDIR/patterns" <<<"$ps_args"
  assert_output 0
  refute_secret_in "$(ext_var LAB_DIR)"
  # the exporter got its credentials through its environment, not its command line
  local pid cmdline
  pid="$(cut -d' ' -f1 "$(ext_var LAB_DIR)/run/es-exporter.pid")"
  tr '\0' '\n' <"/proc/$pid/environ" | grep -qx "ES_USERNAME=lab" || fail "the exporter has no ES_USERNAME in its environment"
  cmdline="$(tr '\0' ' ' <"/proc/$pid/cmdline")"
  [[ -n "$cmdline" ]] || fail "the exporter (pid $pid) has no command line to look at"
  run grep -cF -f "$BATS_TEST_TMPDIR/patterns" <<<"$cmdline"
  assert_output 0
}

@test "an API key and ES_TLS_VERIFY=false: make up RUNTIME=external through the proxy, said unchecked; exporter, allocator and seeder on the key" {
  # the external lab again, with the proxy's API key instead of the user, and no CA: the
  # certificate is not checked
  local keyenv="$BATS_FILE_TMPDIR/ext-key.env"
  { grep -v -e '^ES_USERNAME=' -e '^ES_PASSWORD_FILE=' -e '^ES_CA_CERT=' "$BATS_FILE_TMPDIR/ext.env"
    printf 'ES_USERNAME=\nES_PASSWORD_FILE=\nES_CA_CERT=\nES_API_KEY_FILE=%s\nES_TLS_VERIFY=false\n' "$DIR/secrets/api-key"; } >"$keyenv"
  extkey() { env $(cat "$BATS_FILE_TMPDIR/ext-key.env") "$@"; }
  # the basic-auth lab of the tests above makes way (its data on the cluster stays), and with it
  # the settings it kept (connection.env: its user, its CA)
  run ext make -s down
  assert_success
  [[ ! -e "$(ext_var LAB_DIR)/connection.env" ]] || fail "make down left connection.env"
  # the key is good and the certificate untrusted here: ES_TLS_VERIFY=false is what lets it through
  run --separate-stderr extkey packages/contract/bin/connection check
  assert_success
  run --separate-stderr extkey ES_TLS_VERIFY=true packages/contract/bin/connection check
  assert_failure
  assert_regex "$stderr" "^error: Elasticsearch at https://127\.0\.0\.1:$PROXY_PORT: the cluster's TLS certificate is not trusted"

  run extkey SEED=0 make -s up
  assert_success
  assert_output --partial "warning: ES_TLS_VERIFY=false: the cluster's certificate is not checked"
  assert_output --partial "index groups by node.attr.$LAB_GROUP_ATTR: g1 (2 nodes), g2 (2 nodes)"
  run extkey make -s status
  assert_success
  assert_output --partial "cluster: green at https://127.0.0.1:$PROXY_PORT (an API key, TLS NOT checked (ES_TLS_VERIFY=false))"

  # the exporter: the key in its environment (no user), the cluster green and every node seen
  local pid
  pid="$(cut -d' ' -f1 "$(ext_var LAB_DIR)/run/es-exporter.pid")"
  tr '\0' '\n' <"/proc/$pid/environ" | grep -qx "ES_API_KEY=$(cat "$DIR/secrets/api-key")" || fail "the exporter has not the API key in its environment"
  ! tr '\0' '\n' <"/proc/$pid/environ" | grep -q "^ES_USERNAME=." || fail "the exporter has a user in its environment"
  local metrics="" i
  for i in $(seq 1 15); do
    metrics="$(curl -fsS "http://127.0.0.1:$(ext_var ES_EXPORTER_PORT)/metrics")" || true
    [[ "$metrics" =~ elasticsearch_cluster_health_status\{[^}]*color=\"green\"[^}]*\}\ 1 ]] && break
    sleep 1
  done
  assert_regex "$metrics" 'elasticsearch_cluster_health_status\{[^}]*color="green"[^}]*\} 1'
  assert_regex "$metrics" 'elasticsearch_cluster_health_number_of_nodes\{[^}]*\} '"$(lab_nodes | wc -w)"

  # the allocator writes through the key: make tenant-add, three products, make tenant-rm
  local t=ext-keyprobe
  run extkey make -s tenant-add ID="$t" PRODUCTS=3 GROUP=g2
  assert_success
  assert_output --regexp "^$t -> tenantlab-ext-[^ ]+ \(group g2, shared\), alias $(alias_of "$t")$"
  write_products "$t" 1 3
  es POST "/$(alias_of "$t")/_refresh" >/dev/null
  run extkey make -s tenant-rm ID="$t"
  assert_success
  assert_output "deleted $t (3 documents)"
  run curl -s -o /dev/null -w '%{http_code}' "$ES/_alias/$(alias_of "$t")"
  assert_output 404

  # the seeder reads through the key: the catalog seeded through the user above, exact
  run extkey PROFILE=ci SEED_SCALE=0.1 SEED_PROGRESS=plain make -s seed-verify
  assert_success
  assert_output --partial "every tenant matches the manifest"

  # and the key is nowhere: files, logs, process list
  refute_secret_in "$(ext_var LAB_DIR)"
  run grep -cF "$(cat "$DIR/secrets/api-key")" <<<"$(ps -e -ww -o args)"
  assert_output 0
}

@test "make bench-external runs end to end on the test lab: the storefront straight and through its own proxy, a result kept; bad input is one line" {
  # a behaviour check, not a figure: one round of a few seconds each way (the figures are the
  # committed run's, tests/bench/results/bench-external.json)
  run --separate-stderr env ROUNDS=0 make -s bench-external
  assert_failure 2
  assert_regex "$stderr" "^error: ROUNDS=0: want a number of rounds"
  # the test lab's own tenants (40-seed.bats loads the ci profile); a tenth of it if they are gone
  if [[ "$(curl -fsS "$ALLOCATOR/tenants" | jq '.tenants | length')" == 0 ]]; then
    PROFILE=ci SEED_SCALE=0.1 make -s seed >/dev/null
  fi
  local before
  before="$(ls -d "$LAB_DIR"/results/*-bench-external 2>/dev/null | wc -l)"
  run --separate-stderr env -u BENCH_SAVE ROUNDS=1 RATE=5 DURATION=5s make -s bench-external
  assert_success
  assert_regex "$output" "p95 ms +direct +[0-9.]+ +through the proxy +[0-9.]+ +B/A [0-9.]+x"
  # no proxy left behind: its nginx and the timeout that bounds it are gone
  ! pgrep -f "nginx.*bench-external" >/dev/null || fail "bench-external left its proxy running"
  local r
  r="$(ls -d "$LAB_DIR"/results/*-bench-external | sort | tail -n 1)/bench-external.json"
  assert_equal "$(ls -d "$LAB_DIR"/results/*-bench-external | wc -l)" "$((before + 1))"
  # one round each way, every request answered, through the proxy as well as straight
  assert_equal "$(jq -c '[(.direct | length), (.proxied | length), ([.direct[], .proxied[]] | map(select(.rps > 0 and .failed_rate == 0)) | length)]' "$r")" "[1,1,2]"
  assert_equal "$(jq -r '.bench' "$r")" bench-external
  # the committed result is untouched
  git -C "$REPO" diff --quiet -- tests/bench/results/bench-external.json || fail "the committed result was rewritten"
}
