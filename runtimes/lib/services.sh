# The lab's services on this machine (allocator, Prometheus, exporter, ...), run by the native and
# external runtimes: one file each in runtimes/lib/services/NAME.sh, started after the cluster
# answers in the order of LAB_SERVICES (compose runs the same ones as containers).
#
# A service file is sourced in a subshell and defines:
#   SERVICE_PORT         its loopback port (a lab.env value, e.g. "$ALLOCATOR_PORT")
#   SERVICE_HEALTH       the HTTP path that answers 2xx once it is ready (e.g. /readyz)
#   SERVICE_URL          what `make status` shows (default http://LAB_BIND:PORT)
#   service_prepare      installs or builds what it needs (cached); may `die`
#   service_command      prints its argv, one word per line; it runs with cwd = LAB_ROOT
#   service_environment  (optional) `export KEY='VALUE'` lines for its process alone (secrets:
#                        never on a command line)
# Each process carries TENANTLAB_LAB=$LAB_DIR in its environment, so a lab knows its own.
# Needs scripts/lib/config.sh and process.sh sourced first.

SERVICES_DIR="$LAB_ROOT/runtimes/lib/services"

lab_services() { tr ',' ' ' <<<"${LAB_SERVICES:-}"; }
is_lab_service() { [[ ",${LAB_SERVICES:-}," == *",$1,"* ]]; }

# service_field NAME VAR: a variable of the service file
service_field() { (source "$SERVICES_DIR/$1.sh" && eval "echo \"\${$2:-}\""); }
service_url() {
  local url
  url="$(service_field "$1" SERVICE_URL)"
  echo "${url:-http://$LAB_BIND:$(service_field "$1" SERVICE_PORT)}"
}

check_service_port() {
  local name="$1" port holder
  port="$(service_field "$name" SERVICE_PORT)"
  holder="$(port_holder "$port")"
  [[ -z "$holder" ]] || die "port $port ($name) is already in use by pid $holder: stop that process or change its port in lab.env"
}

start_service() {
  local name="$1" args=() environment
  (source "$SERVICES_DIR/$name.sh" && service_prepare) || exit 2
  mapfile -t args < <(source "$SERVICES_DIR/$name.sh" && service_command)
  environment="$(source "$SERVICES_DIR/$name.sh" && if declare -F service_environment >/dev/null; then service_environment; fi)" || exit 2
  mkdir -p "$RUN_DIR" "$LOG_DIR"
  echo "=== $(date -Is) starting $name" >>"$(log_file "$name")"
  (eval "$environment" && spawn_detached "$(log_file "$name")" "${args[@]}") >"$(pid_file "$name")"
}

# check_service_ports: a port of a service that is not running yet, held by anything, stops `up`
# with one line before anything starts
check_service_ports() {
  local n
  for n in $(lab_services); do running_pid "$n" >/dev/null || check_service_port "$n"; done
}

# start_services: starts every service of LAB_SERVICES that is not running, all at once (none
# needs another to start: Prometheus scrapes a target that is not up yet on its next round), then
# waits for each in that order; adds each name to STARTED (what this `up` started). A service
# that does not come up: the tail of its log, then undo_up STARTED (runtimes/lib/driver.sh).
start_services() {
  local n waiting=()
  for n in $(lab_services); do
    running_pid "$n" >/dev/null && continue
    say "starting $n..."
    start_service "$n"
    STARTED+=("$n") waiting+=("$n")
  done
  for n in "${waiting[@]}"; do
    if ! wait_for_service "$n" "$LAB_UP_TIMEOUT"; then
      show_log_tail "$n"
      undo_up "${STARTED[@]}"
    fi
    say "  $n: $(service_url "$n") (pid $(recorded_pid "$n"), log $(log_file "$n"))"
  done
}

# wait_for_service NAME SECONDS: a start is judged by the recorded process itself: it fails the
# moment that process is gone, and succeeds once that process holds the service's port and the
# health path answers (an answer from anything else on the port does not count)
wait_for_service() {
  local name="$1" deadline=$((SECONDS + $2)) port url pid=""
  port="$(service_field "$name" SERVICE_PORT)"
  url="http://$LAB_BIND:$port$(service_field "$name" SERVICE_HEALTH)"
  while ((SECONDS < deadline)); do
    if ! pid="$(running_pid "$name")"; then
      # what the judgement rested on, so that a false "exited" (the pid file's identity against
      # /proc) can be told from a real exit in the log tail the caller prints next
      local holder
      holder="$(port_holder "$port")"
      say "error: $name exited during startup (pid file: '$(cat "$(pid_file "$name")" 2>/dev/null)'; port $port: ${holder:-free})"
      return 1
    fi
    if holds_port "$pid" "$port" && curl -fsS --max-time 3 -o /dev/null "$url" 2>/dev/null; then
      return 0
    fi
    sleep 0.2
  done
  say "error: $name did not answer $url within $2s"
  local holder
  holder="$(port_holder "$port")"
  [[ -z "$holder" || "${holder%% *}" == "$pid" ]] || say "  port $port is held by pid $holder, not by $name (pid $pid)"
  return 1
}

stop_service() { stop_name "$1" TERM 10; }

# running_services: the lab's services whose recorded process is alive
running_services() { local s; for s in $(lab_services); do running_pid "$s" >/dev/null && echo "$s"; done; return 0; }

# print_service_rows: one `make status` row per service (status_row of runtimes/lib/driver.sh):
# URL, state (up once its health path answers), RSS and pid
print_service_rows() {
  local n pid rss state
  for n in $(lab_services); do
    if pid="$(running_pid "$n")"; then
      rss="$(rss_of "$pid")"
      if curl -fsS --max-time 3 -o /dev/null "http://$LAB_BIND:$(service_field "$n" SERVICE_PORT)$(service_field "$n" SERVICE_HEALTH)" 2>/dev/null; then
        state=up
      else
        state=starting
      fi
    else
      pid=- rss=- state=stopped
    fi
    status_row "$n" native - "$(service_url "$n")" "$state" "$rss" "$pid"
  done
}
