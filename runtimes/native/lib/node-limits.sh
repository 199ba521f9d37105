# Node sizes for the native runtime: the shape packages/contract/src/shape.js resolves (per node
# a CPU set, a CPU quota, a CPU weight, a memory limit: the cpuset, cpus, cpu_weight and mem lines
# of the node config,
# nodes.sh's load_node_config), applied to each JVM with what this machine offers:
#   cgroup-v2  a group per node under /sys/fs/cgroup/tenantlab/<lab>/ (root, or a delegated tree
#              where the cpu, cpuset and memory controllers can be enabled): every limit and
#              the CPU weight
#   cgroup-v1  the same groups under /sys/fs/cgroup/{cpu,cpuset,memory}/: the same
#   taskset    CPU sets only (no writable cgroup: no root, no delegation); quotas, weights and
#              memory limits are not applied, and `make up` says so
#   none       nothing can be applied (no taskset either); `make up` says so
# SHAPE_METHOD=auto (lab.env) takes the first that works here; naming one forces it (a test of
# the fallback, or a machine where auto guesses wrong). The JVM enters its groups before its
# first instruction (runtimes/native/bin/cgroup-exec, or taskset, exec the java command in place), so
# the pid the lab records is the JVM's and every thread it starts is limited.

CGROUP_FS=/sys/fs/cgroup
CGROUP_CONTROLLERS="cpu cpuset memory"

# The lab's own subtree: one per LAB_DIR, so the user's lab, the test lab and an experiment's
# lab can be shaped side by side
cgroup_lab_path() { echo "tenantlab/$(printf '%s' "$LAB_DIR" | sha1sum | cut -c1-12)"; }

cgroup_v2_usable() {
  [[ "$(stat -fc %T "$CGROUP_FS" 2>/dev/null)" == cgroup2fs ]] || return 1
  local c
  for c in $CGROUP_CONTROLLERS; do grep -qw "$c" "$CGROUP_FS/cgroup.controllers" 2>/dev/null || return 1; done
  mkdir -p "$CGROUP_FS/tenantlab" 2>/dev/null && [[ -w "$CGROUP_FS/tenantlab/cgroup.procs" ]]
}

cgroup_v1_usable() {
  local c
  for c in $CGROUP_CONTROLLERS; do
    [[ "$(stat -fc %T "$CGROUP_FS/$c" 2>/dev/null)" == cgroupfs ]] || return 1
    mkdir -p "$CGROUP_FS/$c/tenantlab" 2>/dev/null && [[ -w "$CGROUP_FS/$c/tenantlab/cgroup.procs" ]] || return 1
  done
}

# The method this machine allows (SHAPE_METHOD=auto), or the one asked for if it works here
shape_method() {
  local want="${SHAPE_METHOD:-auto}"
  [[ "$SHAPE" == off ]] && { echo off; return; }
  case "$want" in
    auto)
      if cgroup_v2_usable; then echo cgroup-v2
      elif cgroup_v1_usable; then echo cgroup-v1
      elif command -v taskset >/dev/null; then echo taskset
      else echo none; fi ;;
    cgroup-v2) cgroup_v2_usable || die "SHAPE_METHOD=cgroup-v2: no writable cgroup v2 tree with the cpu, cpuset and memory controllers here: use SHAPE_METHOD=auto"; echo "$want" ;;
    cgroup-v1) cgroup_v1_usable || die "SHAPE_METHOD=cgroup-v1: the cpu, cpuset and memory cgroup v1 hierarchies are not writable here: use SHAPE_METHOD=auto"; echo "$want" ;;
    taskset) command -v taskset >/dev/null || die "SHAPE_METHOD=taskset: taskset is not installed (Debian: util-linux): use SHAPE_METHOD=auto"; echo "$want" ;;
    none) echo none ;;
    *) die "SHAPE_METHOD=$want: use auto, cgroup-v2, cgroup-v1, taskset or none" ;;
  esac
}

# What `make up` says about the shape: the resolved one, how it is applied, what is not
describe_applied_shape() {
  local method="$1" n limited=""
  load_node_config
  say "$(node_config '*' shape)"
  [[ "$method" == off ]] && return 0
  for n in $(lab_nodes); do
    [[ "$(node_config "$n" cpus)" != 0 || "$(node_config "$n" cpu_weight)" != 0 || "$(node_config "$n" mem)" != 0 ]] && limited+=" $n"
  done
  case "$method" in
    cgroup-v1 | cgroup-v2) say "  applied with $method groups under $CGROUP_FS ($(cgroup_lab_path)/<node>): CPU sets, quotas, weights and memory limits" ;;
    taskset) say "  applied with taskset: CPU sets only${limited:+; NOT applied: the CPU quotas, weights and memory limits of$limited (they need a writable cgroup: run as root, or delegate cgroup v2)}" ;;
    none) say "  NOT applied: neither a writable cgroup nor taskset here; every node runs on every CPU" ;;
  esac
}

# write_first FILE VALUE...: the first value the kernel accepts (cgroup files refuse some forms)
write_first() {
  local file="$1" v
  shift
  for v in "$@"; do echo "$v" >"$file" 2>/dev/null && return 0; done
  return 1
}

# v1 cpusets start empty: a new group takes its parent's CPUs and memory nodes before any task
# can join it
cpuset_inherit() {
  local dir="$1" parent="${1%/*}" f
  for f in cpuset.cpus cpuset.mems; do
    [[ -n "$(cat "$dir/$f")" ]] || cat "$parent/$f" >"$dir/$f"
  done
}

# weigh_cgroups METHOD NODE BASE: the node's <KEY>_CPU_WEIGHT on its group, and the weight of
# the groups above it, each in METHOD's scale (v1 cpu.shares, v2 cpu.weight) as node-config
# gives it (packages/contract/src/node-config.js cgroupWeights: the one place weights are
# summed and mapped). The kernel weighs a group against its siblings only: the lab's group
# carries the sum of what is in it, and tenantlab, which competes with every other process of
# the machine, the heaviest of its labs' (a test lab beside the user's keeps its own weight).
weigh_cgroups() {
  local method="$1" node="$2" base="$3" file=cpu.weight scale=weight one=100 w top lab
  [[ "$method" == cgroup-v1 ]] && file=cpu.shares scale=shares one=1024
  w="$(node_config "$node" "cpu_$scale")"
  [[ "${w:-0}" != 0 ]] || w=$one
  echo "$w" >"$base/$(cgroup_lab_path)/$node/$file" || die "$node: cannot set $file in $base/$(cgroup_lab_path)/$node"
  echo "$(node_config '*' "lab_cpu_$scale")" >"$base/$(cgroup_lab_path)/$file" || die "cannot set $file in $base/$(cgroup_lab_path)"
  top=$one
  for lab in "$base"/tenantlab/*/; do
    [[ -r "$lab$file" ]] || continue
    w="$(cat "$lab$file")"
    ((w > top)) && top=$w
  done
  echo "$top" >"$base/tenantlab/$file" || die "cannot set $file in $base/tenantlab"
}

# The load engine's group, tenantlab/<lab>/load-engine, weighed as LOAD_CPU_WEIGHT asks (the
# instrument beside the nodes it measures, not behind them: an ordinary process weighs 100
# against a lab whose nodes weigh 1000 each). Made at `make up` once the nodes' groups exist;
# $RUN_DIR/load-engine.cgroup lists the cgroup.procs files runtimes/native/bin/load-engine-exec
# puts each engine into. Nothing when the weight is unset or the method has no cgroups.
prepare_load_engine_cgroup() {
  local method="$1" rel dir w
  rm -f "$RUN_DIR/load-engine.cgroup"
  if [[ "$method" != cgroup-v1 && "$method" != cgroup-v2 ]]; then
    [[ -z "${LOAD_CPU_WEIGHT:-}" ]] || say "  NOT applied: LOAD_CPU_WEIGHT=$LOAD_CPU_WEIGHT (the load engine's group needs the nodes' sizes applied with cgroups; here: $method)"
    return 0
  fi
  load_node_config
  rel="$(cgroup_lab_path)/load-engine"
  if [[ "$method" == cgroup-v1 ]]; then
    w="$(node_config '*' load_cpu_shares)" dir="$CGROUP_FS/cpu/$rel"
    [[ "${w:-0}" != 0 ]] || return 0
    mkdir -p "$dir" && echo "$w" >"$dir/cpu.shares" || die "cannot set cpu.shares=$w in $dir (LOAD_CPU_WEIGHT)"
  else
    w="$(node_config '*' load_cpu_weight)" dir="$CGROUP_FS/$rel"
    [[ "${w:-0}" != 0 ]] || return 0
    mkdir -p "$dir" && echo "$w" >"$dir/cpu.weight" || die "cannot set cpu.weight=$w in $dir (LOAD_CPU_WEIGHT)"
  fi
  echo "$dir/cgroup.procs" >"$RUN_DIR/load-engine.cgroup"
  say "  the load engine weighs $(node_config '*' load_cpu_weight) beside the nodes (LOAD_CPU_WEIGHT; $method group $rel)"
}

# prepare_node_cgroup METHOD NODE: creates (or resets) the node's groups with its limits and
# prints the cgroup.procs files its JVM must enter
prepare_node_cgroup() {
  local method="$1" node="$2" rel cpuset cpus mem dir d
  rel="$(cgroup_lab_path)/$node"
  cpuset="$(node_config "$node" cpuset)" cpus="$(node_config "$node" cpus)" mem="$(node_config "$node" mem)"
  local quota=-1
  [[ "$cpus" != 0 ]] && quota="$(awk -v c="$cpus" 'BEGIN { printf "%d", c * 100000 }')"
  if [[ "$method" == cgroup-v1 ]]; then
    for d in tenantlab "$(cgroup_lab_path)" "$rel"; do
      mkdir -p "$CGROUP_FS/cpuset/$d" && cpuset_inherit "$CGROUP_FS/cpuset/$d"
    done
    dir="$CGROUP_FS/cpuset/$rel"
    [[ -n "$cpuset" ]] || cpuset="$(cat "$dir/../cpuset.cpus")"
    echo "$cpuset" >"$dir/cpuset.cpus" || die "$node: cannot set cpuset.cpus=$cpuset in $dir"
    mkdir -p "$CGROUP_FS/cpu/$rel" "$CGROUP_FS/memory/$rel"
    echo 100000 >"$CGROUP_FS/cpu/$rel/cpu.cfs_period_us"
    echo "$quota" >"$CGROUP_FS/cpu/$rel/cpu.cfs_quota_us" || die "$node: cannot set cpu.cfs_quota_us=$quota"
    weigh_cgroups "$method" "$node" "$CGROUP_FS/cpu"
    [[ "$mem" == 0 ]] && mem=-1
    echo "$mem" >"$CGROUP_FS/memory/$rel/memory.limit_in_bytes" || die "$node: cannot set memory.limit_in_bytes=$mem"
    for d in cpu cpuset memory; do echo "$CGROUP_FS/$d/$rel/cgroup.procs"; done
  else
    local parent="$CGROUP_FS"
    for d in tenantlab "$(cgroup_lab_path)" "$rel"; do
      # a group that holds tasks cannot hand controllers down (no internal processes)
      write_first "$parent/cgroup.subtree_control" "+cpu +cpuset +memory" || true
      parent="$parent/$d"
      mkdir -p "$parent"
    done
    dir="$CGROUP_FS/$rel"
    echo "$cpuset" >"$dir/cpuset.cpus" || die "$node: cannot set cpuset.cpus=$cpuset in $dir"
    [[ "$quota" == -1 ]] && quota=max
    echo "$quota 100000" >"$dir/cpu.max" || die "$node: cannot set cpu.max in $dir"
    weigh_cgroups "$method" "$node" "$CGROUP_FS"
    [[ "$mem" == 0 ]] && mem=max
    echo "$mem" >"$dir/memory.max" || die "$node: cannot set memory.max in $dir"
    echo "$dir/cgroup.procs"
  fi
}

# shape_prefix NODE: the words to put before the node's java command line
shape_prefix() {
  local node="$1" method procs cpuset
  method="$(head -n 1 "$RUN_DIR/shape" 2>/dev/null || echo off)"
  case "$method" in
    cgroup-v1 | cgroup-v2)
      mapfile -t procs < <(prepare_node_cgroup "$method" "$node")
      ((${#procs[@]})) || exit 2
      echo "$LAB_ROOT/runtimes/native/bin/cgroup-exec"; printf '%s\n' "${procs[@]}"; echo -- ;;
    taskset)
      cpuset="$(node_config "$node" cpuset)"
      [[ -n "$cpuset" ]] && { echo taskset; echo -c; echo "$cpuset"; } ;;
  esac
  return 0
}

# Removes a stopped node's groups (a group with a task in it stays: the kernel refuses)
remove_node_cgroup() {
  local rel c
  rel="$(cgroup_lab_path)/$1"
  for c in $CGROUP_CONTROLLERS; do rmdir "$CGROUP_FS/$c/$rel" 2>/dev/null || true; done
  rmdir "$CGROUP_FS/$rel" 2>/dev/null || true
}

# Removes the lab's subtree once its nodes are gone
remove_lab_cgroups() {
  local rel c base
  rel="$(cgroup_lab_path)"
  rm -f "$RUN_DIR/load-engine.cgroup"
  for base in "$CGROUP_FS/cpu" "$CGROUP_FS/cpuset" "$CGROUP_FS/memory" "$CGROUP_FS"; do
    [[ -d "$base/$rel" ]] || continue
    find "$base/$rel" -mindepth 1 -depth -type d -exec rmdir {} + 2>/dev/null || true
    rmdir "$base/$rel" 2>/dev/null || true
    # the shared parent goes with the last lab (another lab's groups keep it)
    rmdir "$base/tenantlab" 2>/dev/null || true
  done
}

# node_limits PID: what the kernel applies to PID, read back (not what was asked):
# "CPUSET CPUS MEM" with CPUS in cores and MEM in MiB, '-' for none
node_limits() {
  local pid="$1" cpuset quota=- mem=- path period q line
  cpuset="$(sed -n 's/^Cpus_allowed_list:\s*//p' "/proc/$pid/status" 2>/dev/null)"
  [[ -n "$cpuset" ]] || { echo "- - -"; return; }
  while IFS=: read -r _ ctrls path; do
    case ",$ctrls," in
      ,,) # cgroup v2: one line, no controller list
        if [[ -r "$CGROUP_FS$path/cpu.max" ]]; then
          read -r q period <"$CGROUP_FS$path/cpu.max"
          [[ "$q" != max ]] && quota="$(awk -v q="$q" -v p="$period" 'BEGIN { printf "%g", q / p }')"
          line="$(cat "$CGROUP_FS$path/memory.max" 2>/dev/null)"
          [[ -n "$line" && "$line" != max ]] && mem=$((line / 1048576))
        fi ;;
      *,cpu,*)
        q="$(cat "$CGROUP_FS/cpu$path/cpu.cfs_quota_us" 2>/dev/null || echo -1)"
        period="$(cat "$CGROUP_FS/cpu$path/cpu.cfs_period_us" 2>/dev/null || echo 100000)"
        ((q > 0)) && quota="$(awk -v q="$q" -v p="$period" 'BEGIN { printf "%g", q / p }')" ;;
      *,memory,*)
        line="$(cat "$CGROUP_FS/memory$path/memory.limit_in_bytes" 2>/dev/null || echo 0)"
        # "no limit" reads as a huge page-rounded number on v1
        ((line > 0 && line < 1 << 50)) && mem=$((line / 1048576)) ;;
    esac
  done <"/proc/$pid/cgroup"
  echo "$cpuset $quota $mem"
}
