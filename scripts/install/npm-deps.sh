#!/usr/bin/env bash
# npm-deps.sh [DIR]: installs the Node.js dependencies DIR needs exactly as its lockfile pins them
# (npm ci), once per lockfile: a second call with the same lockfile only reads a stamp.
# allocator, seed-data and packages/* are one npm workspace with one lockfile at the root
# (package.json), so any of them (or no DIR) installs the whole workspace once; a DIR with a
# package-lock.json of its own (a tool outside the workspace) is installed on its own.
set -euo pipefail
source "$(dirname "$0")/../lib/config.sh"

name="${1:-.}"
dir="$LAB_ROOT/$name"
[[ -f "$dir/package.json" ]] || die "$dir has no package.json"
[[ -f "$dir/package-lock.json" ]] || dir="$LAB_ROOT" name="the workspace"
[[ -f "$dir/package-lock.json" ]] || die "$dir has no package-lock.json"
command -v npm >/dev/null || die "npm is needed for $name: install npm (Debian: apt-get install npm)"
major="$(node -p 'process.versions.node.split(".")[0]')"
floor="${NODE_VERSION:-24}" floor="${floor%%.*}"
((major >= floor)) || die "Node.js $major is too old for $name: the lab runs Node.js $floor (lab.env: NODE_VERSION; scripts/install/node.sh)"

stamp="$dir/node_modules/.tenantlab-lock-hash"
want="$(sha256sum "$dir/package-lock.json" | cut -c1-16)"
[[ "$(cat "$stamp" 2>/dev/null)" == "$want" ]] && exit 0
# One npm ci at a time in a tree (two at once leave node_modules half empty under a valid stamp):
# a second caller waits, then finds the stamp written
mkdir -p "$LAB_CACHE"
exec 9>"$LAB_CACHE/npm-deps-$(sha256sum <<<"$dir" | cut -c1-12).lock"
flock 9
[[ "$(cat "$stamp" 2>/dev/null)" == "$want" ]] && exit 0
say "installing $name's Node.js dependencies (npm ci)..."
(cd "$dir" && npm ci --no-audit --no-fund --loglevel=error >&2) \
  || die "npm ci in $name failed: is the npm registry reachable?"
echo "$want" >"$stamp"
