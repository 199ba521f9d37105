#!/usr/bin/env bash
# Installs what the browser tests need: Debian's `chromium` (through the lab's apt helper; no
# browser download from anywhere else) and puppeteer-core at PUPPETEER_CORE_VERSION (lab.env,
# npm, into $LAB_CACHE/browser; cached: a second call is a dpkg query and a stamp).
# Prints two lines: the chromium binary, then the folder whose node_modules holds puppeteer-core.
set -euo pipefail
source "$(dirname "$0")/../lib/config.sh"
source "$LAB_ROOT/scripts/lib/apt.sh"

ensure_apt_packages chromium
bin="$(command -v chromium || true)"
[[ -x "$bin" ]] || die "chromium: the Debian package is installed but the chromium binary is missing"

dir="$LAB_CACHE/browser"
want="puppeteer-core@$PUPPETEER_CORE_VERSION"
if [[ "$(cat "$dir/.installed" 2>/dev/null)" != "$want" ]]; then
  command -v npm >/dev/null || die "npm is needed for the browser tests: install Node.js 20 with npm"
  say "installing $want (npm; it downloads no browser)..."
  mkdir -p "$dir"
  PUPPETEER_SKIP_DOWNLOAD=1 npm install --prefix "$dir" --no-save --no-audit --no-fund --loglevel=error "$want" >&2 \
    || die "npm install of $want failed: is the npm registry reachable?"
  echo "$want" >"$dir/.installed"
fi
echo "$bin"
echo "$dir"
