#!/usr/bin/env bash
# Builds the load engine's Python environment and prints the path of its `locust`: a venv under
# $LAB_CACHE/locust-<LOCUST_VERSION>-<lock hash>/ with every package of traffic/requirements.lock
# (Locust and prometheus-client, each dependency pinned with its hashes: pip --require-hashes),
# from PyPI. Cached: a second call is a stamp check plus `locust --version`. A venv that does not
# report LOCUST_VERSION (broken, or copied by hand) is dropped and built again.
#
# Why Locust and not k6: k6 is under the AGPL, which this project does not use (README).
set -euo pipefail
here="$(dirname "$0")"
source "$here/../lib/config.sh"

lock="$LAB_ROOT/traffic/requirements.lock"
[[ -f "$lock" ]] || die "traffic/requirements.lock is missing: restore it from git (git checkout traffic/requirements.lock)"
grep -q "^locust==${LOCUST_VERSION}[[:space:]]" "$lock" \
  || die "LOCUST_VERSION=$LOCUST_VERSION but traffic/requirements.lock pins $(grep -o '^locust==[^ ]*' "$lock"): make them agree (traffic/README.md: updating Locust)"
hash="$(sha256sum "$lock" | cut -c1-12)"
venv="$LAB_CACHE/locust-$LOCUST_VERSION-$hash"
bin="$venv/bin/locust"
stamp="$venv/.tenantlab-installed"

# reports: 0 when the venv's locust runs and is LOCUST_VERSION
reports() { [[ -x "$bin" ]] && "$bin" --version 2>/dev/null | grep -q "^locust $LOCUST_VERSION "; }

if [[ -f "$stamp" ]] && reports; then
  echo "$bin"
  exit 0
fi
python="$(command -v python3 || true)"
[[ -n "$python" ]] || die "python3 is needed for the load engine (Locust): install Python 3.10 or newer (Debian: apt-get install python3 python3-venv)"
"$python" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else 1)' \
  || die "python3 is $("$python" -V 2>&1 | cut -d' ' -f2): Locust $LOCUST_VERSION needs Python 3.10 or newer"
"$python" -c 'import ensurepip, venv' 2>/dev/null \
  || die "python3 cannot create a virtual environment: install python3-venv (Debian: apt-get install python3-venv)"
say "installing the load engine: Locust $LOCUST_VERSION in $venv (pip, pinned with hashes; once)..."
# built in place (a venv names its own path); the stamp, written last, marks it complete
rm -rf "$venv"
mkdir -p "$LAB_CACHE"
"$python" -m venv "$venv" >&2 || die "python3 -m venv failed in $venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check --no-input --require-hashes --no-deps -r "$lock" >&2 \
  || { rm -rf "$venv"; die "pip could not install traffic/requirements.lock: is PyPI reachable? (a proxy goes in PIP_INDEX_URL)"; }
reports || { rm -rf "$venv"; die "the load engine installed in $venv does not report locust $LOCUST_VERSION"; }
date -u +%FT%TZ >"$stamp"
# older environments (another version or lock) are left to `make clean`
echo "$bin"
