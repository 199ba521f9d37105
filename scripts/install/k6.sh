#!/usr/bin/env bash
# Builds k6 v<K6_VERSION> (lab.env) from the Go module proxy into $LAB_CACHE/bin/k6 and prints
# its path (cached: a second call is a stamp check plus `k6 version`). The compose runtime runs the
# official grafana/k6 image at the same version (compose/extensions/k6/).
#
# The cached binary is verified, not trusted: `k6 version` must report K6_VERSION, otherwise the
# stamp and the binary are dropped and it is built again (a binary copied in by hand, or left by
# an experiment with another version, never passes for the pinned one).
set -euo pipefail
here="$(dirname "$0")"
source "$here/../lib/config.sh"

version="v${K6_VERSION#v}"
bin="$LAB_CACHE/bin/k6"

# reports VERSION: 0 when the binary at $bin is k6 VERSION
reports() { [[ -x "$bin" ]] && "$bin" version 2>/dev/null | grep -q "^k6 $1[ (]"; }

build() { "$here/go-wrapper-build.sh" go.k6.io/k6 "$version" go.k6.io/k6 k6; }

out="$(build)"
if ! reports "$version"; then
  say "k6: $bin does not report $version ($("$bin" version 2>/dev/null | head -n1 || echo 'does not run')): building it again"
  rm -f "$LAB_CACHE/bin/.k6.stamp" "$bin"
  out="$(build)"
  reports "$version" || die "k6: the build of $version reports '$("$bin" version 2>/dev/null | head -n1)'"
fi
echo "$out"
