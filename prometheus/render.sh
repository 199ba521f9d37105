#!/bin/sh
# render.sh TEMPLATE OUT [CMD ARG...]
#
# Writes TEMPLATE to OUT with every @NAME@ placeholder replaced by the value of the environment
# variable PROM_NAME, then, if a command follows, execs it. A placeholder whose variable is unset
# or empty is an error: a half-rendered config must never start.
#
# One renderer for both runtimes, hence POSIX sh + sed + grep only:
#   native:  runtimes/lib/services/prometheus.sh renders into $LAB_DIR/prometheus/ with loopback targets
#   compose: the prometheus container's entrypoint (busybox in the official image) renders into
#            /prometheus/ with the compose service names, then execs /bin/prometheus
set -eu

if [ "$#" -lt 2 ]; then
  echo "usage: render.sh TEMPLATE OUT [CMD ARG...]" >&2
  exit 2
fi
template="$1" out="$2"
shift 2
[ -r "$template" ] || { echo "render.sh: cannot read $template" >&2; exit 2; }

script=""
for name in $(grep -o '@[A-Z][A-Z0-9_]*@' "$template" | tr -d @ | sort -u); do
  eval "value=\${PROM_$name:-}"
  # shellcheck disable=SC2154 # value is set by the eval above
  if [ -z "$value" ]; then
    echo "render.sh: $template needs PROM_$name (placeholder @$name@) in the environment" >&2
    exit 2
  fi
  # Escape what is special on the right-hand side of a sed s||| command
  value="$(printf '%s' "$value" | sed -e 's/[\\|&]/\\&/g')"
  script="${script}s|@$name@|$value|g;"
done

tmp="$out.tmp.$$"
sed -e "$script" "$template" >"$tmp"
mv -f "$tmp" "$out"

[ "$#" -eq 0 ] || exec "$@"
