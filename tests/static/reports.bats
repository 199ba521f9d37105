#!/usr/bin/env bats
# The committed experiment reports as a reader opens them: in a real browser (Debian's Chromium,
# puppeteer-core), on a window narrower than their widest tables, no page is wider than its
# window, and each table wider than the page scrolls inside its own box. Needs no lab.

bats_require_minimum_version 1.5.0

setup() {
  bats_load_library bats-support
  bats_load_library bats-assert
  cd "$REPO" || return 1
}

@test "the committed reports in a real browser: no page wider than its window, a wide table scrolls in its own box" {
  local tools chromium pdir files
  tools="$(scripts/install/browser.sh)" || fail "browser tools: $tools"
  chromium="$(sed -n 1p <<<"$tools")" pdir="$(sed -n 2p <<<"$tools")"
  files=(experiments/results/*/report.html)
  ((${#files[@]} >= 10)) || fail "only ${#files[@]} committed reports have a report.html"
  run env CHROMIUM="$chromium" PUPPETEER_DIR="$pdir" timeout 120 node tests/browser/report-width.mjs 800 "${files[@]}"
  assert_success
  assert_equal "$(wc -l <<<"$output")" "${#files[@]}"
  # some table is wider than an 800-pixel window, or this would not test the box
  jq -se 'map(.wide_tables) | add > 0' <<<"$output" >/dev/null || fail "no table wider than 800 px: $output"
  local bad
  bad="$(jq -c 'select(.page_width > .window_width or (.wide_scroll_in_box | not))' <<<"$output")"
  [[ -z "$bad" ]] || fail "a report wider than its window, or a wide table that does not scroll in its box: $bad"
}
