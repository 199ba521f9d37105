# What the test harnesses (tests/run, tests/compose/run) share: counting bats and node --test
# output, steps outside them that fail, skips with their reasons, and the one closing line
# "N passed, N failed" (skips are listed and counted on the line before it).
passed=0 failed=0 skipped=0
failures=() skips=()

# fail_step NAME: a step outside bats that failed counts as a failed test
fail_step() { echo "not ok - $1"; failed=$((failed + 1)) failures+=("$1"); }

# skip_step NAME REASON: a part that cannot run here is reported, never silently passed
skip_step() { echo "ok - $1 # skip $2"; skipped=$((skipped + 1)) skips+=("$1: $2"); }

# count_tap_line LINE: adds one TAP result line to the counts
count_tap_line() {
  case "$1" in
    "ok "*"# skip"*) skipped=$((skipped + 1)) skips+=("${1#ok }") ;;
    "ok "*) passed=$((passed + 1)) ;;
    "not ok "*) failed=$((failed + 1)) failures+=("${1#not ok }") ;;
  esac
}

# run_bats FILE...: runs bats with TAP output, echoes it, and adds to the counts
run_bats() {
  local line
  while IFS= read -r line; do
    echo "$line"
    count_tap_line "$line"
  done < <(BATS_LIB_PATH="$bats_dir/node_modules" "$bats_dir/node_modules/bats/bin/bats" --tap --timing "$@" 2>&1)
}

# run_node_tests DIR SCRIPT: `npm run SCRIPT` in DIR (node --test: TAP when piped), counted
# from the runner's own "# pass N" / "# fail N" / "# skipped N" summary, since TAP nests tests
# under suites
# A suite whose hook failed ends with "# fail 0" and its tests cancelled: its top-level
# "not ok" lines count then, so a broken suite can never pass as zero tests.
run_node_tests() {
  local line summary=0 trimmed reported=0 top_failed=0
  while IFS= read -r line; do
    echo "$line"
    trimmed="${line#"${line%%[![:space:]]*}"}"
    case "$line" in
      "# pass "*) passed=$((passed + ${line#\# pass })) summary=1 ;;
      "# fail "*) reported=${line#\# fail } failed=$((failed + reported)) ;;
      "# skipped "*) skipped=$((skipped + ${line#\# skipped })) ;;
      "not ok "*) top_failed=$((top_failed + 1)) ;;
    esac
    [[ "$trimmed" == "not ok "* ]] && failures+=("$1: ${trimmed#not ok }")
  done < <(cd "$LAB_ROOT/$1" && npm run --silent "$2" 2>&1)
  ((summary)) || fail_step "$1 npm run $2 ended without a test summary"
  ((reported == 0 && top_failed > 0)) && failed=$((failed + top_failed))
  return 0
}

# run_sub_harness CMD...: another harness (it ends with "N passed, N failed" and may list
# "# N skipped"), its output echoed and its counts added to ours
run_sub_harness() {
  local line closing=0 re='^([0-9]+) passed, ([0-9]+) failed$'
  while IFS= read -r line; do
    if [[ "$line" =~ $re ]]; then
      passed=$((passed + BASH_REMATCH[1])) failed=$((failed + BASH_REMATCH[2])) closing=1
      echo "# $line (${1##*/tests/})"
      continue
    fi
    echo "$line"
    case "$line" in
      "not ok "*) failures+=("${line#not ok }") ;;
      "ok "*"# skip"*) skipped=$((skipped + 1)) skips+=("${line#ok }") ;;
    esac
  done < <("$@" 2>&1)
  ((closing)) || fail_step "$* ended without its closing line"
}

# report_counts: the failures and skips listed, then the closing line; the exit status
report_counts() {
  if ((${#failures[@]})); then
    echo
    echo "failed:"
    printf '  %s\n' "${failures[@]}"
  fi
  if ((skipped)); then
    echo
    echo "# $skipped skipped:"
    printf '#   %s\n' "${skips[@]}"
  fi
  echo "$passed passed, $failed failed"
  ((failed == 0))
}

# install_test_tools: the tools every harness needs (cached); sets bats_dir
install_test_tools() {
  echo "# installing test tools (cached)"
  (source "$LAB_ROOT/scripts/lib/apt.sh" && ensure_apt_packages curl jq procps iproute2) || { fail_step "install Debian packages"; return 1; }
  bats_dir="$("$LAB_ROOT/scripts/install/bats.sh")" || { fail_step "install bats"; return 1; }
  "$LAB_ROOT/scripts/install/compose.sh" >/dev/null || { fail_step "build Compose v2"; return 1; }
  # one npm workspace (package.json): one install for every node package
  "$LAB_ROOT/scripts/install/npm-deps.sh" || { fail_step "install the Node.js dependencies"; return 1; }
}

# kill_descendants PID: TERM to every process below PID, deepest first. An interrupted run must
# not leave its runners behind: an orphaned `node --test` once kept a lab busy and held on to
# descriptors its parent had opened.
kill_descendants() {
  local kids kid
  kids="$(pgrep -P "$1")" || return 0
  for kid in $kids; do
    kill_descendants "$kid"
    kill -TERM "$kid" 2>/dev/null || true
  done
}
