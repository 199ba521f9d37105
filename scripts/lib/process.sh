# Processes and ports of a lab, shared by both runtime drivers.
# Every process a native lab starts carries TENANTLAB_LAB=$LAB_DIR in its environment, so the
# lab can tell its own processes from another lab's, and find them when a pid file is lost.

# port_holder PORT: "PID COMMAND-LINE" of the process listening on PORT; "?" when the system
# will not say (another user's process); empty when the port is free.
port_holder() {
  local pid
  pid="$(port_pids "$1" | head -1)"
  if [[ -n "$pid" ]]; then
    echo "$pid $(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | cut -c1-80)"
  elif ss -Hltn "sport = :$1" 2>/dev/null | grep -q .; then
    echo "? (a process of another user)"
  fi
}

# lab_of_pid PID: the LAB_DIR of the tenantlab lab that started PID, if any
lab_of_pid() { tr '\0' '\n' 2>/dev/null <"/proc/$1/environ" | sed -n 's/^TENANTLAB_LAB=//p'; }

owned_by_lab() { [[ "$(lab_of_pid "$1")" == "$LAB_DIR" ]]; }

# Every process of this lab, whatever became of its pid file
lab_process_pids() {
  local f pid
  for f in /proc/[0-9]*/environ; do
    grep -qzx "TENANTLAB_LAB=$LAB_DIR" "$f" 2>/dev/null || continue
    pid="${f#/proc/}"
    echo "${pid%/environ}"
  done
}

# spawn_detached LOG ARGV...: starts ARGV in a session of its own (it outlives `make up` and a
# Ctrl-C in its terminal), output appended to LOG, cwd LAB_ROOT, tagged as this lab's; prints
# its identity "PID START" (see proc_start), taken from the program's own process once it runs
# (spawn-detached.mjs says why Node does the fork). Prints nothing when ARGV could not be exec'd
# (the reason is in LOG). Descriptors above 2 are closed first so that neither the program nor
# Node keeps open a pipe a caller reads to its end (bats, $(...)).
spawn_detached() {
  local log="$1" pid
  shift
  command -v node >/dev/null || die "starting the lab's processes needs Node.js (node not on PATH): install Node.js 24 (lab.env: NODE_VERSION)"
  pid="$(
    for fd in /proc/$BASHPID/fd/*; do
      fd="${fd##*/}"
      ((fd > 2)) && eval "exec $fd>&-"
    done
    cd "$LAB_ROOT"
    export TENANTLAB_LAB="$LAB_DIR"
    exec node "$LAB_ROOT/scripts/lib/spawn-detached.mjs" "$log" "$@" 2>>"$log"
  )" || true
  [[ "$pid" =~ ^[0-9]+$ ]] && echo "$pid $(proc_start "$pid")"
  return 0
}

# proc_start PID: when PID started (clock ticks since boot, field 22 of /proc/PID/stat). It
# never changes for a process, exec included, and a pid reused later has another one: with the
# pid it names one process for good. Empty once the process is gone.
proc_start() {
  local stat
  stat="$(cat "/proc/$1/stat" 2>/dev/null)" || return 0
  stat="${stat##*) }" # the command name in parentheses may hold spaces
  set -- $stat
  echo "${20}"
}

# proc_alive PID START: PID is still the process that started at START and has not exited (a
# zombie counts as gone: where init reaps no orphans, it stays one)
proc_alive() {
  local stat
  [[ -n "$2" ]] && stat="$(cat "/proc/$1/stat" 2>/dev/null)" || return 1
  stat="${stat##*) }"
  set -- "$2" $stat
  [[ "$2" != [ZX] && "${21}" == "$1" ]]
}

# stop_pid PID START [SIGNAL] [SECONDS]: SIGNAL (TERM: a clean shutdown), then KILL after
# SECONDS; signals nothing once PID is no longer that process
stop_pid() {
  local pid="$1" start="$2" signal="${3:-TERM}" tenths=$((${4:-30} * 10)) i
  proc_alive "$pid" "$start" || return 0
  kill -"$signal" "$pid" 2>/dev/null || return 0
  for ((i = 0; i < tenths; i++)); do
    proc_alive "$pid" "$start" || return 0
    sleep 0.1
  done
  proc_alive "$pid" "$start" && kill -KILL "$pid" 2>/dev/null
  return 0
}

# port_pids PORT: the pids of the processes listening on PORT (of this user; see port_holder)
port_pids() { ss -Hltnp "sport = :$1" 2>/dev/null | grep -o 'pid=[0-9]*' | cut -d= -f2 | sort -u; }
# holds_port PID PORT: PID itself listens on PORT
holds_port() { [[ $'\n'"$(port_pids "$2")"$'\n' == *$'\n'"$1"$'\n'* ]]; }

RUN_DIR="$LAB_DIR/run"
LOG_DIR="$LAB_DIR/logs"
pid_file() { echo "$RUN_DIR/$1.pid"; }
log_file() { echo "$LOG_DIR/$1.log"; }

# The pid file of a node or service holds "PID START" (spawn_detached): the one identity that
# start checks, stop, kill, status and down all go by.
recorded_pid() { local id; id="$(cat "$(pid_file "$1")" 2>/dev/null)" && echo "${id%% *}"; }

# running_pid NAME: the pid of this lab's live process NAME (a node or a service), or nothing.
# A pid file without START (written before START was recorded) falls back to the lab's tag.
running_pid() {
  local pid="" start=""
  read -r pid start 2>/dev/null <"$(pid_file "$1")" || true
  [[ -n "$pid" ]] || return 1
  if [[ -n "$start" ]]; then proc_alive "$pid" "$start" || return 1
  else owned_by_lab "$pid" || return 1
  fi
  echo "$pid"
}

# stop_name NAME SIGNAL SECONDS: stops this lab's NAME (stop_pid) and forgets its pid file
stop_name() {
  local pid="" start=""
  read -r pid start 2>/dev/null <"$(pid_file "$1")" || true
  if [[ -n "$pid" ]]; then
    # an old pid file without START: its start time, if the process is still the lab's
    [[ -z "$start" ]] && owned_by_lab "$pid" && start="$(proc_start "$pid")"
    stop_pid "$pid" "$start" "$2" "$3"
  fi
  rm -f "$(pid_file "$1")"
}
