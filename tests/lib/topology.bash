# Shared by tests/static/render.bats and tests/live/15-topology.bats: copies of lab.env with
# another topology, and copies of the repository files `make render` works on. Load after
# ../lib/compose (REPO, clean_env).

# write_topology_env OUT MASTER GROUP...: lab.env with another topology and nothing else
# changed: MASTER (its keys on lab.env's master ports) plus one data node es-data-N per GROUP
# (data,ingest, HTTP port 9200+N, transport 9300+N), e.g. `es-master g1 g1 g2 g2 g3 g3`.
write_topology_env() {
  local out="$1" master="$2" old_master old_key key i=0 nodes group
  shift 2
  old_master="$(sed -n 's/^LAB_MASTER_NODE=//p' "$REPO/lab.env")"
  old_key="$(node_key_of "$old_master")"
  key="$(node_key_of "$master")"
  # every line of lab.env but the topology's: the list, the master and the data nodes' keys
  grep -Ev "^(LAB_NODES|LAB_MASTER_NODE|${old_key}_[A-Z_]+|ES_DATA_[0-9]+_[A-Z_]+)=" "$REPO/lab.env" >"$out"
  {
    echo "LAB_MASTER_NODE=$master"
    echo "${key}_ROLES=master"
    echo "${key}_HTTP_PORT=$(sed -n "s/^${old_key}_HTTP_PORT=//p" "$REPO/lab.env")"
    echo "${key}_TRANSPORT_PORT=$(sed -n "s/^${old_key}_TRANSPORT_PORT=//p" "$REPO/lab.env")"
    nodes="$master"
    for group in "$@"; do
      i=$((i + 1))
      nodes+=",es-data-$i"
      echo "ES_DATA_${i}_ROLES=data,ingest"
      echo "ES_DATA_${i}_GROUP=$group"
      echo "ES_DATA_${i}_HTTP_PORT=$((9200 + i))"
      echo "ES_DATA_${i}_TRANSPORT_PORT=$((9300 + i))"
    done
    echo "LAB_NODES=$nodes"
  } >>"$out"
}

# es-data-1 -> ES_DATA_1, as in scripts/lib/config.sh and packages/contract/src/topology.js
node_key_of() { local k="${1^^}"; echo "${k//-/_}"; }

# in_copy DIR CMD...: CMD run in the copy DIR with nothing of the caller's environment (tests/run
# exports lab.env's keys, which would win over the copy's lab.env) but the checkout's cache of
# downloads (LAB_CACHE: lab.env's Node.js, scripts/install/node.sh, is not fetched again per copy)
in_copy() {
  local dir="$1"
  shift
  (cd "$dir" && env -i PATH="$PATH" HOME="$HOME" LAB_CACHE="${LAB_CACHE:-$REPO/.lab/cache}" "$@")
}

# repo_copy DIR: the files `make render` reads and writes (Makefile, lab.env, runtimes/compose/, k8s/,
# prometheus/, scripts/, packages/contract/, traffic/: its Python files are the k8s ConfigMaps',
# its README make bench-load's figures),
# copied to DIR, so a test can edit them without touching the checkout
repo_copy() {
  local dir="$1"
  mkdir -p "$dir/packages" "$dir/runtimes"
  cp -r "$REPO/runtimes/compose" "$REPO/runtimes/lib" "$dir/runtimes/"
  cp -r "$REPO/Makefile" "$REPO/lab.env" "$REPO/k8s" "$REPO/prometheus" "$REPO/scripts" "$REPO/traffic" "$dir/"
  cp -r "$REPO/packages/contract" "$dir/packages/"
  rm -rf "$dir/packages/contract/node_modules"
  # the workspace's packages, as the checkout has them (k8s/render.mjs writes YAML with `yaml`)
  ln -s "$REPO/node_modules" "$dir/node_modules"
}
