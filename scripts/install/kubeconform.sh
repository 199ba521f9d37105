#!/usr/bin/env bash
# Builds kubeconform v<KUBECONFORM_VERSION> (lab.env), the offline Kubernetes manifest validator
# `make k8s` and tests/static/k8s.bats run on k8s/generated/, from the Go module proxy into
# $LAB_CACHE/bin/kubeconform and prints its path (cached: a second call is a stamp check plus
# `kubeconform -v`). Its schemas come from scripts/install/k8s-schemas.sh, never from the network
# at validation time.
#
# The cached binary is verified, not trusted: `kubeconform -v` must report the pinned version,
# otherwise the stamp and the binary are dropped and it is built again.
set -euo pipefail
here="$(dirname "$0")"
source "$here/../lib/config.sh"

version="v${KUBECONFORM_VERSION#v}"
bin="$LAB_CACHE/bin/kubeconform"

# reports VERSION: 0 when the binary at $bin is kubeconform VERSION
reports() { [[ -x "$bin" ]] && [[ "$("$bin" -v 2>/dev/null)" == "$1" ]]; }

# The version kubeconform prints is set at link time (upstream's release builds do the same)
build() {
  "$here/go-wrapper-build.sh" github.com/yannh/kubeconform "$version" \
    github.com/yannh/kubeconform/cmd/kubeconform kubeconform "-X main.version=$version"
}

out="$(build)"
if ! reports "$version"; then
  say "kubeconform: $bin does not report $version ($("$bin" -v 2>/dev/null || echo 'does not run')): building it again"
  rm -f "$LAB_CACHE/bin/.kubeconform.stamp" "$bin"
  out="$(build)"
  reports "$version" || die "kubeconform: the build of $version reports '$("$bin" -v 2>/dev/null)'"
fi
echo "$out"
