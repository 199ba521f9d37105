#!/usr/bin/env bash
# Gathers the JSON schemas kubeconform checks k8s/generated/ against (k8s/validate) and prints
# the folder that holds them: $LAB_CACHE/k8s-schemas (cached: a second call reads a stamp).
# Everything comes from package registries, at the versions pinned in lab.env, never from a
# repository host at validation time:
#   core kinds   PyPI kubernetes-validate==KUBERNETES_VALIDATE_VERSION (pip download, no install):
#                its strict schemas of Kubernetes K8S_SCHEMA_VERSION
#   Elasticsearch, Kibana   the CRDs in the Go module github.com/elastic/cloud-on-k8s/vN@vECK_VERSION
#                (config/crds/v1/all-crds.yaml, what ECK's release installs)
# (The load, Locust distributed, is core kinds only: Deployments, Services, ConfigMaps.)
# k8s/schemas.mjs turns them into kubeconform's layout (standalone, strict).
set -euo pipefail
here="$(dirname "$0")"
source "$here/../lib/config.sh"

out="$LAB_CACHE/k8s-schemas"
eck="${ECK_VERSION#v}" kv="$KUBERNETES_VALIDATE_VERSION" k8s="${K8S_SCHEMA_VERSION#v}"
# ECK's module path carries its major version from v2 on (github.com/elastic/cloud-on-k8s/v3)
eck_major="${eck%%.*}"
eck_module="github.com/elastic/cloud-on-k8s"
((eck_major >= 2)) && eck_module+="/v$eck_major"
stamp="kubernetes-validate==$kv k8s=$k8s $eck_module@v$eck converter=$(sha256sum "$LAB_ROOT/k8s/schemas.mjs" | cut -c1-16)"
if [[ -f "$out/.stamp" && "$(cat "$out/.stamp")" == "$stamp" ]]; then
  echo "$out"
  exit 0
fi

command -v go >/dev/null || die "k8s schemas: the CRDs come from the Go module proxy: install Go (go not on PATH)"
command -v python3 >/dev/null || die "k8s schemas: the core schemas come from PyPI: install python3 with pip"
python3 -m pip --version >/dev/null 2>&1 || (source "$LAB_ROOT/scripts/lib/apt.sh" && ensure_apt_packages python3-pip)
"$here/npm-deps.sh" # the converter reads the CRDs' YAML with the workspace's `yaml` package

work="$LAB_CACHE/build/k8s-schemas"
rm -rf "$work"
mkdir -p "$work/wheel" "$work/schemas"
log="$work/log"

say "k8s schemas: kubernetes-validate==$kv (PyPI) for Kubernetes $k8s"
python3 -m pip download --quiet --no-deps --only-binary=:all: "kubernetes-validate==$kv" -d "$work/wheel" >"$log" 2>&1 \
  || die "k8s schemas: pip download kubernetes-validate==$kv failed: $(tail -n 2 "$log" | tr '\n' ' ')"
core="kubernetes_validate/kubernetes-json-schema/v$k8s-local-strict"
python3 - "$work/wheel" "$core" "$work/core" <<'PY' || die "k8s schemas: kubernetes-validate==$kv has no schemas for Kubernetes $k8s (K8S_SCHEMA_VERSION)"
import glob, os, sys, zipfile
wheel_dir, prefix, dest = sys.argv[1:]
(wheel,) = glob.glob(os.path.join(wheel_dir, "*.whl"))
with zipfile.ZipFile(wheel) as z:
    names = [n for n in z.namelist() if n.startswith(prefix + "/") and n.endswith(".json")]
    if not names:
        sys.exit(1)
    os.makedirs(dest, exist_ok=True)
    for n in names:
        with open(os.path.join(dest, os.path.basename(n)), "wb") as f:
            f.write(z.read(n))
PY

# module_dir MODULE@VERSION: where the Go module proxy's copy of it is unpacked
module_dir() {
  local info
  info="$(cd "$work" && GOFLAGS=-mod=mod GOTOOLCHAIN=local go mod download -json "$1" 2>>"$log")" \
    || die "k8s schemas: cannot fetch $1 from the Go module proxy: $(jq -r '.Error // empty' <<<"$info" 2>/dev/null | head -n 1)"
  jq -r '.Dir' <<<"$info"
}
say "k8s schemas: the CRDs of $eck_module@v$eck (Go module proxy)"
eck_dir="$(module_dir "$eck_module@v$eck")"
crds=("$eck_dir/config/crds/v1/all-crds.yaml")
for f in "${crds[@]}"; do [[ -f "$f" ]] || die "k8s schemas: $f is missing from its module"; done

node "$LAB_ROOT/k8s/schemas.mjs" "$work/schemas" "$work/core" "${crds[@]}" 2>>"$log" \
  || die "k8s schemas: converting the schemas failed: $(tail -n 3 "$log" | tr '\n' ' ')"
echo "$stamp" >"$work/schemas/.stamp"
rm -rf "$out"
mv "$work/schemas" "$out"
rm -rf "$work"
rmdir "$LAB_CACHE/build" 2>/dev/null || true
say "k8s schemas: $(find "$out" -name '*.json' | wc -l) schemas in $out"
echo "$out"
