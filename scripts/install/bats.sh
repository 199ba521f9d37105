#!/usr/bin/env bash
# Installs bats-core, bats-support and bats-assert at the versions pinned in lab.env into
# $LAB_CACHE/bats (npm registry; cached: a second call only reads a stamp).
# Prints the directory that holds node_modules.
set -euo pipefail
source "$(dirname "$0")/../lib/config.sh"

dir="$LAB_CACHE/bats"
want="bats@$BATS_VERSION bats-support@$BATS_SUPPORT_VERSION bats-assert@$BATS_ASSERT_VERSION"
if [[ "$(cat "$dir/.installed" 2>/dev/null)" != "$want" ]]; then
  command -v npm >/dev/null || die "npm is needed to install bats: install Node.js 20 with npm"
  say "installing $want (npm)..."
  mkdir -p "$dir"
  # shellcheck disable=SC2086 # one word per package
  npm install --prefix "$dir" --no-save --no-audit --no-fund --loglevel=error $want >&2 \
    || die "npm install of bats failed: is the npm registry reachable?"
  echo "$want" >"$dir/.installed"
fi
echo "$dir"
