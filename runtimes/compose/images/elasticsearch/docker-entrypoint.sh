#!/bin/bash
# The local Elasticsearch image's entrypoint: the official image's documented contract, on the
# native runtime's launcher (org.tenantlab.nativeruntime.LabNode: one node in one JVM, settings as
# key=value arguments).
#
#   no argument, `eswrapper` or `elasticsearch` [-Ekey=value ...]  start Elasticsearch
#   a first argument starting with '-'                              the same (`elasticsearch` implied)
#   anything else                                                   run that command instead
#
# Settings: every environment variable whose name has a dot (cluster.name=...) and every -E flag,
# the -E flags last (they win). ES_JAVA_OPTS is appended to the JVM options, so its -Xms/-Xmx win.
# Not here, as in the native runtime: bootstrap checks (the launcher does not run them) and x-pack
# (not on Maven Central): an xpack.* setting makes the node refuse to start.
set -euo pipefail

if [[ $# -eq 0 || "$1" == -* ]]; then set -- eswrapper "$@"; fi
if [[ "$1" != eswrapper && "$1" != elasticsearch ]]; then exec "$@"; fi
shift

ES_HOME=/usr/share/elasticsearch
settings=()
# Environment variables named like settings (lower case, a dot), as the official image takes them
# (an empty one is no setting, as there: node.processors is empty under SHAPE=off)
while IFS= read -r -d '' pair; do
  name="${pair%%=*}"
  [[ -n "${pair#*=}" ]] || continue
  [[ "$name" =~ ^[a-z0-9_]+\.[a-z0-9_.]+$ || "$name" == processors ]] && settings+=("$pair")
done < <(env -0)
for arg in "$@"; do
  case "$arg" in
    -E?*=*) settings+=("${arg#-E}") ;;
    *) echo "error: unsupported argument '$arg': this image takes -Ekey=value settings only" >&2; exit 2 ;;
  esac
done

node_name="$(hostname)"
for s in "${settings[@]}"; do [[ "$s" == node.name=* ]] && node_name="${s#node.name=}"; done

# The JVM options the native runtime uses (runtimes/native/lib/nodes.sh: jvm_options), with this image's
# paths; the heap from ES_JAVA_OPTS' -Xmx (default 1g) sizes the direct-memory cap as it does there.
ES_HEAP="$(grep -oE -- '-Xmx[0-9]+[kmgKMG]?' <<<"${ES_JAVA_OPTS:-}" | tail -n 1 | cut -c5-)"
ES_HEAP="${ES_HEAP:-1g}"
LAB_DIR="$ES_HOME" ES_DIST="$ES_HOME"
# shellcheck source=../../../native/lib/nodes.sh
source /usr/local/lib/tenantlab/nodes.sh
mkdir -p "$LAB_DIR/tmp/$node_name"
mapfile -t jvm < <(jvm_options "$node_name")
# shellcheck disable=SC2206 # ES_JAVA_OPTS is a list of words, as the official image reads it
extra=(${ES_JAVA_OPTS:-})

exec "$ES_HOME/jdk/bin/java" "${jvm[@]}" "${extra[@]}" \
  org.tenantlab.nativeruntime.LabNode \
  "path.home=$ES_HOME" "path.data=$ES_HOME/data" "path.logs=$ES_HOME/logs" "${settings[@]}"
