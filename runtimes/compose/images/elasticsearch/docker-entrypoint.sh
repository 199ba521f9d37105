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
# the -E flags last (they win). JVM options: LAB_JVM_OPTIONS, the node's whole list as the one
# node-config source renders it for this image (packages/contract/src/node-config.js: the native
# runtime's launcher options with this image's paths and the node's heap; runtimes/compose/bin/lab
# exports it, nodes.generated.yml passes it), then ES_JAVA_OPTS, as the official image appends it.
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

# LAB_JVM_OPTIONS is a list of words (no value of it holds a space); read -a splits it without
# expanding the classpath's '*'
[[ -n "${LAB_JVM_OPTIONS:-}" ]] || { echo "error: LAB_JVM_OPTIONS is empty: this image runs the JVM options packages/contract/src/node-config.js renders for it; start it with runtimes/compose/bin/lab (make up), which exports them" >&2; exit 2; }
read -r -a jvm <<<"$LAB_JVM_OPTIONS"
read -r -a extra <<<"${ES_JAVA_OPTS:-}"

exec "$ES_HOME/jdk/bin/java" "${jvm[@]}" "${extra[@]}" \
  org.tenantlab.nativeruntime.LabNode \
  "path.home=$ES_HOME" "path.data=$ES_HOME/data" "path.logs=$ES_HOME/logs" "${settings[@]}"
