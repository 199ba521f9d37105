# Processes and ports of a lab, shared by both runtime drivers.
# Every process a native lab starts carries TENANTLAB_LAB=$LAB_DIR in its environment, so the
# lab can tell its own processes from another lab's, and find them when a pid file is lost.

# port_holder PORT: "PID COMMAND-LINE" of the process listening on PORT; "?" when the system
# will not say (another user's process); empty when the port is free.
port_holder() {
  local pid
  pid="$(ss -Hltnp "sport = :$1" 2>/dev/null | grep -o 'pid=[0-9]*' | head -1 | cut -d= -f2)"
  if [[ -n "$pid" ]]; then
    echo "$pid $(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | cut -c1-80)"
  elif ss -Hltn "sport = :$1" 2>/dev/null | grep -q .; then
    echo "? (a process of another user)"
  fi
}

# lab_of_pid PID: the LAB_DIR of the tenantlab lab that started PID, if any
lab_of_pid() { tr '\0' '\n' <"/proc/$1/environ" 2>/dev/null | sed -n 's/^TENANTLAB_LAB=//p'; }

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
# Ctrl-C in its terminal), output appended to LOG, tagged as this lab's; prints its pid.
# Descriptors above 2 are closed so that a caller reading our output to its end (bats,
# $(...), a pipe) is not kept waiting for as long as the process lives.
spawn_detached() {
  local log="$1"
  shift
  (
    for fd in /proc/$BASHPID/fd/*; do
      fd="${fd##*/}"
      ((fd > 2)) && eval "exec $fd>&-"
    done
    cd "$LAB_ROOT"
    export TENANTLAB_LAB="$LAB_DIR"
    exec setsid "$@" >>"$log" 2>&1 </dev/null
  ) &
  local pid=$! i
  # Until the exec, /proc/PID/environ still shows the forking shell's environment, without the
  # tag: wait for it, so that nobody takes the starting process for a dead one.
  for ((i = 0; i < 100; i++)); do
    grep -qzx "TENANTLAB_LAB=$LAB_DIR" "/proc/$pid/environ" 2>/dev/null && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.05
  done
  echo "$pid"
}

# stop_pid PID [SIGNAL] [SECONDS]: SIGNAL (TERM: a clean shutdown), then KILL after SECONDS
stop_pid() {
  local pid="$1" signal="${2:-TERM}" tenths=$((${3:-30} * 10)) i
  kill -"$signal" "$pid" 2>/dev/null || return 0
  for ((i = 0; i < tenths; i++)); do
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.1
  done
  kill -KILL "$pid" 2>/dev/null || true
}

RUN_DIR="$LAB_DIR/run"
LOG_DIR="$LAB_DIR/logs"
pid_file() { echo "$RUN_DIR/$1.pid"; }
log_file() { echo "$LOG_DIR/$1.log"; }

# running_pid NAME: the pid of this lab's live process NAME (a node or a service), or nothing
running_pid() {
  local f pid
  f="$(pid_file "$1")"
  [[ -s "$f" ]] || return 1
  pid="$(cat "$f")"
  owned_by_lab "$pid" && { echo "$pid"; return 0; }
  return 1
}
