#!/usr/bin/env bash
# Installs Prometheus for the native runtime: Debian's `prometheus` package (bookworm: 2.42, with
# promtool), through the lab's apt helper (cached: a second call is a dpkg query). Refuses a
# version older than PROMETHEUS_MIN_VERSION (lab.env). Prints the path of the prometheus binary.
#
# The lab runs its own Prometheus process (runtimes/lib/services/prometheus.sh) on LAB_BIND; the
# package's own system service is not used. Where the package's postinst starts it (a host with
# systemd and no policy-rc.d), it listens on :9090 of every interface: say so.
set -euo pipefail
source "$(dirname "$0")/../lib/config.sh"
source "$LAB_ROOT/scripts/lib/apt.sh"

ensure_apt_packages prometheus

bin="$(command -v prometheus || true)"
[[ -n "$bin" ]] || bin=/usr/bin/prometheus
[[ -x "$bin" ]] || die "prometheus: the Debian package is installed but $bin is missing"
command -v promtool >/dev/null 2>&1 || die "prometheus: promtool is missing (it ships in Debian's prometheus package)"

# "prometheus, version 2.42.0+ds (branch: ...)" -> 2.42.0
version="$("$bin" --version 2>&1 | sed -n 's/^prometheus, version \([0-9][0-9.]*\).*/\1/p' | head -n 1)"
[[ -n "$version" ]] || die "prometheus: cannot tell the version of $bin"
if [[ "$(printf '%s\n%s\n' "$PROMETHEUS_MIN_VERSION" "$version" | sort -V | head -n 1)" != "$PROMETHEUS_MIN_VERSION" ]]; then
  die "prometheus: $bin is $version, the lab needs >= $PROMETHEUS_MIN_VERSION (PROMETHEUS_MIN_VERSION in lab.env)"
fi

if command -v systemctl >/dev/null 2>&1 && systemctl is-active --quiet prometheus 2>/dev/null; then
  say "warning: Debian's prometheus system service is running (it listens on :9090 of every interface);" \
    "the lab runs its own on $LAB_BIND:$PROMETHEUS_PORT: 'sudo systemctl disable --now prometheus'"
fi
echo "$bin"
