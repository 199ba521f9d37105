#!/usr/bin/env bash
# go-wrapper-build.sh MODULE VERSION PACKAGE NAME [LDFLAGS]
#
# Builds the Go main PACKAGE of MODULE@VERSION from the Go module proxy into $LAB_CACHE/bin/NAME
# and prints that path on stdout. A second call with the same arguments is a cache hit and
# returns at once.
#
# Why a wrapper module and not `go install MODULE/PACKAGE@VERSION`: the proxy answers version
# lists with 403 and go install ignores the upstream replace directives, so go install fails for
# several tools. A throwaway main module whose go.mod is the upstream one (module line renamed,
# upstream replace directives kept, plus a require of MODULE@VERSION) resolves exactly the
# dependency versions upstream builds with.
#
# Example: go-wrapper-build.sh github.com/docker/compose/v2 v2.40.3 \
#            github.com/docker/compose/v2/cmd docker-compose "-X github.com/docker/compose/v2/internal.Version=v2.40.3"
set -euo pipefail
source "$(dirname "$0")/../lib/config.sh"

(($# == 4 || $# == 5)) || die "usage: $(basename "$0") MODULE VERSION PACKAGE NAME [LDFLAGS]"
module="$1" version="$2" package="$3" name="$4" ldflags="${5:-}"
[[ "$version" == v* ]] || die "$name: VERSION must be an exact tag like v1.2.3 (the proxy refuses version queries), got '$version'"
[[ "$package" == "$module" || "$package" == "$module"/* ]] || die "$name: PACKAGE $package is not inside MODULE $module"

bin_dir="$LAB_CACHE/bin"
out="$bin_dir/$name"
stamp_file="$bin_dir/.$name.stamp"
stamp="$module@$version $package $ldflags"

if [[ -x "$out" && -f "$stamp_file" && "$(cat "$stamp_file")" == "$stamp" ]]; then
  echo "$out"
  exit 0
fi

command -v go >/dev/null 2>&1 || die "$name: building it needs Go (go not on PATH); install Go >= the version in $module's go.mod"

say "$name: building $module@$version from the Go module proxy ($(go env GOVERSION); a cold build takes a few minutes)"
work="$LAB_CACHE/build/$name-$version"
rm -rf "$work"
mkdir -p "$work" "$bin_dir"
# Kept on failure so the error can point at it; a success removes the whole folder.
log="$work/build.log"

# No toolchain download: a module that needs a newer Go fails here with a clear message.
export GOTOOLCHAIN=local

say "$name: [1/3] fetching $module@$version"
info="$(cd "$work" && go mod download -json "$module@$version" 2>"$log")" \
  || die "$name: cannot fetch $module@$version: $({ jq -r '.Error // empty' <<<"$info" 2>/dev/null; tail -n 2 "$log"; } | tr -s '\n\t' '  ')"
upstream_mod="$(jq -r '.GoMod // empty' <<<"$info")"
upstream_dir="$(jq -r '.Dir // empty' <<<"$info")"
[[ -f "$upstream_mod" ]] || die "$name: the proxy gave no go.mod for $module@$version"
compgen -G "$upstream_dir${package#"$module"}/*.go" >/dev/null \
  || die "$name: $module@$version has no package ${package#"$module"/} (no .go files there)"

# A replace pointing at a local folder of the upstream tree cannot resolve outside it.
if grep -Eq '=>[[:space:]]*(\.|/)' "$upstream_mod"; then
  die "$name: $module@$version's go.mod replaces a module with a local path; the wrapper cannot build it"
fi
sed -E "s|^module[[:space:]].*|module tenantlab.local/wrapper/$name|" "$upstream_mod" >"$work/go.mod"
printf '\nrequire %s %s\n' "$module" "$version" >>"$work/go.mod"
# Upstream's checksums, so the dependencies it pinned are verified without extra lookups.
if [[ -f "$upstream_dir/go.sum" ]]; then cp "$upstream_dir/go.sum" "$work/go.sum"; fi

say "$name: [2/3] checking the module graph"
# Records MODULE's own checksums; every other one comes from upstream's go.sum, and the build
# below is -mod=readonly, so it uses exactly upstream's pins and never resolves a version.
(cd "$work" && go mod download "$module" >>"$log" 2>&1) \
  || die "$name: go mod download $module failed: $(tail -n 3 "$log" | tr '\n' ' ')"

say "$name: [3/3] compiling $package"
# go build -v names each package as it is compiled: show a count so a long build visibly moves.
set +e
(cd "$work" && go build -mod=readonly -v -trimpath -ldflags "-s -w $ldflags" -o "$work/$name" "$package" 2>&1) \
  | tee -a "$log" \
  | awk -v name="$name" '/^[a-zA-Z0-9._~-]+(\/[a-zA-Z0-9._~+-]+)*$/ { n++; if (n % 100 == 0) { printf "%s:   %d packages compiled\n", name, n > "/dev/stderr"; fflush("/dev/stderr") } }'
rc="${PIPESTATUS[0]}"
set -e
((rc == 0)) || die "$name: go build failed (full log: $log): $(grep -v '^[a-zA-Z0-9._~/+-]*$' "$log" | tail -n 3 | tr '\n' ' ')"

mv -f "$work/$name" "$out"
echo "$stamp" >"$stamp_file"
rm -rf "$work"
rmdir "$LAB_CACHE/build" 2>/dev/null || true
say "$name: built $out"
echo "$out"
