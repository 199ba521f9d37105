# The one driver interface of the lab's runtimes (runtimes/README.md). Each runtime's bin/lab
# sources this file, defines what is its own, and ends with `lab_main "$@"`. The dispatcher
# (runtimes/lib/dispatch, behind make) picks the runtime and sources that bin/lab in its own
# process, so what lab_main does before a command runs once per command, whoever called it.
#
# The commands every runtime takes: up, down, status, logs [SERVICE], kill NODE, restart NODE,
# clean; a runtime may add its own (DRIVER_EXTRA_COMMANDS). A driver defines:
#   DRIVER                 native, compose or external (the runtime file, `make status`)
#   DRIVER_LAB_NODES       1: it runs lab.env's nodes (`up` checks the topology first; kill and
#                          restart take one of them); 0: the cluster is someone else's
#   DRIVER_SHAPE_COMMANDS  the commands that need the nodes' sizes, loaded before they run
#   DRIVER_EXTRA_COMMANDS  its own further commands, each taking any arguments (may be empty)
#   cmd_up cmd_down cmd_status cmd_kill cmd_restart cmd_clean (and cmd_<extra>)
#   driver_log_names       every name `logs SERVICE` takes, one a line
#   driver_forget          forgets the lab once nothing of it runs (the runtime file, ...)
# and may define:
#   driver_logs [NAME]     shows the logs (default: the files under LOG_DIR, show_log_files)
#   driver_check_topology  `up`'s checks after the topology model's
#   driver_shape_cpus      the CPU list the nodes are sized on (default: this machine's)
#   driver_load_shape      loads the sizes itself (default: lab_load_shape)
#   driver_node_limits N   node N's size as applied, "CPUSET CPUS MEM_MB" (for status_sizes)
#   driver_running         what of the lab still runs (for undo_up)
set -euo pipefail
source "$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/scripts/lib/config.sh"
source "$LAB_ROOT/scripts/lib/cluster.sh"
source "$LAB_ROOT/scripts/lib/process.sh"

LAB_COMMANDS=(up down status "logs [SERVICE]" "kill NODE" "restart NODE" clean)

# lab_usage WORDS: the one line for a command this runtime does not take, exit 2
lab_usage() {
  local words=("${LAB_COMMANDS[@]}") w list=""
  for w in ${DRIVER_EXTRA_COMMANDS:-}; do words+=("$w"); done
  for w in "${words[@]:0:${#words[@]}-1}"; do list+="$w, "; done
  die "unknown command '$1': use ${list%, } or ${words[-1]}"
}

# lab_main COMMAND [ARG...]: the dispatch. Bad input is one line and exit 2 before anything runs;
# then, for `up` of the lab's own nodes, the topology check; the runtime's name when the
# dispatcher picked it; the nodes' sizes; the command.
lab_main() {
  local cmd="${1:-}"
  case "$cmd" in
    up | down | status | clean) (($# == 1)) || lab_usage "$*" ;;
    logs | kill | restart) (($# <= 2)) || lab_usage "$*" ;;
    *) [[ -n "$cmd" && " ${DRIVER_EXTRA_COMMANDS:-} " == *" $cmd "* ]] || lab_usage "$cmd" ;;
  esac
  shift
  if ((DRIVER_LAB_NODES)); then
    if [[ "$cmd" == kill || "$cmd" == restart ]]; then require_node "${1:-}"; fi
    if [[ "$cmd" == up ]]; then lab_check_topology; fi
  fi
  if [[ -n "${DISPATCH_REASON:-}" ]]; then say "runtime: $DRIVER ($DISPATCH_REASON)"; fi
  if [[ " $DRIVER_SHAPE_COMMANDS " == *" $cmd "* ]]; then
    if declare -F driver_load_shape >/dev/null; then driver_load_shape; else lab_load_shape; fi
  fi
  "cmd_$cmd" "$@"
}

# lab_check_topology: lab.env's topology through the one model (packages/contract/src/topology.js):
# a broken one is one line naming the key to fix, exit 2, before anything starts
lab_check_topology() {
  "$LAB_ROOT/packages/contract/bin/topology" check || exit 2
  if declare -F driver_check_topology >/dev/null; then driver_check_topology; fi
}

# lab_load_shape: the nodes' sizes (packages/contract/src/shape.js) resolved on the runtime's CPUs
# (driver_shape_cpus), exported for the driver and what it starts: per node
# <KEY>_{CPUSET,CPUS,MEM,HEAP,PROCESSORS}_APPLIED, and SHAPE_APPLIED (one line saying what the
# shape is). A size the CPUs cannot give is one line and exit 2, before anything runs.
lab_load_shape() {
  local cpus="" lines line
  if declare -F driver_shape_cpus >/dev/null; then cpus="$(driver_shape_cpus)"; fi
  lines="$("$LAB_ROOT/packages/contract/bin/node-config" env ${cpus:+--cpus "$cpus"})" || exit 2
  # KEY=VALUE lines exported as data, never evaluated
  while IFS= read -r line; do [[ -n "$line" ]] && export "$line"; done <<<"$lines"
  return 0
}

# ---- status: one table format for every runtime ----
# status_row SERVICE RUNTIME GROUP URL STATE RSS_MB HANDLE: a row ('-' where nothing applies;
# HANDLE is the runtime's hold on it: a pid, a container)
status_row() {
  local line
  printf -v line '%-12s %-8s %-11s %-24s %-20s %-8s %s' "$@"
  echo "${line%"${line##*[! ]}"}"
}
# status_header HANDLE: the table's first line (PID, CONTAINER)
status_header() { status_row SERVICE RUNTIME GROUP URL STATE RSS_MB "$1"; }
# status_cluster HEALTH WHERE [RSS_TOTAL]: the line under the table
status_cluster() { echo "cluster: ${1:-unreachable} at $2${3:+; Elasticsearch RSS total $3 MiB}"; }
# status_sizes HOW APPLIED: each node's size as the runtime applies it (driver_node_limits), with
# Elasticsearch's view and the CPU use now (print_node_sizes)
status_sizes() {
  local n
  echo
  echo "node sizes ($1): $2"
  for n in $(lab_nodes); do echo "$n $(driver_node_limits "$n")"; done | print_node_sizes
}

# ---- logs [SERVICE]: the last LINES (default 50) lines of every log or of SERVICE's; FOLLOW=1
# follows. An unknown SERVICE is one line naming those there are (DRIVER_LOGS_HINT after them).
cmd_logs() {
  if [[ -n "${1:-}" ]]; then
    local known
    known="$(driver_log_names)"
    grep -qxF -- "$1" <<<"$known" || die "unknown SERVICE '$1': pick one of $(paste -sd ' ' <<<"$known")${DRIVER_LOGS_HINT:-}"
  fi
  if declare -F driver_logs >/dev/null; then driver_logs ${1:+"$1"}; return; fi
  local names
  if [[ -n "${1:-}" ]]; then names=("$1"); else mapfile -t names < <(driver_log_names); fi
  show_log_files "${names[@]}"
}

# show_log_files NAME...: the logs under LOG_DIR of the processes NAME... (those there are)
show_log_files() {
  local n existing=()
  for n in "$@"; do [[ -f "$(log_file "$n")" ]] && existing+=("$(log_file "$n")"); done
  ((${#existing[@]})) || die "no logs yet under $LOG_DIR: run 'make up' first"
  if [[ "${FOLLOW:-0}" == 1 ]]; then exec tail -n "${LINES:-50}" -F "${existing[@]}"; fi
  tail -n "${LINES:-50}" "${existing[@]}"
}

# show_log_tail NAME: the end of a process's log, after a start that failed
show_log_tail() {
  say "---- last 40 lines of $(log_file "$1") ----"
  tail -n 40 "$(log_file "$1")" >&2 || true
}

# ---- kill NODE: the fault drill ----
# not_running NODE: the one line when the node to kill is not running
not_running() { die "$1 is not running (make status shows the nodes)"; }
# say_killed NODE HOW: what `kill` says once the node is gone (HOW: "(pid 123) with SIGKILL")
say_killed() {
  say "killed $1 $2; 'make node-restart NODE=$1' brings it back"
  [[ "$1" != "$LAB_MASTER_NODE" ]] || say "note: $1 is the only master-eligible node and the HTTP entry point: the cluster has no master until it is back"
}

# ---- clean: asks first ----
# confirm_clean WHAT: `make clean` deletes WHAT only once the user says yes at a terminal, or
# with FORCE=1; with no terminal to ask it is one line and exit 2, and "no" ends the command
confirm_clean() {
  [[ "${FORCE:-0}" == 1 ]] && return 0
  [[ -t 0 ]] || die "make clean deletes $1; it asks first, and there is no terminal to ask: run with FORCE=1"
  local answer
  read -r -p "Delete $1? [y/N] " answer
  [[ "$answer" == [yY]* ]] || { say "nothing deleted"; exit 0; }
}

# ---- the lab's processes on this machine (native's nodes, the services of native and external) ----
# remember_runtime: the runtime sticks until `make down` (the dispatcher reads it)
remember_runtime() { mkdir -p "$LAB_DIR"; echo "$DRIVER" >"$LAB_DIR/runtime"; }

# undo_up NAME...: a failed `up` stops what it started (services, and nodes with stop_node NODE
# KILL), so nothing half-started remains; once nothing of the lab runs, driver_forget. Exit 1.
undo_up() {
  local n
  say "stopping what this 'make up' started"
  for n in "$@"; do
    if is_lab_service "$n"; then stop_service "$n"; else stop_node "$n" KILL; fi
  done
  [[ -n "$(driver_running)" ]] || driver_forget
  exit 1
}

# stop_side_by_side STOP NAME...: STOP NAME for every NAME at once, back when all are stopped
stop_side_by_side() {
  local stop="$1" n pids=()
  shift
  for n in "$@"; do "$stop" "$n" & pids+=($!); done
  ((${#pids[@]} == 0)) || wait "${pids[@]}" 2>/dev/null || true
}

# kill_stray_processes: processes of this lab whose pid file is gone (e.g. a crashed `make up`)
kill_stray_processes() {
  local stray
  for stray in $(lab_process_pids); do kill -KILL "$stray" 2>/dev/null || true; done
}
