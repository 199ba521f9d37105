#!/usr/bin/env bats
# Nodes with a size (packages/contract/src/shape.js, runtimes/native/lib/node-limits.sh, compose's
# cpus/cpuset/mem_limit): the limits the test lab runs with are read back from the kernel (the
# node's /proc/PID/status and cgroup files; under compose the container's process, found with
# docker inspect), Elasticsearch sizes its thread pools from the share, a CPU-bound load on a g1
# node stays on g1's CPUs, and a size the machine cannot give is one line before anything runs.

bats_require_minimum_version 1.5.0

setup() {
  load ../lib/lab
  source "$REPO/runtimes/native/lib/node-limits.sh"
}

teardown() {
  [[ -n "${LOADERS:-}" ]] && kill $LOADERS 2>/dev/null
  [[ -n "${OTHER:-}" ]] && env -i PATH="$PATH" HOME="$HOME" LAB_DIR="$OTHER" RUNTIME=native "$LAB" down >/dev/null 2>&1
  return 0
}

# host_pid NODE: the node's JVM as the host sees it
host_pid() {
  if [[ "$(lab_runtime)" == compose ]]; then
    docker inspect -f '{{.State.Pid}}' "$(docker ps -q --filter "label=com.docker.compose.project=$COMPOSE_PROJECT_NAME" \
      --filter "label=com.docker.compose.service=$1")"
  else
    cut -d' ' -f1 "$LAB_DIR/run/$1.pid"
  fi
}

# The shape `make up` resolved for the test lab: on the engine's CPUs under compose, on this
# process's CPUs natively
expected_shape() {
  local cpus
  if [[ "$(lab_runtime)" == compose ]]; then
    cpus="0-$(($(docker info --format '{{.NCPU}}') - 1))"
  else
    cpus="$(sed -n 's/^Cpus_allowed_list:\s*//p' /proc/self/status)"
  fi
  local line
  while IFS= read -r line; do export "$line"; done < <(node "$CONTRACT/bin/node-config" env --cpus "$cpus")
}

@test "every node runs with the CPU set, quota and memory limit its shape gives it, read back from the kernel" {
  expected_shape
  [[ "$SHAPE" == groups ]] || skip "the test lab runs with SHAPE=$SHAPE"
  local n pid cpuset cpus mem want
  for n in $(lab_nodes); do
    pid="$(host_pid "$n")"
    [[ -n "$pid" && -d "/proc/$pid" ]] || fail "$n: no process"
    read -r cpuset cpus mem < <(node_limits "$pid")
    want="$(node_var "$n" CPUSET_APPLIED)"
    if [[ -n "$want" ]]; then
      assert_equal "$n cpuset $cpuset" "$n cpuset $want"
    else
      assert_equal "$n cpuset $cpuset" "$n cpuset $(sed -n 's/^Cpus_allowed_list:\s*//p' /proc/1/status)"
    fi
    want="$(node_var "$n" CPUS_APPLIED)"
    assert_equal "$n cpus $cpus" "$n cpus $([[ "$want" == 0 ]] && echo - || echo "$want")"
    want="$(node_var "$n" MEM_APPLIED)"
    assert_equal "$n mem $mem" "$n mem $([[ "$want" == 0 ]] && echo - || echo $((want / 1048576)))"
  done
  # the default shape gives the groups disjoint slices when there are CPUs enough
  local g1 g2
  g1="$(node_var "$(nodes_of_group g1 | head -1)" CPUSET_APPLIED)" g2="$(node_var "$(nodes_of_group g2 | head -1)" CPUSET_APPLIED)"
  [[ -n "$g1" && -n "$g2" ]]
  (($(nproc) < 2)) || [[ "$g1" != "$g2" ]]
}

@test "each node sizes its thread pools from its share: node.processors and allocated_processors" {
  expected_shape
  [[ "$SHAPE" == groups ]] || skip "the test lab runs with SHAPE=$SHAPE"
  local os settings n want
  os="$(es GET "/_nodes/os?filter_path=nodes.*.name,nodes.*.os.allocated_processors")"
  settings="$(es GET "/_nodes/settings?filter_path=nodes.*.name,nodes.*.settings.node.processors")"
  for n in $(lab_nodes); do
    want="$(node_var "$n" PROCESSORS_APPLIED)"
    assert_equal "$n $(jq -r --arg n "$n" '.nodes[] | select(.name == $n) | .settings.node.processors' <<<"$settings")" "$n $want"
    # allocated_processors is the share rounded up to whole processors
    assert_equal "$n $(jq -r --arg n "$n" '.nodes[] | select(.name == $n) | .os.allocated_processors' <<<"$os")" \
      "$n $(awk -v p="$want" 'BEGIN { i = int(p); print (p > i) ? i + 1 : i }')"
  done
}

# threads_cpus PID...: the CPU each thread of each PID last ran on, one per line
threads_cpus() {
  local pid stat
  for pid in "$@"; do
    for stat in /proc/"$pid"/task/*/stat; do
      stat="$(cat "$stat" 2>/dev/null)" || continue
      stat="${stat##*) }"
      # shellcheck disable=SC2086 # the fields of the stat line
      set -- $stat
      echo "${37}"
    done
  done
}

# cpu_ticks PID: user + system time of PID so far, in clock ticks
cpu_ticks() {
  local s
  s="$(cat "/proc/$1/stat")"
  s="${s##*) }"
  # shellcheck disable=SC2086 # the fields of the stat line
  set -- $s
  echo $((${12} + ${13}))
}

@test "a CPU-bound load on a g1 node runs on g1's CPUs only" {
  expected_shape
  [[ "$SHAPE" == groups ]] || skip "the test lab runs with SHAPE=$SHAPE"
  (($(nproc) >= 2)) || skip "one CPU: the groups cannot have slices apart"
  local node slice index=shape-load pid before used cpu i
  node="$(nodes_of_group g1 | head -1)"
  slice="$(parse_list "$(node_var "$node" CPUSET_APPLIED)")"
  es DELETE "/$index" >/dev/null 2>&1 || true
  es PUT "/$index" "{\"settings\":{\"number_of_shards\":1,\"number_of_replicas\":0,\"index.routing.allocation.require._name\":\"$node\"}}" >/dev/null
  for ((i = 0; i < 20000; i++)); do
    echo '{"index":{}}'
    echo "{\"n\":$i,\"k\":\"k$((i % 997))\",\"m\":$(((i * 7919) % 10007))}"
  done | curl -fsS --max-time 60 -X POST "$ES/$index/_bulk?refresh=true" -H 'content-type: application/x-ndjson' --data-binary @- >/dev/null
  pid="$(host_pid "$node")"
  before="$(cpu_ticks "$pid")"
  # four clients hammer the node with aggregations (no request cache) for 6 s, then stop
  local url body='{"size":0,"aggs":{"k":{"terms":{"field":"k.keyword","size":1000},"aggs":{"m":{"avg":{"field":"m"}}}},"h":{"histogram":{"field":"n","interval":10}}}}'
  url="http://$LAB_BIND:$(node_var "$node" HTTP_PORT)/$index/_search?request_cache=false"
  LOADERS=""
  for i in 1 2 3 4; do
    timeout 6 bash -c 'while curl -fsS -o /dev/null --max-time 5 -H "content-type: application/json" -d "$2" "$1"; do :; done' _ "$url" "$body" &
    LOADERS+=" $!"
  done
  local seen=""
  for ((i = 0; i < 25; i++)); do
    seen+="$(threads_cpus "$pid")"$'\n'
    sleep 0.2
  done
  wait $LOADERS 2>/dev/null || true
  LOADERS=""
  used=$(($(cpu_ticks "$pid") - before))
  es DELETE "/$index" >/dev/null
  # the load was real: at least a second of CPU in the 6 s window
  ((used >= $(getconf CLK_TCK))) || fail "$node used only $used ticks of CPU under load: the load did not run"
  for cpu in $(sort -un <<<"$seen"); do
    grep -qx "$cpu" <<<"$slice" || fail "$node ($(node_var "$node" GROUP), slice $(node_var "$node" CPUSET_APPLIED)) ran a thread on CPU $cpu"
  done
}

# parse_list 0-1,3: one CPU a line
parse_list() {
  local part
  for part in ${1//,/ }; do
    if [[ "$part" == *-* ]]; then seq "${part%-*}" "${part#*-}"; else echo "$part"; fi
  done
}

@test "make status shows each node's size and its CPU use now" {
  run make -s -C "$REPO" status
  assert_success
  assert_line --regexp '^node sizes \(applied (with|by)'
  assert_line --regexp '^NODE +CPUSET +CPUS +MEM_MB +PROCESSORS +CPU_NOW$'
  local n
  for n in $(lab_nodes); do assert_line --regexp "^$n +[-0-9,]+ +[-0-9.]+ +[-0-9]+ +[0-9]+ +[0-9]+%$"; done
}

@test "a size the machine cannot give, or a bad one, is one line and exit 2 before anything starts" {
  OTHER="$BATS_TEST_TMPDIR/bad-shape"
  local bad
  for bad in "ES_DATA_1_CPUSET=$(($(nproc --all) + 7))" "ES_DATA_1_CPUS=$(($(nproc --all) + 1))" ES_DATA_1_CPUS=0 \
    ES_DATA_1_MEM=128m ES_DATA_1_CPUSET=0-x ES_DATA_1_CPU_WEIGHT=0 ES_DATA_1_CPU_WEIGHT=20000 LOAD_CPU_WEIGHT=heavy SHAPE=maybe; do
    run env "$bad" LAB_DIR="$OTHER" "$LAB" up
    assert_failure 2
    # one error line, naming the key (scripts/lab's "runtime: ..." line may come first)
    assert_equal "$(grep -c '^error: ' <<<"$output")" 1
    ((${#lines[@]} <= 2)) || fail "more than the error line: $output"
    assert_line --regexp "^error: .*${bad%%=*}="
    assert_equal "$(lab_pids "$OTHER")" ""
    [[ ! -e "$OTHER/runtime" ]]
  done
}

@test "native, no writable cgroup: taskset pins the CPU set and make up says the quota, memory limit and load engine weight are not applied" {
  [[ "$(lab_runtime)" != compose ]] || skip "native only (compose applies sizes through the engine)"
  (($(nproc) >= 2)) || skip "one CPU"
  OTHER="$BATS_TEST_TMPDIR/taskset-lab"
  local env=(PATH="$PATH" HOME="$HOME" LAB_DIR="$OTHER" RUNTIME=native SEED=0 LAB_SERVICES= ES_HEAP=256m
    LAB_NODES=es-master,es-data-1,es-data-3 SHAPE_METHOD=taskset ES_DATA_3_CPUS=0.5 ES_DATA_3_MEM=512m LOAD_CPU_WEIGHT=500)
  run env -i "${env[@]}" bash -c 'source "$1/scripts/lib/config.sh" && shift_lab_ports 2500 && exec "$LAB_ROOT/scripts/lab" up' _ "$REPO"
  assert_success
  assert_output --partial "applied with taskset: CPU sets only; NOT applied: the CPU quotas, weights and memory limits of es-data-3"
  assert_output --partial "NOT applied: LOAD_CPU_WEIGHT=500 (the load engine's group needs the nodes' sizes applied with cgroups; here: taskset)"
  [[ ! -e "$OTHER/run/load-engine.cgroup" ]] || fail "taskset made a load-engine group file"
  local pid slice
  slice="$(env -i "${env[@]}" node "$CONTRACT/bin/node-config" env | sed -n "s/^ES_DATA_3_CPUSET_APPLIED=//p")"
  [[ -n "$slice" ]]
  pid="$(cut -d' ' -f1 "$OTHER/run/es-data-3.pid")"
  # g2's slice, pinned by taskset; no cgroup limit (the quota and memory are not applied)
  assert_equal "$(node_limits "$pid")" "$slice - -"
  # taskset exec'd java in place: the recorded pid is the JVM's
  [[ "$(tr '\0' '\n' <"/proc/$pid/cmdline" | head -1)" == */java ]] || fail "pid $pid is not the JVM: $(tr '\0' ' ' <"/proc/$pid/cmdline" | cut -c1-80)"
  env -i PATH="$PATH" HOME="$HOME" LAB_DIR="$OTHER" RUNTIME=native "$LAB" down >/dev/null 2>&1
  assert_equal "$(lab_pids "$OTHER")" ""
  OTHER=""
}

# cpu_weight_of PID: the CPU weight of PID's cpu group and of the two above it (the lab's, then
# tenantlab's), on cgroup v2's scale whichever version holds them: "NODE LAB TOP"
cpu_weight_of() {
  local path file=cpu.weight scale=1 dir out=""
  path="$(awk -F: '$2 ~ /(^|,)cpu(,|$)/ { print $3 }' "/proc/$1/cgroup")"
  if [[ -n "$path" ]]; then dir="$CGROUP_FS/cpu$path" file=cpu.shares scale=1024
  else dir="$CGROUP_FS$(awk -F: '$1 == 0 { print $3 }' "/proc/$1/cgroup")"; fi
  for _ in 1 2 3; do
    out+="$(($(cat "$dir/$file") * 100 / scale)) "
    dir="${dir%/*}"
  done
  echo "${out% }"
}

@test "native: a node's CPU weight is on its cgroup, the load engine's beside it, and the lab's group weighs their sum" {
  [[ "$(lab_runtime)" != compose ]] || skip "native only (compose gives the weight to the engine as cpu_shares)"
  OTHER="$BATS_TEST_TMPDIR/weight-lab"
  local env=(PATH="$PATH" HOME="$HOME" LAB_DIR="$OTHER" RUNTIME=native SEED=0 LAB_SERVICES= ES_HEAP=256m LAB_WARMUP=0s
    LAB_NODES=es-master,es-data-1,es-data-3 ES_DATA_3_CPUS=0.5 ES_DATA_3_CPU_WEIGHT=1000 LOAD_CPU_WEIGHT=500)
  [[ "$(env -i "${env[@]}" bash -c 'source "$1/scripts/lib/config.sh" && source "$1/runtimes/native/lib/node-limits.sh" && shape_method' _ "$REPO")" == cgroup-v* ]] ||
    skip "no writable cgroup here: taskset applies no weight (the taskset test checks that it says so)"
  run env -i "${env[@]}" bash -c 'source "$1/scripts/lib/config.sh" && shift_lab_ports 2600 && exec "$LAB_ROOT/scripts/lab" up' _ "$REPO"
  assert_success
  assert_output --partial "es-data-3 0.5 cores weight 1000"
  assert_output --regexp "applied with cgroup-v[12] groups .*: CPU sets, quotas, weights and memory limits"
  assert_output --regexp "the load engine weighs 500 beside the nodes \(LOAD_CPU_WEIGHT; cgroup-v[12] group tenantlab/[0-9a-f]+/load-engine\)"
  # es-data-3 weighs 1000 (10 ordinary processes); the lab 100 (master) + 100 (es-data-1) + 1000
  # + 500 (the load engine); tenantlab at least the lab's, so the cluster is not one process
  # against what runs beside it
  local w3 w1 we lab top engine
  read -r w3 lab top <<<"$(cpu_weight_of "$(cut -d' ' -f1 "$OTHER/run/es-data-3.pid")")"
  assert_equal "$w3 $lab" "1000 1700"
  ((top >= 1700)) || fail "tenantlab weighs $top, less than the lab's 1700"
  read -r w1 _ <<<"$(cpu_weight_of "$(cut -d' ' -f1 "$OTHER/run/es-data-1.pid")")"
  assert_equal "$w1" 100
  # what make load and the experiments start the engine with: in the lab's load-engine group,
  # the same pid (exec), weighing 500 inside the lab's 1700
  LAB_DIR="$OTHER" "$REPO/runtimes/native/bin/load-engine-exec" sleep 30 &
  engine=$!
  sleep 0.5
  [[ "$(tr '\0' ' ' <"/proc/$engine/cmdline")" == "sleep 30 " ]] || fail "load-engine-exec did not exec the engine in place: $(tr '\0' ' ' <"/proc/$engine/cmdline")"
  grep -q '/load-engine$' "/proc/$engine/cgroup" || fail "the engine is not in the load-engine group: $(cat "/proc/$engine/cgroup")"
  read -r we lab _ <<<"$(cpu_weight_of "$engine")"
  kill "$engine"; wait "$engine" 2>/dev/null || true
  assert_equal "$we $lab" "500 1700"
  # a lab without LOAD_CPU_WEIGHT has no such group: the engine runs as an ordinary process
  run env LAB_DIR="$BATS_TEST_TMPDIR/no-lab" "$REPO/runtimes/native/bin/load-engine-exec" cat /proc/self/cgroup
  assert_success
  refute_output --partial load-engine
  env -i PATH="$PATH" HOME="$HOME" LAB_DIR="$OTHER" RUNTIME=native "$LAB" down >/dev/null 2>&1
  assert_equal "$(lab_pids "$OTHER")" ""
  [[ ! -e "$OTHER/run/load-engine.cgroup" ]] || fail "make down left $OTHER/run/load-engine.cgroup"
  OTHER=""
}
