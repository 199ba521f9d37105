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

source "$LAB_ROOT/scripts/lib/npm-tool.sh"
# puppeteer-core downloads no browser of its own; the variable keeps any helper from trying
PUPPETEER_SKIP_DOWNLOAD=1 npm_tool "$LAB_CACHE/browser" "puppeteer-core@$PUPPETEER_CORE_VERSION"
echo "$bin"
echo "$LAB_CACHE/browser"
