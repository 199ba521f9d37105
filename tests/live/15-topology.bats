#!/usr/bin/env bats
# The native runtime follows lab.env's topology alone: a lab started from a copy of lab.env with
# three groups of two data nodes (then one with a single data node), with no other edit, is
# green with exactly those nodes, and _cat/nodeattrs shows exactly those groups. Each lab runs
# beside the test lab: its own LAB_DIR, every port +2000 (the test lab is on +1000), no
# services, no seeding; teardown always stops it and checks nothing of it is left.
# (The compose side of the same proof, and the broken-topology refusals, are static:
# tests/static/render.bats.)

setup() {
  load ../lib/lab
  load ../lib/topology
  # Under the compose run these would only start more native JVMs beside the compose lab
  [[ "$(lab_runtime)" != compose ]] || skip "native topology labs (compose renders the same topologies: tests/static/render.bats)"
}

TOPO_PORT_OFFSET=2000

# topo_lab DIR CMD...: scripts/lab CMD for the topology lab in DIR (DIR/lab.env, state in DIR),
# with nothing of the test lab's environment: tests/run exports lab.env's keys, and a key set in
# the environment would win over the copy's.
topo_lab() {
  local dir="$1"
  shift
  env -i PATH="$PATH" HOME="$HOME" LAB_ENV_FILE="$dir/lab.env" LAB_DIR="$dir" \
    RUNTIME=native SEED=0 LAB_SERVICES= ES_HEAP=256m \
    bash -c 'source "$1/scripts/lib/config.sh" && shift_lab_ports "$2" && shift 2 && exec "$LAB_ROOT/scripts/lab" "$@"' \
    _ "$REPO" "$TOPO_PORT_OFFSET" "$@"
}

# topo_es DIR PATH: GET PATH from the topology lab's master
topo_es() {
  local port
  port="$(sed -n "s/^$(node_key_of "$(sed -n 's/^LAB_MASTER_NODE=//p' "$1/lab.env")")_HTTP_PORT=//p" "$1/lab.env")"
  curl -fsS --max-time 30 "http://$LAB_BIND:$((port + TOPO_PORT_OFFSET))$2"
}

teardown() {
  [[ -n "${TOPO_DIR:-}" && -d "$TOPO_DIR" ]] || return 0
  topo_lab "$TOPO_DIR" down >/dev/null 2>&1 || true
  local left
  left="$(pgrep -f -- "$TOPO_DIR" | paste -sd ' ')" || true
  if [[ -n "$left" ]]; then
    kill -KILL $left 2>/dev/null || true
    fail "processes of the topology lab left after 'down': $left"
  fi
  rm -rf "$TOPO_DIR"
}

# topo_lab_follows DIR MASTER GROUP...: a lab from lab.env with MASTER and one data node per
# GROUP (tests/lib/topology.bash) starts green with exactly those nodes and groups
topo_lab_follows() {
  local dir="$1" master="$2" i=0 group want_nodes want_attrs
  shift 2
  mkdir -p "$dir"
  write_topology_env "$dir/lab.env" "$master" "$@"
  want_nodes="$master" want_attrs=""
  for group in "$@"; do
    i=$((i + 1))
    want_nodes+=$'\n'"es-data-$i"
    want_attrs+="es-data-$i=$group"$'\n'
  done

  run topo_lab "$dir" up
  assert_success
  assert_output --partial "starting $((i + 1)) Elasticsearch"

  run topo_es "$dir" "/_cluster/health"
  assert_success
  assert_equal "$(jq -r .status <<<"$output")" green
  assert_equal "$(jq -r .number_of_nodes <<<"$output")" "$((i + 1))"
  assert_equal "$(jq -r .number_of_data_nodes <<<"$output")" "$i"

  run topo_es "$dir" "/_cat/nodes?h=name"
  assert_success
  assert_equal "$(tr -d ' ' <<<"$output" | sort)" "$(sort <<<"$want_nodes")"

  run topo_es "$dir" "/_cat/nodeattrs?h=node,attr,value&format=json"
  assert_success
  assert_equal "$(jq -r --arg a "$LAB_GROUP_ATTR" '.[] | select(.attr == $a) | "\(.node)=\(.value)"' <<<"$output" | sort)" \
    "$(sort <<<"${want_attrs%$'\n'}")"

  run topo_es "$dir" "/_cat/master?h=node"
  assert_equal "$(echo $output)" "$master"
}

@test "three groups of two data nodes in a copy of lab.env: the native lab is green with exactly those nodes and groups" {
  TOPO_DIR="$BATS_FILE_TMPDIR/lab-3x2"
  topo_lab_follows "$TOPO_DIR" es-master g1 g1 g2 g2 g3 g3
}

@test "a single data node in a copy of lab.env: the native lab is green with the master and that node" {
  TOPO_DIR="$BATS_FILE_TMPDIR/lab-1"
  topo_lab_follows "$TOPO_DIR" es-master g1
}
