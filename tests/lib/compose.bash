# Shared by the compose bats files: the compose model exactly as runtimes/compose/bin/lab resolves it (the
# base file plus every overlay under runtimes/compose/extensions/), from lab.env alone: compose runs with
# a clean environment, so what is checked is what lab.env produces, even when the caller
# (tests/run) has shifted ports in its environment.

REPO="$(cd "$BATS_TEST_DIRNAME/../.." && pwd)"
export REPO

# clean_env CMD...: CMD from the repository root with nothing of the caller's environment
clean_env() { (cd "$REPO" && env -i PATH="$PATH" HOME="$HOME" "$@"); }

# The -f arguments: runtimes/compose/bin/lab's own list, so the tests and the driver cannot differ
compose_files() { clean_env "$REPO/runtimes/compose/bin/lab" files; }

# "${SHAPED[@]}" CMD...: CMD with the shape runtimes/compose/bin/lab exports when no engine answers
# (lab.env's node sizes resolved on this machine's CPUs: packages/contract/src/shape.js)
# shellcheck disable=SC2016 # expanded by the inner bash
SHAPED=(bash -c 'while IFS= read -r l; do export "$l"; done < <(node packages/contract/bin/node-config env --cpus "0-$(($(nproc) - 1))") && exec "$@"' shaped)

# compose_model FILE: writes the resolved model (JSON) of the lab's files to FILE, shaped as
# runtimes/compose/bin/lab runs it
compose_model() {
  local files
  mapfile -t files < <(compose_files)
  clean_env "${SHAPED[@]}" "$DC" --project-directory "$REPO" "${files[@]}" --env-file lab.env config --format json >"$1"
}

# env_value KEY: the value lab.env itself gives KEY
env_value() { sed -n "s/^$1=//p" "$REPO/lab.env"; }

model() { jq -r "$@" "$MODEL"; }
