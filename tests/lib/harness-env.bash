# The test lab's environment, shared by tests/run, tests/compose/run and tests/check, then the
# harness (tests/harness, Node) started with it: `start_harness MODE ARGS...` never returns.
# The test lab keeps its own state and listens on every lab port + LAB_TEST_PORT_OFFSET, so
# `make test` runs beside a lab started with `make up` without touching it.
set -uo pipefail
# LAB_WARMUP as the caller set it, if at all: config.sh exports lab.env's 30s
caller_warmup="${LAB_WARMUP:-}"
source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib/config.sh"

start_harness() {
  local mode="$1"
  shift
  export LAB_DIR="$LAB_ROOT/.lab/test/lab"
  # under tests/run the ports are shifted and the compose project named already (LAB_TEST_ENV)
  if [[ -z "${LAB_TEST_ENV:-}" ]]; then
    # a compose test lab must not take over (and then stop) the developer's compose project
    export COMPOSE_PROJECT_NAME="${COMPOSE_PROJECT_NAME:-tenantlab}-test"
    shift_lab_ports "${LAB_TEST_PORT_OFFSET:-1000}"
    export LAB_TEST_ENV=1
    # make up's warm-up on the test lab: 5 s, so each seeding `make up` of the suites does not
    # cost half a minute; 40-seed.bats checks it runs, once per start of the nodes
    export LAB_WARMUP="${caller_warmup:-5s}"
  fi
  # the harness is Node, with its two dependencies from the workspace's lockfile
  "$LAB_ROOT/scripts/install/node.sh" >/dev/null || { echo "tests: Node.js could not be installed (scripts/install/node.sh)" >&2; exit 1; }
  "$LAB_ROOT/scripts/install/npm-deps.sh" || { echo "tests: the Node.js dependencies could not be installed (scripts/install/npm-deps.sh)" >&2; exit 1; }
  exec node "$LAB_ROOT/tests/harness/bin/harness.mjs" "$mode" "$@"
}
