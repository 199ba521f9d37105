#!/usr/bin/env bats
# The lab console in a real browser (Debian's Chromium, puppeteer-core; tests/browser/console.mjs)
# against an allocator of its own on the running lab (a fast policy: 15 s window, every group
# over an absolute objective of 1 ms, so a store is flagged as soon as its share of its group's
# search time jumps past 40% and its own normal): four stores in g1 and two in g2, the real
# load engine's storefront and catalogue writes on all six, and a bot crawling g1's store a from
# 40% of the run. The page must draw every group, node and tenant the API reports, show store a
# hot within the detection window, move store e to g1 from its dialog (the tile follows), let
# the keyboard reach every control, open a report from the experiments list, and log no error.
# Screenshots of the map and of a report go to .lab/results/console/. About 3 minutes.

bats_require_minimum_version 1.5.0

setup_file() {
  load ../lib/lab
  load ../lib/own-allocator
  # once per CI run: the page is the allocator's own code, the same in every runtime; on compose
  # the lab's allocator container serves it, its policy, the runs and a report (30-allocator.bats)
  [[ "$(lab_runtime)" != compose ]] || skip "the browser session runs once, on the native lab (compose: 30-allocator.bats checks the container's console)"
  # four stores in g1, two in g2
  own_allocator_setup_file "con$$-" '.observe = {windowS: 15, minQueries: 20, probeIntervalMs: 250}
      | .hot += {share: 0.4, relative: 1.3, minRiseMs: 20, shareRise: 0.15, baselineS: 45, objectiveMs: {default: 1}}
      | .auto.enabled = false' \
    a:g1:300:1 b:g1:300:1 c:g1:300:1 d:g1:300:1 e:g2:300:1 f:g2:300:1
}

teardown_file() {
  load ../lib/lab
  load ../lib/own-allocator
  own_allocator_teardown_file
}

setup() {
  load ../lib/lab
  cd "$REPO" || return 1
}

@test "the console in a browser: the map as the API has it, the bot's store hot, a move from the page, the keyboard, a report, no error" {
  local tools chromium pdir shots=".lab/results/console" url="http://127.0.0.1:$OWN_PORT/"
  tools="$(scripts/install/browser.sh)" || fail "browser tools: $tools"
  chromium="$(sed -n 1p <<<"$tools")" pdir="$(sed -n 2p <<<"$tools")"
  mkdir -p "$shots"
  # 150 s of shoppers and writes on the six stores, the bot on store a from 60 s to 105 s. Speed
  # thresholds lifted: this test judges the page, not the machine. In a process group of its own
  # with bats' fd 3 closed, stopped whole when the page is done: Locust, run.sh's child, would
  # otherwise run out its 150 s holding fd 3, and bats waits for it (87 s after the test, seen)
  setsid env ALLOCATOR_PORT="$OWN_PORT" SCENARIO=mixed BOT=1 BOT_TENANT="${OWN_PREFIX}a" BOT_RATE=40 DURATION=150s RATE=20 UI=0 \
    TENANTS="${OWN_PREFIX}*" P95_STOREFRONT_MS=600000 P95_BOT_MS=600000 P95_WRITES_MS=600000 MAX_LATE=1 LOAD_ENGINE=host \
    TENANTLAB_LAB="$LAB_DIR" traffic/run.sh >"$OWN_DIR/load.log" 2>&1 </dev/null 3>&- &
  local load=$!
  run env CHROMIUM="$chromium" PUPPETEER_DIR="$pdir" HOT_WAIT_S=130 timeout 300 \
    node tests/browser/console.mjs "$url" "${OWN_PREFIX}a" "${OWN_PREFIX}e" g1 "$shots"
  stop_group "$load"
  wait "$load" 2>/dev/null || true
  assert_success
  echo "# $output" >&3
  jq -e --arg a "${OWN_PREFIX}a" '.groups >= 2 and .tenants >= 6 and .nodes >= 2 and (.hot_label | contains("HOT: "))
    and .move.to == "g1" and .controls_reached > 10 and (.report.title | length > 0)' <<<"$output" >/dev/null || fail "unexpected: $output"
  [[ -s "$shots/console-map.png" && -s "$shots/report.png" ]] || fail "no screenshots in $shots"
}
