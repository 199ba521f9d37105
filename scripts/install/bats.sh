#!/usr/bin/env bash
# Installs bats-core, bats-support and bats-assert at the versions pinned in lab.env into
# $LAB_CACHE/bats (npm registry; cached: a second call only reads a stamp).
# Prints the directory that holds node_modules.
set -euo pipefail
source "$(dirname "$0")/../lib/config.sh"

source "$LAB_ROOT/scripts/lib/npm-tool.sh"

dir="$LAB_CACHE/bats"
npm_tool "$dir" "bats@$BATS_VERSION" "bats-support@$BATS_SUPPORT_VERSION" "bats-assert@$BATS_ASSERT_VERSION"
echo "$dir"
