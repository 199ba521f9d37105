#!/usr/bin/env bats
# Generated files (`make render`) and the one topology model, without a lab: the committed
# generated files are fresh, an edited one is named by `make render CHECK=1`, and a copy of
# lab.env with another topology (three groups of two data nodes; one data node under a renamed
# master) renders a compose model the real Compose v2 accepts, whose nodes, groups and
# depends_on follow, with no other edit. A broken topology stops `make up` with one line.
# Edits happen in copies (tests/lib/topology.bash: repo_copy), never in the checkout.

# shellcheck disable=SC2016,SC2154 # jq programs are single-quoted on purpose; run sets $stderr
bats_require_minimum_version 1.5.0

load ../lib/copy-suite

# copy_model DIR OUT: the compose model of the copy DIR (its runtimes/compose/bin/lab's file list and its
# lab.env; the `load` profile too, so locust is in it) as JSON in OUT; Compose's warnings go to OUT.err
copy_model() {
  local files
  mapfile -t files < <(in_copy "$1" runtimes/compose/bin/lab files)
  in_copy "$1" "$DC" --project-directory "$1" "${files[@]}" --env-file lab.env --profile load config --format json >"$2" 2>"$2.err"
}

# es_nodes MODEL: the services running lab.env's Elasticsearch image, sorted
es_nodes() {
  jq -r --arg i "$(env_value ES_IMAGE):$(env_value ES_VERSION)" '.services | to_entries[] | select(.value.image == $i) | .key' "$1" | sort
}

# flag_of MODEL NODE SETTING: the value of -ESETTING=... on NODE's command line, empty if absent
flag_of() { jq -r --arg s "$2" --arg k "-E$3=" '.services[$s].command[] | select(startswith($k)) | ltrimstr($k)' "$1"; }

# depends MODEL SERVICE: the services SERVICE waits for, sorted, on one line
depends() { jq -r --arg s "$2" '.services[$s].depends_on // {} | keys[]' "$1" | sort | paste -sd ' '; }

@test "make render CHECK=1 passes on the committed tree and changes nothing" {
  local before
  before="$(git status --porcelain -- runtimes/compose k8s/generated grafana-dashboards)"
  run clean_env make -s render CHECK=1
  assert_success
  refute_output --partial stale
  assert_equal "$(git status --porcelain -- runtimes/compose k8s/generated grafana-dashboards)" "$before"
}

@test "the published runs hold only what the table and the reports are made of, and no machine's path" {
  # a run's folder under .lab/ also has its allocators' logs and policies (with this machine's
  # paths): those stay local; experiments/README.md says what is published
  local extra paths
  extra="$(git ls-files experiments/results | grep -vE '^experiments/results/[^/]+/(results\.json|report\.(md|html)|[^/]+\.svg)$' || true)"
  assert_equal "not published: ${extra//$'\n'/ }" "not published: "
  paths="$(git grep -lE '(/work/|/home/|/root/|/tmp/)[A-Za-z0-9._-]+/' -- experiments/results || true)"
  assert_equal "machine paths in: ${paths//$'\n'/ }" "machine paths in: "
}

@test "make render CHECK=1 fails naming an edited or missing generated file; make render repairs it" {
  local copy="$BATS_TEST_TMPDIR/repo"
  repo_copy "$copy"
  echo "# a hand edit" >>"$copy/runtimes/compose/nodes.generated.yml"
  cp "$copy/runtimes/compose/nodes.generated.yml" "$BATS_TEST_TMPDIR/edited.yml"

  run in_copy "$copy" make -s render CHECK=1
  assert_failure
  assert_output --partial "stale: runtimes/compose/nodes.generated.yml"
  assert_output --partial "run 'make render'"
  cmp -s "$copy/runtimes/compose/nodes.generated.yml" "$BATS_TEST_TMPDIR/edited.yml" || fail "CHECK=1 changed the file"

  run in_copy "$copy" make -s render
  assert_success
  assert_output --partial "rendered: runtimes/compose/nodes.generated.yml"
  cmp "$copy/runtimes/compose/nodes.generated.yml" "$REPO/runtimes/compose/nodes.generated.yml"
  run in_copy "$copy" make -s render CHECK=1
  assert_success

  rm "$copy/runtimes/compose/nodes.generated.yml"
  run in_copy "$copy" make -s render CHECK=1
  assert_failure
  assert_output --partial "stale: runtimes/compose/nodes.generated.yml (missing)"
}

@test "make render CHECK=1 fails on a figure typed by hand into README.md, naming its line; generated tables may hold figures" {
  local copy="$BATS_TEST_TMPDIR/repo"
  repo_copy "$copy"
  cp "$REPO/README.md" "$copy/README.md"
  run in_copy "$copy" node scripts/lib/readme-figures.mjs README.md
  assert_success
  printf '\nThe demo profile loads in about a minute (16.9k docs/s); make load answers in 172.6 ms.\n' >>"$copy/README.md"
  run in_copy "$copy" make -s render CHECK=1
  assert_failure
  local n
  n="$(wc -l <"$copy/README.md")"
  assert_output --partial "README.md:$n: '16.9k docs/s' is a figure typed by hand: quote a committed result through make render (a generated block), or leave it out"
  assert_output --partial "README.md:$n: '172.6 ms' is a figure typed by hand"
}

# render_follows COPY PAGE...: with a changed result in COPY, make render CHECK=1 names each PAGE
# stale, and make render writes them
render_follows() {
  local copy="$1" page
  shift
  run in_copy "$copy" make -s render CHECK=1
  assert_failure
  for page in "$@"; do assert_output --partial "stale: $page"; done
  run in_copy "$copy" make -s render
  assert_success
}

# bench_copy COPY DIR GENERATOR: a copy of the repository's generators with DIR (the bench folder
# holding GENERATOR and its committed results) and docs/benchmarks.md, whose figures are up to date
bench_copy() {
  repo_copy "$1"
  mkdir -p "$1/$(dirname "$2")" "$1/docs"
  cp -r "$REPO/$2" "$1/$(dirname "$2")/"
  cp "$REPO/docs/benchmarks.md" "$1/docs/"
  run in_copy "$1" node "$3" --check
  assert_success
}

# missing_result_is_one_line COPY GENERATOR RESULT BENCH: without its committed result, the
# generator says which benchmark writes it, one line, exit 2
missing_result_is_one_line() {
  rm "$1/$3"
  run in_copy "$1" node "$2" --check
  assert_equal "$status" 2
  assert_output "error: $3 is missing: BENCH_SAVE=$3 make $4 writes it"
}

@test "make bench-seed's figures are rendered from its committed result: a changed result makes both pages stale, make render writes them, a missing one is one line" {
  local copy="$BATS_TEST_TMPDIR/repo" result=seed-data/bench/results/bench-seed.json
  repo_copy "$copy"
  mkdir -p "$copy/seed-data" "$copy/docs"
  cp -r "$REPO/seed-data/bench" "$REPO/seed-data/README.md" "$copy/seed-data/"
  cp "$REPO/docs/benchmarks.md" "$copy/docs/"
  run in_copy "$copy" node seed-data/bench/figures.js --check
  assert_success
  # the seeder twice as fast as committed: every figure that depends on it follows
  jq '.variants.seeder.best_rate = 54321.4' "$REPO/$result" >"$copy/$result"
  render_follows "$copy" docs/benchmarks.md seed-data/README.md
  grep -q '| seeder | 54,321 |' "$copy/docs/benchmarks.md" || fail "docs/benchmarks.md does not show the new rate"
  grep -q '| seeder | 54,321 |' "$copy/seed-data/README.md" || fail "seed-data/README.md does not show the new rate"
  run in_copy "$copy" make -s render CHECK=1
  assert_success
  missing_result_is_one_line "$copy" seed-data/bench/figures.js "$result" bench-seed
}

@test "make bench-startup's figures are rendered from its committed result: a slower start shows as missed, a missing result is one line" {
  local copy="$BATS_TEST_TMPDIR/repo" result=tests/bench/results/bench-startup.json
  bench_copy "$copy" tests/bench tests/bench/figures.mjs
  jq '.up_seed0_s = [61.2, 60.5, 75.0] | .up_seed0_no_aot_s = [80.0, 81.0, 90.0] | .seeded.first_load.storefront_p95_ms = 320.5' "$REPO/$result" >"$copy/$result"
  render_follows "$copy" docs/benchmarks.md
  grep -qF '| 61.2 s (rounds: 61.2, 60.5, 75.0) | <= 30 s: **missed** |' "$copy/docs/benchmarks.md" || fail "docs/benchmarks.md does not show the slower start"
  grep -qF '| 320.5 ms | <= 150 ms: **missed** |' "$copy/docs/benchmarks.md" || fail "docs/benchmarks.md does not show the slower first load"
  # the baseline without the AOT cache, and the ratio against it (61.2 / 81.0)
  grep -qF '| 81.0 s (rounds: 80.0, 81.0, 90.0); with the cache 0.76x | the baseline |' "$copy/docs/benchmarks.md" || fail "docs/benchmarks.md does not show the AOT baseline"
  missing_result_is_one_line "$copy" tests/bench/figures.mjs "$result" bench-startup
}

@test "make bench-startup's SHAPE=off round is rendered beside the shaped one, as ratios against it" {
  local copy="$BATS_TEST_TMPDIR/repo" result=tests/bench/results/bench-startup.json
  bench_copy "$copy" tests/bench tests/bench/figures.mjs
  jq '.lab.shape = "groups" | .seeded.up_s = 150 | .seeded.seed_rate = 9000 | .seeded.first_load.storefront_p95_ms = 80
      | .seeded.unshaped = {up_s: 120, documents: 1000000, seed_s: 80, seed_rate: 12500, warmup_s: 30, first_load: {storefront_p95_ms: 40, storefront_avg_ms: 20, storefront_requests: 600, verdict: "pass"}}' \
    "$REPO/$result" >"$copy/$result"
  render_follows "$copy" docs/benchmarks.md
  grep -F 'with `SHAPE=off`' "$copy/docs/benchmarks.md" | grep -qF '| 120.0 s; SHAPE=groups 1.25x | the baseline |' || fail "the unshaped make up and its ratio (150 / 120) are not shown"
  grep -qF '| 12,500 docs/s; SHAPE=groups 0.72x | the baseline |' "$copy/docs/benchmarks.md" || fail "the unshaped seeding and its ratio (9000 / 12500) are not shown"
  grep -qF '| 40.0 ms; SHAPE=groups 2.00x | the baseline |' "$copy/docs/benchmarks.md" || fail "the unshaped first load and its ratio (80 / 40) are not shown"
}

@test "make bench-allocator's figures are rendered from its committed result: a slower API shows as missed, a missing result is one line" {
  local copy="$BATS_TEST_TMPDIR/repo" result=allocator/bench/results/bench-allocator.json
  bench_copy "$copy" allocator/bench allocator/bench/figures.mjs
  jq '.api.endpoints["GET /tenants/{id}"].p99_ms = 43 | .placement.placement_ms = 1234' "$REPO/$result" >"$copy/$result"
  render_follows "$copy" docs/benchmarks.md
  grep -F '`GET /tenants/{id}`' "$copy/docs/benchmarks.md" | grep -qF '| p99 43 ms (' || fail "docs/benchmarks.md does not show the slower p99"
  grep -F '`GET /tenants/{id}`' "$copy/docs/benchmarks.md" | grep -qF '| < 20 ms: **missed** |' || fail "the slower p99 is not marked missed"
  grep -qF '| 1,234 ms; a rebalance plan' "$copy/docs/benchmarks.md" || fail "docs/benchmarks.md does not show the slower plan"
  grep -qF '| < 1,000 ms: **missed** |' "$copy/docs/benchmarks.md" || fail "the slower plan is not marked missed"
  missing_result_is_one_line "$copy" allocator/bench/figures.mjs "$result" bench-allocator
}

@test "make bench-console's figures are rendered from its committed result: a costlier console shows, a missing result is one line" {
  local copy="$BATS_TEST_TMPDIR/repo" result=allocator/bench/results/bench-console.json
  bench_copy "$copy" allocator/bench allocator/bench/figures.mjs
  jq '.console.cpu_percent_without = [4.0, 5.0] | .console.cpu_percent_with = [14.0, 16.0] | .console.cpu_ratio = 3.33 | .console.page_load_ms = 2345' "$REPO/$result" >"$copy/$result"
  render_follows "$copy" docs/benchmarks.md
  grep -qF '| 4.0%, 5.0% / 14.0%, 16.0% of a core: **3.33x**' "$copy/docs/benchmarks.md" || fail "docs/benchmarks.md does not show the costlier console"
  grep -qF '| 2,345 ms (loads:' "$copy/docs/benchmarks.md" || fail "docs/benchmarks.md does not show the slower page"
  missing_result_is_one_line "$copy" allocator/bench/figures.mjs "$result" bench-console
}

@test "make bench-shape's figures are rendered from its committed result: the medians and their ratio follow, a missing result is one line" {
  local copy="$BATS_TEST_TMPDIR/repo" result=tests/bench/results/bench-shape.json
  bench_copy "$copy" tests/bench tests/bench/figures.mjs
  jq '.groups.up_s = [50.0, 52.0, 51.0] | .off.up_s = [25.0, 26.0, 24.0]' "$REPO/$result" >"$copy/$result"
  render_follows "$copy" docs/benchmarks.md
  grep -qF '| `make up` to green | 51.0 s (rounds: 50.0, 52.0, 51.0) | 25.0 s (rounds: 25.0, 26.0, 24.0) | **2.04x** |' "$copy/docs/benchmarks.md" \
    || fail "docs/benchmarks.md does not show the slower shaped start and its ratio"
  missing_result_is_one_line "$copy" tests/bench/figures.mjs "$result" bench-shape
}

@test "make bench-external's figures are rendered from its committed result: the proxy's medians and B/A follow, a missing result is one line" {
  local copy="$BATS_TEST_TMPDIR/repo" result=tests/bench/results/bench-external.json
  bench_copy "$copy" tests/bench tests/bench/figures.mjs
  jq '.direct = [range(3) | {rps: 30, avg_ms: 10, p95_ms: 20, failed_rate: 0}] | .proxied = [{rps: 30, avg_ms: 12, p95_ms: 50, failed_rate: 0}, {rps: 30, avg_ms: 12, p95_ms: 40, failed_rate: 0.01}, {rps: 30, avg_ms: 12, p95_ms: 45, failed_rate: 0}]' \
    "$REPO/$result" >"$copy/$result"
  render_follows "$copy" docs/benchmarks.md
  grep -qF '| p95 (ms) | 20.00 (rounds: 20.00, 20.00, 20.00) | 45.00 (rounds: 50.00, 40.00, 45.00) | **2.25x** |' "$copy/docs/benchmarks.md" \
    || fail "docs/benchmarks.md does not show the slower proxy and its ratio"
  grep -qF 'the highest failed-request rate of any round 1.00%' "$copy/docs/benchmarks.md" || fail "the failed requests are not said"
  missing_result_is_one_line "$copy" tests/bench/figures.mjs "$result" bench-external
}

@test "traffic/'s Python files are the Kubernetes load's ConfigMaps: an edit makes them stale, make render follows" {
  local copy="$BATS_TEST_TMPDIR/repo"
  repo_copy "$copy"
  echo "# an edit" >>"$copy/traffic/storefront.py"
  echo "X = 1" >"$copy/traffic/lib/zz_new.py"
  run in_copy "$copy" make -s render CHECK=1
  assert_failure
  assert_output --partial "stale: k8s/generated/load/storefront.yaml"
  run in_copy "$copy" make -s render
  assert_success
  assert_output --partial "rendered: k8s/generated/load/storefront.yaml"
  # the ConfigMaps hold the files as they are, the new module included, at /traffic/lib
  run node -e 'const Y = require(process.argv[1]); const fs = require("fs");
    const docs = Y.parseAllDocuments(fs.readFileSync(process.argv[2] + "/k8s/generated/load/storefront.yaml", "utf8")).map((d) => d.toJS());
    const cm = (n) => docs.find((d) => d.kind === "ConfigMap" && d.metadata.name === n).data;
    const same = cm("locustfiles")["storefront.py"] === fs.readFileSync(process.argv[2] + "/traffic/storefront.py", "utf8");
    const lib = cm("locust-lib")["zz_new.py"] === "X = 1\n";
    const items = docs.find((d) => d.kind === "Deployment" && d.metadata.name === "locust-worker").spec.template.spec.volumes
      .find((v) => v.name === "traffic").projected.sources[1].configMap.items.some((i) => i.key === "zz_new.py" && i.path === "lib/zz_new.py");
    console.log(same, lib, items)' "$REPO/node_modules/yaml" "$copy"
  assert_output "true true true"
  run in_copy "$copy" make -s render CHECK=1
  assert_success
}

@test "the generated file says it is generated, and no hand-written compose file names a node" {
  run head -n 1 runtimes/compose/nodes.generated.yml
  assert_output --partial "GENERATED by runtimes/compose/render.mjs"
  local node
  for node in $(env_value LAB_NODES | tr ',' ' '); do
    run grep -n -- "$node" runtimes/compose/docker-compose.yml runtimes/compose/extensions/*/*-compose.yml
    refute_output
  done
}

@test "three groups of two data nodes in a copy of lab.env: the compose nodes follow, no other edit" {
  local copy="$BATS_TEST_TMPDIR/repo" model="$BATS_TEST_TMPDIR/model.json" i attr all
  repo_copy "$copy"
  write_topology_env "$copy/lab.env" es-master g1 g1 g2 g2 g3 g3

  # the committed file is stale for this topology: the check says so, and so does `up`
  run in_copy "$copy" make -s render CHECK=1
  assert_failure
  assert_output --partial "stale: runtimes/compose/nodes.generated.yml"
  run in_copy "$copy" runtimes/compose/bin/lab up
  assert_failure 2
  assert_equal "${#lines[@]}" 1
  assert_output "error: runtimes/compose/nodes.generated.yml does not match lab.env's topology (LAB_NODES and the nodes' keys): run 'make render'"

  run in_copy "$copy" make -s render
  assert_success
  copy_model "$copy" "$model" || fail "compose config failed: $(cat "$model.err")"
  assert_equal "$(cat "$model.err")" ""

  assert_equal "$(es_nodes "$model" | paste -sd ' ')" "es-data-1 es-data-2 es-data-3 es-data-4 es-data-5 es-data-6 es-master"
  attr="$(env_value LAB_GROUP_ATTR)"
  for i in 1 2 3 4 5 6; do
    assert_equal "es-data-$i: $(flag_of "$model" "es-data-$i" "node.attr.$attr")" "es-data-$i: g$(((i + 1) / 2))"
    assert_equal "es-data-$i: $(flag_of "$model" "es-data-$i" node.roles)" "es-data-$i: data,ingest"
    assert_equal "es-data-$i: $(jq -r --arg s "es-data-$i" '.services[$s].ports[] | "\(.host_ip):\(.published)"' "$model")" \
      "es-data-$i: 127.0.0.1:$((9200 + i))"
    assert_equal "es-data-$i: $(depends "$model" "es-data-$i")" "es-data-$i: es-master"
    assert_equal "$(jq -r --arg s "es-data-$i" '.volumes | has($s)' "$model")" true
  done
  assert_equal "$(flag_of "$model" es-master "node.attr.$attr")" ""
  all="es-data-1 es-data-2 es-data-3 es-data-4 es-data-5 es-data-6 es-master"
  assert_equal "kibana: $(depends "$model" kibana)" "kibana: $all"
  assert_equal "allocator: $(depends "$model" allocator)" "allocator: $all"
  assert_equal "es-exporter: $(depends "$model" es-exporter)" "es-exporter: es-master"
  assert_equal "locust: $(depends "$model" locust)" "locust: allocator es-master"

  run in_copy "$copy" make -s render CHECK=1
  assert_success
}

@test "one data node under a renamed master in a copy of lab.env: nodes and every depends_on follow" {
  local copy="$BATS_TEST_TMPDIR/repo" model="$BATS_TEST_TMPDIR/model.json" service
  repo_copy "$copy"
  write_topology_env "$copy/lab.env" es-main g1

  run in_copy "$copy" make -s render
  assert_success
  copy_model "$copy" "$model" || fail "compose config failed: $(cat "$model.err")"
  assert_equal "$(cat "$model.err")" ""

  assert_equal "$(es_nodes "$model" | paste -sd ' ')" "es-data-1 es-main"
  assert_equal "$(flag_of "$model" es-data-1 "node.attr.$(env_value LAB_GROUP_ATTR)")" g1
  assert_equal "$(flag_of "$model" es-main node.roles)" master
  assert_equal "$(jq -r '.services["es-main"].ports[] | "\(.host_ip):\(.published)"' "$model")" \
    "127.0.0.1:$(env_value ES_MASTER_HTTP_PORT)"
  assert_equal "$(jq -r '.services["es-data-1"].environment["discovery.seed_hosts"]' "$model")" es-main
  assert_equal "kibana: $(depends "$model" kibana)" "kibana: es-data-1 es-main"
  assert_equal "allocator: $(depends "$model" allocator)" "allocator: es-data-1 es-main"
  assert_equal "es-exporter: $(depends "$model" es-exporter)" "es-exporter: es-main"
  assert_equal "locust: $(depends "$model" locust)" "locust: allocator es-main"
  # nothing names the old master any more
  run jq -r '[.. | objects | keys[]] | map(select(. == "es-master")) | length' "$model"
  assert_output 0
  for service in $(jq -r '.services | keys[]' "$model"); do
    [[ "$service" == es-main ]] || assert_equal "$service healthy-waits: $(jq -r --arg s "$service" \
      '[.services[$s].depends_on // {} | .[] | .condition] | unique | join(",")' "$model")" "$service healthy-waits: service_healthy"
  done
}

@test "a listed node without ports: make up is one line and exit 2, with nothing started" {
  local env_file="$BATS_TEST_TMPDIR/lab.env" lab="$BATS_TEST_TMPDIR/lab"
  write_topology_env "$env_file" es-master g1 g1 g2
  sed -i '/^ES_DATA_3_HTTP_PORT=/d' "$env_file"

  run clean_env LAB_ENV_FILE="$env_file" LAB_DIR="$lab" RUNTIME=native scripts/lab up
  assert_failure 2
  assert_equal "${#lines[@]}" 1
  assert_output "error: $env_file: ES_DATA_3_HTTP_PORT is missing: es-data-3 is in LAB_NODES and needs it"

  # the make target and each runtime's driver say the same
  run clean_env LAB_ENV_FILE="$env_file" LAB_DIR="$lab" RUNTIME=native make -s up
  assert_failure
  assert_line "error: $env_file: ES_DATA_3_HTTP_PORT is missing: es-data-3 is in LAB_NODES and needs it"
  local driver
  for driver in runtimes/native/bin/lab runtimes/compose/bin/lab; do
    run clean_env LAB_ENV_FILE="$env_file" LAB_DIR="$lab" "$driver" up
    assert_failure 2
    assert_equal "$driver: ${#lines[@]}" "$driver: 1"
    assert_output "error: $env_file: ES_DATA_3_HTTP_PORT is missing: es-data-3 is in LAB_NODES and needs it"
  done

  [[ ! -e "$lab" ]] || fail "the lab's directory was created: $(ls -R "$lab")"
  run pgrep -f -- "$lab"
  assert_failure
}

@test "other broken topologies are one line naming the key: no group, duplicate port, unknown master, unknown role" {
  local env_file="$BATS_TEST_TMPDIR/lab.env"
  # check_with SED_SCRIPT EXPECTED: lab.env edited by SED_SCRIPT, then the model's check
  check_with() {
    sed "$1" "$REPO/lab.env" >"$env_file"
    run clean_env LAB_ENV_FILE="$env_file" packages/contract/bin/topology check
    assert_failure 2
    assert_equal "${#lines[@]}" 1
    assert_output --partial "error: $env_file: $2"
  }
  check_with '/^ES_DATA_2_GROUP=/d' "ES_DATA_2_GROUP is missing: es-data-2 holds data"
  check_with 's/^ES_DATA_4_HTTP_PORT=.*/ES_DATA_4_HTTP_PORT=9203/' "ES_DATA_4_HTTP_PORT=9203 is the port of ES_DATA_3_HTTP_PORT already"
  check_with 's/^LAB_MASTER_NODE=.*/LAB_MASTER_NODE=es-boss/' "LAB_MASTER_NODE=es-boss is not in LAB_NODES"
  check_with 's/^ES_DATA_1_ROLES=.*/ES_DATA_1_ROLES=data,injest/' "ES_DATA_1_ROLES=data,injest: unknown role 'injest'"
  # and the renderer refuses it the same way, writing nothing
  run clean_env LAB_ENV_FILE="$env_file" node runtimes/compose/render.mjs --check
  assert_failure 2
  assert_output --partial "unknown role 'injest'"
}

@test "a bad x-waits-for-nodes declaration is one line naming the file and line, and nothing is written" {
  local copy="$BATS_TEST_TMPDIR/repo"
  repo_copy "$copy"
  sed -i 's/^    x-waits-for-nodes: all$/    x-waits-for-nodes: some/' "$copy/runtimes/compose/docker-compose.yml"
  cp "$copy/runtimes/compose/nodes.generated.yml" "$BATS_TEST_TMPDIR/before.yml"
  run in_copy "$copy" make -s render
  assert_failure
  assert_line --regexp "^error: runtimes/compose/docker-compose.yml:[0-9]+: x-waits-for-nodes: some: use all \(every node\) or master \(LAB_MASTER_NODE\)$"
  cmp -s "$copy/runtimes/compose/nodes.generated.yml" "$BATS_TEST_TMPDIR/before.yml" || fail "the generated file was written"
}
