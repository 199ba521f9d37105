# What the test harnesses (tests/run, tests/compose/run) share: each bats file and each node
# --test suite run and counted on its own (a file that dies part-way, a runner that exits non-zero
# with nothing failed, a suite without its summary: failures that name the file), skips checked
# against the committed list tests/allowed-skips.tsv, the run's full log under .lab/test/logs, and
# the report: skips, failures (file:line: name), the ten slowest tests, the log's path, then the
# one closing line "N passed, N failed", always the last.
#
# Set before sourcing (else tests/run, native): harness_name, how the harness's own steps are
# named in the allowed list; harness_runtime (native, compose, external), which rows apply.
# LAB_ROOT comes from scripts/lib/config.sh, bats_dir from install_test_tools.
passed=0 failed=0 skipped=0 todo=0
failures=() skips=() todos=() timings=() parts=()
harness_name="${harness_name:-tests/run}"
harness_runtime="${harness_runtime:-native}"
allowed_skips_file="$LAB_ROOT/tests/allowed-skips.tsv"
run_log="" run_log_pid=""

# repo_rel PATH: PATH from the repository's root
repo_rel() { local p="${1#file://}"; echo "${p#"$LAB_ROOT"/}"; }

# part NAME: a part of the run starts (printed "# NAME"); the report gives each part's wall time,
# so a run over CI's budget says where its minutes went
part() { parts+=("$SECONDS"$'\t'"$1"); echo "# $1"; }

# part_times: "seconds<TAB>name" of every part, each to the next one's start (the last to now)
part_times() {
  local i start name next
  for ((i = 0; i < ${#parts[@]}; i++)); do
    IFS=$'\t' read -r start name <<<"${parts[i]}"
    next=$SECONDS
    ((i + 1 < ${#parts[@]})) && next="${parts[i + 1]%%$'\t'*}"
    printf '%s\t%s\n' "$((next - start))" "$name"
  done
}

# fail_step NAME: a step outside bats that failed counts as a failed test
fail_step() { echo "not ok - $1"; failed=$((failed + 1)) failures+=("$1"); }

# skip_allowed FILE TEST REASON: a row of the allowed list matches: this runtime among its
# runtimes, and FILE, TEST and REASON match its (bash glob) patterns
skip_allowed() {
  local runtimes file test reason why
  [[ -r "$allowed_skips_file" ]] || return 1
  while IFS=$'\t' read -r runtimes file test reason why; do
    [[ -z "$runtimes" || "$runtimes" == "#"* ]] && continue
    [[ ",$runtimes," == *",$harness_runtime,"* ]] || continue
    # shellcheck disable=SC2053 # the list's fields are patterns
    [[ "$1" == $file && "$2" == $test && "$3" == $reason ]] && return 0
  done <"$allowed_skips_file"
  return 1
}

# record_skip FILE TEST REASON: an allowed skip is counted and listed; any other fails the run
record_skip() {
  local what="$1: $2 # skip $3"
  if skip_allowed "$1" "$2" "$3"; then
    skipped=$((skipped + 1)) skips+=("$what")
  else
    echo "unexpected skip: $what (no row of $(repo_rel "$allowed_skips_file") allows it on $harness_runtime)"
    failed=$((failed + 1)) failures+=("unexpected skip: $what")
  fi
  return 0
}

# skip_step NAME REASON: a part that cannot run here is reported, and must be an allowed skip
skip_step() { echo "ok - $1 # skip $2"; record_skip "$harness_name" "$1" "$2"; }

# run_bats FILE...: each file on its own (bats --tap --timing), echoed and counted. A file whose
# bats prints no plan, runs fewer tests than its plan, or exits non-zero with no failed test is
# one more failure naming the file and why.
run_bats() {
  local f
  for f in "$@"; do run_bats_file "$f"; done
  return 0
}

run_bats_file() {
  local file rcfile line rc plan="" executed=0 file_failed=0 re_ok re_loc pending="" pending_line=""
  file="$(repo_rel "$1")" rcfile="$(mktemp)"
  re_ok='^(not )?ok [0-9]+ (.*)$'
  re_loc='in test file .*, line ([0-9]+)\)'
  echo "# $file"
  while IFS= read -r line; do
    echo "$line"
    if [[ -z "$plan" && "$line" =~ ^1\.\.([0-9]+)$ ]]; then
      plan="${BASH_REMATCH[1]}"
    elif [[ "$line" =~ $re_ok ]]; then
      bats_flush_failure
      executed=$((executed + 1))
      bats_result "${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}"
    elif [[ -n "$pending" && -z "$pending_line" && "$line" =~ $re_loc ]]; then
      pending_line="${BASH_REMATCH[1]}"
    fi
  # (|| keeps errexit, inherited where a caller set it, from skipping the exit status)
  done < <(rc=0; BATS_LIB_PATH="$bats_dir/node_modules" "$bats_dir/node_modules/bats/bin/bats" --tap --timing "$1" 2>&1 || rc=$?; echo "$rc" >"$rcfile")
  bats_flush_failure
  rc="$(cat "$rcfile" 2>/dev/null)"
  rm -f "$rcfile"
  [[ "$rc" =~ ^[0-9]+$ ]] || rc="unknown"
  if [[ -z "$plan" ]]; then
    fail_step "$file: bats printed no test plan (exit $rc)"
  elif ((executed < plan)); then
    fail_step "$file: $executed of its $plan tests ran, the file died part-way (bats exit $rc)"
  elif [[ "$rc" != 0 ]] && ((file_failed == 0)); then
    fail_step "$file: bats exited $rc with no failed test"
  fi
  return 0
}

# bats_result NOT REST: one "ok"/"not ok" line of run_bats_file; REST is "NAME in NNNms[ # skip[
# REASON]]" (--timing), or "NAME[ # skip[ REASON]]" where bats gives no time (setup_file failed)
bats_result() {
  local name="$2" ms="" skip="" reason=""
  local re_timed='^(.*) in ([0-9]+)ms( # skip( (.*))?)?$' re_skip='^(.*) # skip( (.*))?$'
  if [[ "$2" =~ $re_timed ]]; then
    name="${BASH_REMATCH[1]}" ms="${BASH_REMATCH[2]}" skip="${BASH_REMATCH[3]}" reason="${BASH_REMATCH[5]}"
  elif [[ "$2" =~ $re_skip ]]; then
    name="${BASH_REMATCH[1]}" skip=1 reason="${BASH_REMATCH[3]}"
  fi
  [[ -z "$1" ]] || skip=""
  if [[ -n "$1" ]]; then
    failed=$((failed + 1)) file_failed=$((file_failed + 1)) pending="$name" pending_line=""
  elif [[ -n "$skip" ]]; then
    record_skip "$file" "$name" "$reason"
    ms=""
  else
    passed=$((passed + 1))
  fi
  [[ -n "$ms" ]] && timings+=("$ms"$'\t'"$file: $name")
  return 0
}

# bats_flush_failure: the failed test of run_bats_file, with the line bats named, into the list
bats_flush_failure() {
  [[ -n "$pending" ]] || return 0
  failures+=("$file${pending_line:+:$pending_line}: $pending")
  pending="" pending_line=""
}

# run_node_tests DIR SCRIPT: `npm run SCRIPT` in DIR, whose script runs node --test with
# --test-reporter=tap. Counted from the runner's summary: the "# pass N", "# fail N",
# "# cancelled N", "# todo N" lines of the block that follows the LAST top-level plan "1..N" (a
# test's output, its child processes' too, comes as column-0 "# ..." lines as well, but always
# before that plan: it can never add to the counts). Cancelled tests count as failed. Checked
# against the stream itself: the top-level results must match the plan, a top-level "not ok" the
# summary did not count is counted, and npm's non-zero exit with nothing failed is a failure
# naming the package. Every "# SKIP" (test or suite, at any depth) goes through the allowed list.
run_node_tests() {
  local dir="$1" script="$2" line body indent rc rcfile plan="" top=0 top_not_ok=0 in_summary=0 key
  local re_result='^(not )?ok [0-9]+ - (.*)$' re_sum='^# (tests|suites|pass|fail|cancelled|skipped|todo|duration_ms) ([0-9.]+)$'
  local r_set=0 r_not="" r_name="" r_directive="" r_indent=0 r_duration="" r_type="" r_location="" r_failure=""
  local -A sum=()
  rcfile="$(mktemp)"
  while IFS= read -r line; do
    echo "$line"
    body="${line#"${line%%[! ]*}"}" indent=$((${#line} - ${#body}))
    if ((indent % 4 == 0)) && [[ "$body" =~ $re_result ]]; then
      node_flush_result
      r_set=1 r_not="${BASH_REMATCH[1]}" r_name="${BASH_REMATCH[2]}" r_indent=$indent
      r_directive="" r_duration="" r_type="" r_location="" r_failure=""
      # a test's own '#' is escaped (\#): the first " # " starts the directive
      if [[ "$r_name" == *" # "* ]]; then r_directive="${r_name#* # }" r_name="${r_name%% # *}"; fi
      r_name="${r_name//\\#/#}"
      if ((indent == 0)); then
        top=$((top + 1))
        [[ -n "$r_not" && "$r_directive" != TODO* ]] && top_not_ok=$((top_not_ok + 1))
      fi
      in_summary=0
      continue
    fi
    if ((r_set)) && ((indent == r_indent + 2)); then
      case "$body" in
        # the runner's keys come first: an error's own properties, later, do not override them
        "duration_ms: "*) [[ -n "$r_duration" ]] || r_duration="${body#duration_ms: }" ;;
        "type: 'suite'") [[ -n "$r_location" ]] || r_type=suite ;;
        "location: '"*) [[ -n "$r_location" ]] || { r_location="${body#location: \'}" r_location="${r_location%\'}"; } ;;
        "failureType: '"*) [[ -n "$r_failure" ]] || { r_failure="${body#failureType: \'}" r_failure="${r_failure%\'}"; } ;;
        "...") node_flush_result ;;
      esac
    fi
    ((indent == 0)) || continue
    if [[ "$line" =~ ^1\.\.([0-9]+)$ ]]; then
      node_flush_result
      plan="${BASH_REMATCH[1]}" in_summary=1 sum=()
    elif ((in_summary)) && [[ "$line" =~ $re_sum ]]; then
      sum[${BASH_REMATCH[1]}]="${BASH_REMATCH[2]}"
    elif [[ -n "$line" ]]; then
      in_summary=0
    fi
  done < <(cd "$LAB_ROOT/$dir" || exit; rc=0; npm run --silent "$script" 2>&1 || rc=$?; echo "$rc" >"$rcfile")
  node_flush_result
  rc="$(cat "$rcfile" 2>/dev/null)"
  rm -f "$rcfile"
  [[ "$rc" =~ ^[0-9]+$ ]] || rc="unknown"
  for key in pass fail cancelled; do
    if [[ ! "${sum[$key]:-}" =~ ^[0-9]+$ ]]; then
      fail_step "$dir: npm run $script ended without the runner's summary (exit $rc)"
      return 0
    fi
  done
  passed=$((passed + sum[pass])) failed=$((failed + sum[fail] + sum[cancelled]))
  [[ "${sum[todo]:-0}" =~ ^[0-9]+$ ]] && todo=$((todo + ${sum[todo]:-0}))
  if ((top != plan)); then
    fail_step "$dir: npm run $script: $top top-level results for a plan of $plan"
  elif ((top_not_ok > 0 && sum[fail] + sum[cancelled] == 0)); then
    failed=$((failed + top_not_ok))
    echo "not ok - $dir: $top_not_ok top-level failure(s) the runner's summary did not count"
  elif [[ "$rc" != 0 ]] && ((sum[fail] + sum[cancelled] == 0)); then
    fail_step "$dir: npm run $script exited $rc with no failed test"
  elif ((sum[pass] + sum[fail] + sum[cancelled] + ${sum[todo]:-0} + ${sum[skipped]:-0} == 0)); then
    fail_step "$dir: npm run $script ran no test"
  fi
  return 0
}

# node_flush_result: the result line read last by run_node_tests, with its YAML block: skips to the
# allowed list, failed tests (not the suites around them) to the failures, durations to timings
node_flush_result() {
  ((r_set)) || return 0
  r_set=0
  local where=""
  [[ -n "$r_location" ]] && where="$(repo_rel "${r_location%:*}")"
  case "$r_directive" in
    SKIP*)
      local reason="${r_directive#SKIP}"
      record_skip "$dir" "$r_name" "${reason# }"
      return 0 ;;
    TODO*)
      todos+=("$dir: $r_name${r_directive#TODO}")
      return 0 ;;
  esac
  if [[ -n "$r_not" && ! ("$r_type" == suite && "$r_failure" == subtestsFailed) ]]; then
    failures+=("${where:-$dir}: $r_name${r_failure:+ [$r_failure]}")
  fi
  if [[ "$r_type" != suite && "$r_duration" =~ ^[0-9]+ ]]; then
    timings+=("${BASH_REMATCH[0]}"$'\t'"$dir: $r_name")
  fi
  return 0
}

# run_sub_harness CMD...: another harness, its output echoed (its closing line as a comment); its
# counts, failures, skips and timings taken from the state file it writes for us
# (HARNESS_STATE_OUT, see report_counts)
run_sub_harness() {
  local line closing="" state re='^([0-9]+) passed, ([0-9]+) failed$' n
  state="$(mktemp)"
  while IFS= read -r line; do
    if [[ "$line" =~ $re ]]; then
      closing="$line"
      echo "# $line (${1##*/tests/})"
      continue
    fi
    echo "$line"
  done < <(HARNESS_STATE_OUT="$state" "$@" 2>&1)
  if [[ -s "$state" ]]; then
    while IFS= read -r line; do
      n="${line#* }"
      case "$line" in
        "passed "*) [[ "$n" =~ ^[0-9]+$ ]] && passed=$((passed + n)) ;;
        "failed "*) [[ "$n" =~ ^[0-9]+$ ]] && failed=$((failed + n)) ;;
        "skipped "*) [[ "$n" =~ ^[0-9]+$ ]] && skipped=$((skipped + n)) ;;
        "todo "*) [[ "$n" =~ ^[0-9]+$ ]] && todo=$((todo + n)) ;;
        "failure "*) failures+=("$n") ;;
        "skip "*) skips+=("$n") ;;
        "todo-test "*) todos+=("$n") ;;
        "timing "*) timings+=("$n") ;;
      esac
    done <"$state"
    [[ -n "$closing" ]] || fail_step "$* ended without its closing line"
  elif [[ "$closing" =~ $re ]]; then
    passed=$((passed + BASH_REMATCH[1])) failed=$((failed + BASH_REMATCH[2]))
    fail_step "$* left no record of its failures and skips"
  else
    fail_step "$* ended without its closing line"
  fi
  rm -f "$state"
  return 0
}

# report_counts: the allowed skips, the failures (file:line: name), the ten slowest tests, the
# log's path, then the closing line, last; the exit status. Under another harness
# (HARNESS_STATE_OUT set by run_sub_harness) it writes its state there and prints only the
# closing line: the caller reports it all.
report_counts() {
  local ms what
  if [[ -n "${HARNESS_STATE_OUT:-}" ]]; then
    {
      printf '%s\n' "passed $passed" "failed $failed" "skipped $skipped" "todo $todo"
      for what in "${failures[@]}"; do echo "failure $what"; done
      for what in "${skips[@]}"; do echo "skip $what"; done
      for what in "${todos[@]}"; do echo "todo-test $what"; done
      for what in "${timings[@]}"; do echo "timing $what"; done
    } >"$HARNESS_STATE_OUT"
    echo "$passed passed, $failed failed"
    ((failed == 0))
    return
  fi
  if ((skipped)); then
    echo
    echo "# $skipped skipped (allowed by $(repo_rel "$allowed_skips_file")):"
    printf '#   %s\n' "${skips[@]}"
  fi
  if ((todo)); then
    echo "# $todo todo:"
    ((${#todos[@]})) && printf '#   %s\n' "${todos[@]}"
  fi
  if ((${#failures[@]})); then
    echo
    echo "failed:"
    printf '  %s\n' "${failures[@]}"
  fi
  if ((${#parts[@]})); then
    echo
    echo "wall time by part:"
    while IFS=$'\t' read -r ms what; do
      printf '  %6ss  %s\n' "$ms" "$what"
    done < <(part_times)
  fi
  if ((${#timings[@]})); then
    echo
    echo "slowest tests:"
    while IFS=$'\t' read -r ms what; do
      printf '  %7sms  %s\n' "$ms" "$what"
    done < <(printf '%s\n' "${timings[@]}" | sort -t $'\t' -k1,1nr | head -n 10)
  fi
  [[ -n "$run_log" ]] && echo "# full log: $run_log"
  echo "$passed passed, $failed failed"
  ((failed == 0))
}

# start_run_log DIR [SUFFIX]: from here on, everything this harness prints also goes to
# DIR/<UTC timestamp>[-SUFFIX].log, which DIR/latest.log points to; the newest 30 logs are kept
start_run_log() {
  local dir="$1" name old
  mkdir -p "$dir" || return 1
  name="$(date -u +%Y%m%dT%H%M%SZ)${2:+-$2}"
  [[ -e "$dir/$name.log" ]] && name+="-$$"
  : >"$dir/$name.log" || return 1
  run_log="$dir/$name.log"
  ln -sfn "$name.log" "$dir/latest.log" || true
  while IFS= read -r old; do
    rm -f "$dir/$old"
  done < <(cd "$dir" && ls -1t -- *.log 2>/dev/null | grep -vx latest.log | tail -n +31)
  exec > >(exec tee -a "$run_log") 2>&1
  run_log_pid=$!
}

# end_run_log: the log complete before the harness exits (its tee has written everything)
end_run_log() {
  [[ -n "$run_log_pid" ]] || return 0
  exec >&- 2>&-
  local i
  for ((i = 0; i < 100; i++)); do
    kill -0 "$run_log_pid" 2>/dev/null || return 0
    sleep 0.1
  done
  kill "$run_log_pid" 2>/dev/null || true
}

# install_test_tools: the tools every harness needs (cached); sets bats_dir
install_test_tools() {
  part "installing test tools (cached)"
  (source "$LAB_ROOT/scripts/lib/apt.sh" && ensure_apt_packages curl jq procps iproute2) || { fail_step "install Debian packages"; return 1; }
  bats_dir="$("$LAB_ROOT/scripts/install/bats.sh")" || { fail_step "install bats"; return 1; }
  "$LAB_ROOT/scripts/install/compose.sh" >/dev/null || { fail_step "build Compose v2"; return 1; }
  # one npm workspace (package.json): one install for every node package
  "$LAB_ROOT/scripts/install/npm-deps.sh" || { fail_step "install the Node.js dependencies"; return 1; }
}

# kill_descendants PID: TERM to every process below PID, deepest first, but the run log's tee
# (end_run_log lets it finish). An interrupted run must not leave its runners behind: an
# orphaned `node --test` once kept a lab busy and held on to descriptors its parent had opened.
kill_descendants() {
  local kids kid
  kids="$(pgrep -P "$1")" || return 0
  for kid in $kids; do
    [[ "$kid" == "$run_log_pid" ]] && continue
    kill_descendants "$kid"
    kill -TERM "$kid" 2>/dev/null || true
  done
}
