#!/usr/bin/env bats
# The one node-config source (packages/contract/src/node-config.js), without a lab: a node setting
# changed in one place, the module or lab.env, reaches all three runtimes (native's java command
# line as runtimes/native/lib/nodes.sh builds it, the compose model as runtimes/compose/bin/lab
# resolves it, the Kubernetes manifests k8s/render.mjs writes), and no runtime writes a node's
# setting of its own. Edits happen in copies (tests/lib/topology.bash: repo_copy), never in the
# checkout.

# shellcheck disable=SC2016,SC2154 # jq programs are single-quoted on purpose; run sets $stderr
bats_require_minimum_version 1.5.0

load ../lib/copy-suite

# node_copy DIR: repo_copy plus what native's nodes.sh needs to build a node's command line
node_copy() {
  repo_copy "$1"
  cp -r "$REPO/runtimes/native" "$1/runtimes/"
  mkdir -p "$1/es-distribution" && cp -r "$REPO/es-distribution/lib" "$1/es-distribution/"
}

# native_command DIR NODE: NODE's java command line (after the java binary), one word a line, as
# runtimes/native/lib/nodes.sh's start_node runs it in the copy DIR, without starting anything
native_command() {
  in_copy "$1" bash -c 'set -euo pipefail
    source scripts/lib/config.sh
    source scripts/lib/process.sh
    source es-distribution/lib/build.sh
    source runtimes/native/lib/nodes.sh
    load_node_config
    node_command "$1"' native_command "$2"
}

# compose_config DIR FILE: the compose model of the copy DIR as its runtimes/compose/bin/lab resolves
# it (the sizes exported as for `up`), JSON in FILE
compose_config() {
  in_copy "$1" env LAB_COMPOSE_BIN="$DC" runtimes/compose/bin/lab config --format json >"$2"
}

# k8s_config DIR: every nodeSet of the copy DIR's k8s/generated/, its config and ES_JAVA_OPTS, as
# JSON lines
k8s_config() {
  node -e 'const Y = require(process.argv[1]); const fs = require("fs");
    const [es] = Y.parseAllDocuments(fs.readFileSync(process.argv[2], "utf8")).map((d) => d.toJS());
    for (const s of es.spec.nodeSets) {
      const opts = s.podTemplate.spec.containers[0].env.find((e) => e.name === "ES_JAVA_OPTS").value;
      console.log(JSON.stringify({ name: s.name, config: s.config, opts }));
    }' "$REPO/node_modules/yaml" "$1/k8s/generated/10-elasticsearch.yaml"
}

@test "a setting added once in the node-config module: native, compose and Kubernetes all carry it" {
  local copy="$BATS_TEST_TMPDIR/repo" model="$BATS_TEST_TMPDIR/model.json" node
  node_copy "$copy"
  # one line in packages/contract/src/node-config.js, after the write queue's
  sed -i "/^    s\['thread_pool.write.queue_size'\] = /a\\    s['indices.memory.index_buffer_size'] = '15%';" \
    "$copy/packages/contract/src/node-config.js"
  grep -q "index_buffer_size" "$copy/packages/contract/src/node-config.js" || fail "the edit did not apply"

  # the committed files are stale now, and make render follows
  run in_copy "$copy" make -s render CHECK=1
  assert_failure
  assert_output --partial "stale: runtimes/compose/nodes.generated.yml"
  assert_output --partial "stale: k8s/generated/10-elasticsearch.yaml"
  run in_copy "$copy" make -s render
  assert_success

  for node in $(env_value LAB_NODES | tr ',' ' '); do
    run native_command "$copy" "$node"
    assert_success
    assert_line "indices.memory.index_buffer_size=15%"
  done
  compose_config "$copy" "$model" || fail "compose config failed"
  run jq -r '[.services[] | select(.command[1]? // "" | startswith("-Enode.name=")) | .environment["indices.memory.index_buffer_size"]] | unique | join(" ")' "$model"
  assert_output "15%"
  assert_equal "$(jq '[.services[] | select(.command[1]? // "" | startswith("-Enode.name="))] | length' "$model")" \
    "$(env_value LAB_NODES | tr ',' '\n' | wc -l)"
  assert_equal "$(k8s_config "$copy" | jq -r '.config["indices.memory.index_buffer_size"]' | sort -u)" "15%"
}

@test "values changed once in lab.env (a setting, roles, the heap): native, compose and Kubernetes all carry them" {
  local copy="$BATS_TEST_TMPDIR/repo" model="$BATS_TEST_TMPDIR/model.json"
  node_copy "$copy"
  sed -i 's/^ES_WRITE_QUEUE=.*/ES_WRITE_QUEUE=4321/; s/^ES_DATA_3_ROLES=.*/ES_DATA_3_ROLES=data/; s/^ES_DATA_4_ROLES=.*/ES_DATA_4_ROLES=data/; s/^ES_HEAP=.*/ES_HEAP=768m/' "$copy/lab.env"

  # compose reads lab.env's values at run time (references), Kubernetes' manifests are rendered
  run in_copy "$copy" scripts/render --check
  assert_failure 1
  assert_output "$(printf '%s\n' "stale: k8s/generated/10-elasticsearch.yaml (differs from what lab.env renders)" \
    "error: generated files are stale (listed above): run 'make render' and commit the result")"
  run in_copy "$copy" make -s render
  assert_success

  run native_command "$copy" es-data-3
  assert_line "thread_pool.write.queue_size=4321"
  assert_line "node.roles=data"
  assert_line -- "-Xmx768m"
  assert_line -- "-XX:MaxDirectMemorySize=384m"
  compose_config "$copy" "$model" || fail "compose config failed"
  assert_equal "$(jq -r '.services["es-data-3"].environment["thread_pool.write.queue_size"]' "$model")" 4321
  assert_equal "$(jq -r '.services["es-data-3"].command[] | select(startswith("-Enode.roles="))' "$model")" "-Enode.roles=data"
  # the heap: the official image's ES_JAVA_OPTS, the local image's whole option list
  assert_equal "$(jq -r '.services["es-data-3"].environment.ES_JAVA_OPTS' "$model")" "-Xms768m -Xmx768m"
  [[ "$(jq -r '.services["es-data-3"].environment.LAB_JVM_OPTIONS' "$model")" == *" -Xms768m -Xmx768m -XX:MaxDirectMemorySize=384m "* ]] \
    || fail "LAB_JVM_OPTIONS: $(jq -r '.services["es-data-3"].environment.LAB_JVM_OPTIONS' "$model")"
  assert_equal "$(k8s_config "$copy" | jq -c 'select(.name == "g2") | [.config["thread_pool.write.queue_size"], .config["node.roles"]]')" '[4321,["data"]]'
  assert_equal "$(k8s_config "$copy" | jq -r .opts | sort -u)" "-Xms768m -Xmx768m"
}

@test "native's nodes for the default lab.env: every setting and JVM option from node-config, in nodes.sh's order" {
  local copy="$BATS_TEST_TMPDIR/repo"
  node_copy "$copy"
  run native_command "$copy" es-data-1
  assert_success
  # the JVM options, then the launcher's class, then the settings
  assert_equal "${lines[0]}" "-Dtenantlab.lab=$copy/.lab"
  assert_equal "${lines[1]} ${lines[2]} ${lines[3]}" "-Xms$(env_value ES_HEAP) -Xmx$(env_value ES_HEAP) -XX:MaxDirectMemorySize=256m"
  assert_line "--module-path=${LAB_CACHE:-$REPO/.lab/cache}/native/es-$(env_value ES_VERSION)/lib"
  local main
  main="$(printf '%s\n' "${lines[@]}" | grep -n '^org\.tenantlab\.nativeruntime\.LabNode$' | cut -d: -f1)"
  [[ -n "$main" ]] || fail "no launcher class"
  assert_equal "$(printf '%s\n' "${lines[@]:main}" | cut -d= -f1 | paste -sd ' ')" \
    "cluster.name node.name node.roles node.attr.$(env_value LAB_GROUP_ATTR) path.home path.data path.logs network.host http.port transport.port discovery.seed_hosts cluster.initial_master_nodes cluster.routing.allocation.disk.watermark.low cluster.routing.allocation.disk.watermark.high cluster.routing.allocation.disk.watermark.flood_stage thread_pool.write.queue_size indices.recovery.max_bytes_per_sec node.processors"
  assert_line "discovery.seed_hosts=$(env_value LAB_BIND):$(env_value ES_MASTER_TRANSPORT_PORT)"
  assert_line "http.port=$(env_value ES_DATA_1_HTTP_PORT)"
}

# setting_lines KEY FILE...: the lines of FILE... that write the setting KEY (a quoted key,
# key=value, or a YAML key), comment lines aside
setting_lines() {
  local key="${1//./\\.}"
  shift
  grep -nE -- "(['\"\`]$key['\"\`]|$key=|^\s*$key:)" "$@" | grep -vE '^([^:]+:)?[0-9]+:\s*(#|//|\*)'
}

@test "no runtime writes a node setting of its own: each one is in the node-config module only" {
  local key found=() hit keys
  # every setting key any variant sets (the attribute under its lab.env name)
  keys="$(for r in native compose k8s; do clean_env packages/contract/bin/node-config json "$r" --lab-dir /l --dist /d --data /l/d --logs /l/l --cpus 0-1 \
    | jq -r '.nodes[].settings | keys[]'; done | sed 's/\${LAB_GROUP_ATTR}/index_group/' | sort -u)"
  assert_equal "$(grep -c . <<<"$keys")" 19
  while read -r key; do
    # the module writes each one (the search is no empty one)
    [[ "$key" == node.attr.* ]] || setting_lines "$key" packages/contract/src/node-config.js >/dev/null || fail "$key: not found in node-config.js"
    [[ "$key" == path.* ]] && continue # the images' own layout (docker-entrypoint.sh); native's from node-config
    while IFS= read -r hit; do found+=("$key: $hit"); done < <(setting_lines "$key" \
      runtimes/native/lib/*.sh runtimes/native/bin/lab runtimes/compose/render.mjs k8s/render.mjs \
      runtimes/compose/images/elasticsearch/docker-entrypoint.sh runtimes/compose/elasticsearch/config/*.yml)
  done <<<"$keys"
  assert_equal "$(printf '%s\n' "${found[@]}")" ""
  # and the local image reads no heap back out of ES_JAVA_OPTS
  run grep -n -- '-Xmx' runtimes/compose/images/elasticsearch/docker-entrypoint.sh
  assert_failure
}
