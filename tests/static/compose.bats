#!/usr/bin/env bats
# The compose runtime, checked without a Docker engine: runtimes/compose/docker-compose.yml is resolved by
# the real Compose v2 (built from the Go module proxy by scripts/install/compose.sh, cached) and
# its model is compared with lab.env, so the compose and native runtimes cannot drift apart.
#
# Compose runs with a clean environment: what is checked is what lab.env alone produces, even
# when the caller (tests/run) has shifted ports in its environment.

# shellcheck disable=SC2016,SC2154 # jq programs are single-quoted on purpose; run sets $stderr
bats_require_minimum_version 1.5.0

setup_file() {
  load ../lib/compose
  DC="$("$REPO/scripts/install/compose.sh")"
  MODEL="$BATS_FILE_TMPDIR/model.json"
  export DC MODEL
  compose_model "$MODEL"
}

setup() {
  bats_load_library bats-support
  bats_load_library bats-assert
  load ../lib/compose
  cd "$REPO" || return 1
}

# dc_config FILE ARGS...: `docker compose config` of the lab's files as runtimes/compose/bin/lab lists
# them, FILE standing in for the one of the same name (a broken copy of docker-compose.yml or of
# nodes.generated.yml)
dc_config() {
  local file="$1" files i
  shift
  mapfile -t files < <(compose_files)
  for i in "${!files[@]}"; do [[ "${files[i]##*/}" == "${file##*/}" ]] && files[i]="$file"; done
  clean_env "$DC" --project-directory "$REPO" "${files[@]}" --env-file lab.env config "$@"
}

es_services() { env_value LAB_NODES | tr ',' '\n'; }

# node_key es-data-1 -> ES_DATA_1, as in scripts/lib/config.sh
node_key() { local k="${1^^}"; echo "${k//-/_}"; }

# flag NODE SETTING: the value of -ESETTING=... on NODE's command line, empty if absent
flag() { model --arg s "$1" --arg k "-E$2=" '.services[$s].command[] | select(startswith($k)) | ltrimstr($k)'; }

@test "compose config -q accepts the file, with no warning, from lab.env alone" {
  run --separate-stderr dc_config runtimes/compose/docker-compose.yml -q
  assert_success
  assert_equal "$stderr" ""
}

@test "every variable the compose files use is a key of lab.env, or a node size the shape resolves" {
  local var missing=() applied
  # the <KEY>_*_APPLIED values runtimes/compose/bin/lab exports (packages/contract/src/shape.js)
  applied="$(clean_env node packages/contract/bin/node-config env --cpus 0-1 | sed -n 's/^\([A-Z0-9_]*\)=.*/\1/p')"
  while read -r var; do
    grep -q "^$var=" lab.env || grep -qx "$var" <<<"$applied" || missing+=("$var")
  done < <(cat runtimes/compose/docker-compose.yml runtimes/compose/nodes.generated.yml runtimes/compose/extensions/*/*-compose.yml | grep -v '^[[:space:]]*#' \
    | grep -o '\${[A-Za-z_][A-Za-z0-9_]*' | cut -c3- | sort -u)
  assert_equal "${missing[*]}" ""
}

@test "every service runs an image pinned to the version in lab.env, never latest" {
  # the images lab.env pins: every X_IMAGE with its X_VERSION
  local pinned=() key
  for key in $(sed -n 's/^\([A-Z0-9_]*\)_IMAGE=.*/\1/p' lab.env); do
    [[ -n "$(env_value "${key}_VERSION")" ]] || continue
    pinned+=("$(env_value "${key}_IMAGE"):$(env_value "${key}_VERSION")" "$(env_value "${key}_IMAGE"):v$(env_value "${key}_VERSION")")
  done
  run model '.services | to_entries[] | select(.value.build == null) | "\(.key) \(.value.image)"'
  assert_success
  refute_output --regexp ':latest$'
  local service image
  while read -r service image; do
    [[ "$image" =~ :v?[0-9][A-Za-z0-9._-]*$ ]] || fail "$service: image '$image' has no explicit version tag"
    [[ " ${pinned[*]} " == *" $image "* ]] || fail "$service: image '$image' is not an X_IMAGE:X_VERSION pair of lab.env"
  done <<<"$output"
  for key in $(es_services); do
    assert_equal "$key $(model --arg s "$key" '.services[$s].image')" "$key $(env_value ES_IMAGE):$(env_value ES_VERSION)"
  done
  assert_equal "$(model '.services.kibana.image')" "$(env_value KIBANA_IMAGE):$(env_value KIBANA_VERSION)"
}

@test "every service built here starts FROM a base image pinned in lab.env" {
  # the `load` profile too: the locust service is built (official Locust + prometheus-client)
  local load_model="$BATS_TEST_TMPDIR/load-model.json" files
  mapfile -t files < <(compose_files)
  clean_env "${SHAPED[@]}" "$DC" --project-directory "$REPO" "${files[@]}" --env-file lab.env --profile load config --format json >"$load_model"
  run jq -r '.services | to_entries[] | select(.value.build != null)
    | "\(.key) \(.value.build.args.NODE_IMAGE // ((.value.build.args.LOCUST_IMAGE // "unpinned") + ":" + (.value.build.args.LOCUST_VERSION // "")))"' "$load_model"
  assert_success
  assert_line --regexp '^allocator '
  assert_line --regexp '^locust '
  local service image
  while read -r service image; do
    [[ "$image" =~ ^[^:]+:[0-9][A-Za-z0-9._-]*$ ]] || fail "$service: base image '$image' has no explicit version tag"
    case "$service" in
      locust) assert_equal "$image" "$(env_value LOCUST_IMAGE):$(env_value LOCUST_VERSION)" ;;
      *) assert_equal "$image" "$(env_value NODE_IMAGE)" ;;
    esac
  done <<<"$output"
  grep -q '^FROM ${NODE_IMAGE}$' allocator/Dockerfile
  grep -q '^FROM ${LOCUST_IMAGE}:${LOCUST_VERSION} AS official$' runtimes/compose/images/locust/Dockerfile
}

@test "the locust service (profile load): pinned Locust, read-only traffic/, UI and /metrics on LAB_BIND, scraped as job load" {
  local load_model="$BATS_TEST_TMPDIR/load-model.json" files master version
  mapfile -t files < <(compose_files)
  clean_env "${SHAPED[@]}" "$DC" --project-directory "$REPO" "${files[@]}" --env-file lab.env --profile load config --format json >"$load_model"
  lm() { jq -r "$@" "$load_model"; }
  # not started by `make up` (no profile there)
  run model '.services | keys[]'
  refute_line locust
  assert_equal "$(lm -c '.services.locust.profiles')" '["load"]'
  # the version the native venv runs: lab.env's, pinned by the lock too
  version="$(env_value LOCUST_VERSION)"
  [[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || fail "LOCUST_VERSION must be an exact version (the image tag has no v)"
  grep -q "^locust==$version " traffic/requirements.lock || fail "traffic/requirements.lock does not pin locust==$version"
  assert_equal "$(lm '.services.locust.build | "\(.dockerfile) \(.target) \(.args.LOCUST_IMAGE):\(.args.LOCUST_VERSION)"')" \
    "runtimes/compose/images/locust/Dockerfile official $(env_value LOCUST_IMAGE):$version"
  # the build context lets the lock in (.dockerignore), the one file the image reads
  grep -qx '!traffic/requirements.lock' .dockerignore
  master="$(env_value LAB_MASTER_NODE)"
  assert_equal "$(lm '.services.locust.environment | "\(.ES_URL) \(.ALLOCATOR_URL) \(.LOAD_METRICS_HOST) \(.LOAD_METRICS_PORT) \(.LOCUST_WEB_HOST) \(.LOCUST_WEB_PORT)"')" \
    "http://$master:9200 http://allocator:8080 0.0.0.0 9646 0.0.0.0 8089"
  # published on LAB_BIND only (with run --service-ports), at lab.env's ports
  assert_equal "$(lm '[.services.locust.ports[] | "\(.host_ip):\(.published)->\(.target)"] | join(" ")')" \
    "$(env_value LAB_BIND):$(env_value LOAD_UI_PORT)->8089 $(env_value LAB_BIND):$(env_value LOAD_METRICS_PORT)->9646"
  assert_equal "$(lm '.services.locust.network_mode // "default"')" default
  jq -e '(.services.locust.healthcheck.test // []) | length > 0' "$load_model" >/dev/null || fail "locust has no healthcheck"
  assert_equal "$(lm '.services.locust.depends_on | to_entries | map("\(.key)=\(.value.condition)") | sort | join(" ")')" \
    "allocator=service_healthy $master=service_healthy"
  # the locustfiles and their library, read-only; nothing else of the repository
  assert_equal "$(lm '.services.locust.volumes[] | "\(.type) \(.source) \(.target) \(.read_only)"')" "bind $REPO/traffic /traffic true"
  # Prometheus (observability overlay) scrapes the service name, which a `run` container carries
  # with --use-aliases, at the port the locust service serves /metrics on
  assert_equal "$(lm '.services.prometheus.environment.PROM_LOAD_TARGET')" "locust:$(lm '.services.locust.environment.LOAD_METRICS_PORT')"
  run --separate-stderr clean_env "$DC" --project-directory "$REPO" "${files[@]}" --env-file lab.env --profile load config -q
  assert_success
  assert_equal "$stderr" ""
}

@test "every service has a healthcheck" {
  run model '.services | to_entries[] | select((.value.healthcheck.test // []) == [] or .value.healthcheck.disable == true) | .key'
  assert_success
  assert_output ""
}

@test "every depends_on waits for service_healthy, and everything waits for the master" {
  run model '.services | to_entries[] | .key as $s | (.value.depends_on // {}) | to_entries[]
    | select(.value.condition != "service_healthy") | "\($s) -> \(.key): \(.value.condition)"'
  assert_success
  assert_output ""
  # directly or through the services it waits for
  local master service
  master="$(env_value LAB_MASTER_NODE)"
  for service in $(model '.services | keys[]'); do
    [[ "$service" == "$master" ]] && continue
    run model --arg s "$service" --arg m "$master" '. as $root
      | def waits($x): ($root.services[$x].depends_on // {} | keys) as $d | ($d | index($m)) != null or any($d[]; waits(.));
      waits($s)'
    assert_equal "$service waits for $master: $output" "$service waits for $master: true"
  done
}

@test "every published port binds 127.0.0.1, and nothing uses the host network" {
  assert_equal "$(env_value LAB_BIND)" 127.0.0.1
  run model '.services | to_entries[] | .key as $s | (.value.ports // [])[] | select(.host_ip != "127.0.0.1") | "\($s): \(.)"'
  assert_success
  assert_output ""
  run model '.services | to_entries[] | select(.value.network_mode == "host") | .key'
  assert_output ""
}

@test "the compose topology is lab.env's: nodes, names, roles, index groups, HTTP ports" {
  local attr node key group
  attr="$(env_value LAB_GROUP_ATTR)"
  # the services running the Elasticsearch image are exactly lab.env's nodes
  assert_equal "$(model --arg i "$(env_value ES_IMAGE):$(env_value ES_VERSION)" '.services | to_entries[] | select(.value.image == $i) | .key' | sort)" \
    "$(es_services | sort)"
  for node in $(es_services); do
    key="$(node_key "$node")"
    assert_equal "$node: name $(flag "$node" node.name)" "$node: name $node"
    assert_equal "$node: roles $(flag "$node" node.roles)" "$node: roles $(env_value "${key}_ROLES")"
    group="$(env_value "${key}_GROUP")"
    assert_equal "$node: group $(flag "$node" "node.attr.$attr")" "$node: group $group"
    assert_equal "$node: port $(model --arg s "$node" '.services[$s].ports[] | select(.target == 9200) | .published')" \
      "$node: port $(env_value "${key}_HTTP_PORT")"
  done
  assert_equal "$(model '.services.kibana.ports[] | select(.target == 5601) | .published')" "$(env_value KIBANA_PORT)"
}

@test "every node gets lab.env's cluster name, master, heap, disk watermarks, write queue and recovery rate" {
  local node heap
  heap="$(env_value ES_HEAP)"
  for node in $(es_services); do
    run model --arg s "$node" '.services[$s].environment | to_entries[] | "\(.key)=\(.value)"'
    assert_line "cluster.name=$(env_value CLUSTER_NAME)"
    assert_line "cluster.initial_master_nodes=$(env_value LAB_MASTER_NODE)"
    assert_line "discovery.seed_hosts=$(env_value LAB_MASTER_NODE)"
    assert_line "ES_JAVA_OPTS=-Xms$heap -Xmx$heap"
    assert_line "cluster.routing.allocation.disk.watermark.low=$(env_value ES_DISK_WATERMARK_LOW)"
    assert_line "cluster.routing.allocation.disk.watermark.high=$(env_value ES_DISK_WATERMARK_HIGH)"
    assert_line "cluster.routing.allocation.disk.watermark.flood_stage=$(env_value ES_DISK_WATERMARK_FLOOD)"
    assert_line "thread_pool.write.queue_size=$(env_value ES_WRITE_QUEUE)"
    assert_line "indices.recovery.max_bytes_per_sec=$(env_value ES_RECOVERY_MAX_BYTES_PER_SEC)"
  done
}

@test "a value in the environment overrides lab.env, as in the native runtime" {
  run bash -c 'cd "$REPO" && mapfile -t files < <(runtimes/compose/bin/lab files) \
    && ES_HEAP=1g "$DC" --project-directory . "${files[@]}" --env-file lab.env config --format json \
    | jq -r ".services[\"es-data-3\"].environment.ES_JAVA_OPTS"'
  assert_success
  assert_output "-Xms1g -Xmx1g"
}

@test "each node's size is the shape's: cpuset, cpus, mem_limit, node.processors and its own heap" {
  local node key
  # the shape runtimes/compose/bin/lab resolves with no engine (this machine's CPUs), with a quota, a
  # memory limit and a heap of its own on es-data-1
  run clean_env env ES_DATA_1_CPUS=0.5 ES_DATA_1_MEM=1g ES_DATA_1_HEAP=600m \
    bash -c 'node packages/contract/bin/node-config env --cpus "0-$(($(nproc) - 1))" | grep _APPLIED=' 
  assert_success
  local shape="$output"
  applied() { sed -n "s/^$1_$2_APPLIED=//p" <<<"$shape"; }
  run --separate-stderr clean_env env LAB_COMPOSE_BIN="$DC" ES_DATA_1_CPUS=0.5 ES_DATA_1_MEM=1g ES_DATA_1_HEAP=600m "$REPO/runtimes/compose/bin/lab" config --format json
  assert_success
  local json="$output"
  for node in $(es_services); do
    key="$(node_key "$node")"
    assert_equal "$node cpuset $(jq -r --arg s "$node" '.services[$s].cpuset // ""' <<<"$json")" "$node cpuset $(applied "$key" CPUSET)"
    assert_equal "$node processors $(jq -r --arg s "$node" '.services[$s].environment["node.processors"] // ""' <<<"$json")" "$node processors $(applied "$key" PROCESSORS)"
  done
  # the master has no group: every CPU; a data node of g1 runs on g1's slice (CPU 0 first)
  assert_equal "$(jq -r '.services["es-master"].cpuset // "none"' <<<"$json")" none
  [[ "$(jq -r '.services["es-data-1"].cpuset' <<<"$json")" == 0* ]]
  assert_equal "$(jq -r '.services["es-data-1"].cpus' <<<"$json")" 0.5
  assert_equal "$(jq -r '.services["es-data-1"].mem_limit' <<<"$json")" 1073741824
  assert_equal "$(jq -r '.services["es-data-1"].environment.ES_JAVA_OPTS' <<<"$json")" "-Xms600m -Xmx600m"
  assert_equal "$(jq -r '.services["es-data-2"].mem_limit // "none"' <<<"$json")" none
}

@test "SHAPE=off, and a bare docker compose call with lab.env alone: no limit on any node" {
  run --separate-stderr clean_env env LAB_COMPOSE_BIN="$DC" SHAPE=off "$REPO/runtimes/compose/bin/lab" config --format json
  assert_success
  assert_equal "$(jq -c '[.services[] | select(.cpuset or .cpus or .mem_limit or (.environment["node.processors"] // "") != "")] | length' <<<"$output")" 0
  run --separate-stderr dc_config runtimes/compose/docker-compose.yml --format json
  assert_success
  assert_equal "$(jq -c '[.services[] | select(.cpuset or .cpus or .mem_limit or (.environment["node.processors"] // "") != "")] | length' <<<"$output")" 0
}

@test "a node size the machine cannot give is one line before compose runs" {
  run clean_env env LAB_COMPOSE_BIN="$DC" ES_DATA_1_CPUSET=64 "$REPO/runtimes/compose/bin/lab" config
  assert_failure 2
  assert_equal "${#lines[@]}" 1
  assert_output --regexp "ES_DATA_1_CPUSET=64: CPU 64 is not one this machine lets the lab use"
}

@test "bind-mounted config resolves inside the repository, exists, and is read-only" {
  run model '.services[] | .volumes[]? | select(.type == "bind") | "\(.source) \(.read_only)"'
  assert_success
  refute_output ""
  local source ro
  while read -r source ro; do
    # config, and the stored experiment runs the console lists (the local ones' folder appears
    # with the first local run; compose makes it when missing)
    [[ "$source" == "$REPO/runtimes/compose/"* || "$source" == "$REPO/grafana-dashboards"* || "$source" == "$REPO/prometheus" \
      || "$source" == "$REPO/experiments/results" || "$source" == "$REPO/.lab/results/experiments" ]] \
      || fail "bind source outside compose/, grafana-dashboards/, prometheus/ and the stored runs: $source"
    [[ -e "$source" || "$source" == "$REPO/.lab/results/experiments" ]] || fail "bind source missing: $source"
    assert_equal "$source read_only=$ro" "$source read_only=true"
  done <<<"$output"
}

@test "each Elasticsearch node keeps its data in a named volume of its own" {
  local node
  for node in $(es_services); do
    assert_equal "$node: $(model --arg s "$node" '[.services[$s].volumes[] | select(.type == "volume") | .source] | join(",")')" "$node: $node"
  done
}

@test "a broken copy of the file fails validation: unknown key, undefined dependency" {
  # the nodes (and every depends_on naming one) are in the generated file
  local broken="$BATS_TEST_TMPDIR/nodes.generated.yml"

  sed 's/^  es-master:$/  es-master:\n    colour: blue/' runtimes/compose/nodes.generated.yml >"$broken"
  ! cmp -s "$broken" runtimes/compose/nodes.generated.yml || fail "the unknown key was not inserted"
  run dc_config "$broken" -q
  assert_failure
  assert_output --partial "colour"

  sed 's/es-master: { condition: service_healthy }/es-nowhere: { condition: service_healthy }/' \
    runtimes/compose/nodes.generated.yml >"$broken"
  ! cmp -s "$broken" runtimes/compose/nodes.generated.yml || fail "the dependency was not changed"
  run dc_config "$broken" -q
  assert_failure
  assert_output --partial "undefined service \"es-nowhere\""
}

@test "runtimes/compose/bin/lab resolves the same model as the documented invocation" {
  run --separate-stderr clean_env LAB_COMPOSE_BIN="$DC" "$REPO/runtimes/compose/bin/lab" config --format json
  assert_success
  assert_equal "$(jq -S . <<<"$output")" "$(jq -S . "$MODEL")"
}

@test "runtimes/compose/bin/lab refuses bad input with one line and exit 2, engine or not" {
  run "$REPO/runtimes/compose/bin/lab" kill
  assert_failure 2
  assert_equal "${#lines[@]}" 1
  assert_output --partial "error: NODE is required: one of es-master"
  run "$REPO/runtimes/compose/bin/lab" restart es-data-9
  assert_failure 2
  assert_equal "${#lines[@]}" 1
  assert_output --partial "error: unknown NODE 'es-data-9'"
  run "$REPO/runtimes/compose/bin/lab" frobnicate
  assert_failure 2
  assert_output --partial "error: unknown command 'frobnicate': use up, down, status"
}

@test "RUNTIME=compose scripts/lab up with no engine: one clear line, exit 2, nothing started" {
  export LAB_DIR="$BATS_TEST_TMPDIR/lab"
  # An engine nobody listens on, so the test means the same on a machine that has Docker.
  DOCKER_HOST="unix://$BATS_TEST_TMPDIR/no-engine.sock" RUNTIME=compose run "$REPO/scripts/lab" up
  assert_failure 2
  assert_equal "${#lines[@]}" 1
  assert_output --partial "error: RUNTIME=compose but no Docker engine"
  [[ ! -e "$LAB_DIR/runtime" ]]
  run pgrep -f -- "$LAB_DIR"
  assert_failure

  # The driver alone (as the sticky runtime file would call it) is just as clear.
  DOCKER_HOST="unix://$BATS_TEST_TMPDIR/no-engine.sock" run "$REPO/runtimes/compose/bin/lab" up
  assert_failure 2
  assert_equal "${#lines[@]}" 1
  assert_output --regexp "^error: (no Docker engine answers|'docker' not found)"
}
