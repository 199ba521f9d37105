#!/usr/bin/env bash
# npm-deps.sh DIR: installs DIR's Node.js dependencies exactly as its package-lock.json pins
# them (npm ci), once per lockfile: a second call with the same lockfile only reads a stamp.
set -euo pipefail
source "$(dirname "$0")/../lib/config.sh"

dir="$LAB_ROOT/${1:?usage: npm-deps.sh DIR (e.g. allocator)}"
[[ -f "$dir/package-lock.json" ]] || die "$dir has no package-lock.json"
command -v npm >/dev/null || die "npm is needed for $1: install Node.js 20 with npm"
major="$(node -p 'process.versions.node.split(".")[0]')"
((major >= 20)) || die "Node.js $major is too old for $1: install Node.js 20 or newer"

stamp="$dir/node_modules/.tenantlab-lock-hash"
want="$(sha256sum "$dir/package-lock.json" | cut -c1-16)"
[[ "$(cat "$stamp" 2>/dev/null)" == "$want" ]] && exit 0
say "installing $1's Node.js dependencies (npm ci)..."
(cd "$dir" && npm ci --no-audit --no-fund --loglevel=error >&2) \
  || die "npm ci in $1 failed: is the npm registry reachable?"
echo "$want" >"$stamp"
