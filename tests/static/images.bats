#!/usr/bin/env bats
# LAB_IMAGES=official|local and the private Docker engine: bad input is one clear line and a
# non-zero exit, nothing started; and the local image set resolves to project-local names only.
# No engine is started here (tests/compose/ runs one; `make test-compose`).

setup() {
  load ../lib/lab
  load ../lib/compose
  DC="$("$REPO/scripts/install/compose.sh")"
  export LAB_COMPOSE_BIN="$DC"
  export LAB_DIR="$BATS_TEST_TMPDIR/lab"
}

# as_nobody CMD...: CMD as an unprivileged user (root's tests drop to nobody; others already are)
as_nobody() {
  if [[ $(id -u) -eq 0 ]]; then
    setpriv --reuid=65534 --regid=65534 --clear-groups env HOME=/nonexistent LAB_DIR="$LAB_DIR" "$@"
  else
    "$@"
  fi
}

@test "an unknown LAB_IMAGES is refused with one line, before compose runs" {
  LAB_IMAGES=distroless run "$REPO/runtimes/compose/bin/lab" config
  assert_failure 2
  assert_output "error: unknown LAB_IMAGES 'distroless': use official (the pinned images) or local (built here by runtimes/compose/images/build)"
  LAB_IMAGES=distroless RUNTIME=compose run "$LAB" up
  assert_failure 2
  assert_output --partial "unknown LAB_IMAGES 'distroless'"
}

@test "LAB_IMAGES=local: every image is a tenantlab-local one, no Kibana or Grafana, elasticsearch.local.yml mounted" {
  local model="$BATS_TEST_TMPDIR/model.json" files
  mapfile -t files < <(clean_env LAB_IMAGES=local "$REPO/runtimes/compose/bin/lab" files)
  assert_equal "${files[-1]}" "$REPO/runtimes/compose/images/local-compose.yml"
  # the `load` profile too: the locust service runs its local image, never pulled nor built
  (cd "$REPO" && env -i PATH="$PATH" HOME="$HOME" LAB_IMAGES=local COMPOSE_PROFILES=load LAB_COMPOSE_BIN="$DC" runtimes/compose/bin/lab config --format json) >"$model"
  assert_equal "$(jq -r '.services.locust | "\(.image) \(.pull_policy)"' "$model")" \
    "$(env_value LOCAL_IMAGE_PREFIX)/locust:$(env_value LOCUST_VERSION) never"
  run jq -r '.services | to_entries[] | "\(.key) \(.value.image)"' "$model"
  assert_success
  refute_output --partial kibana
  refute_output --partial grafana
  local prefix
  prefix="$(env_value LOCAL_IMAGE_PREFIX)"
  while read -r service image; do
    [[ "$image" == "$prefix/"* ]] || fail "$service runs $image, not a $prefix/ image"
  done <<<"$output"
  run jq -r '[.services[] | .volumes[]? | select(.target == "/usr/share/elasticsearch/config/elasticsearch.yml") | .source] | unique[]' "$model"
  assert_output "$REPO/runtimes/compose/elasticsearch/config/elasticsearch.local.yml"
  # The variant differs from the official config only by the settings of absent modules
  run grep -hE '^[a-z]' "$REPO/runtimes/compose/elasticsearch/config/elasticsearch.local.yml"
  assert_output "$(grep -hE '^[a-z]' "$REPO/runtimes/compose/elasticsearch/config/elasticsearch.yml" | grep -vE '^(xpack|ingest\.geoip)\.')"
}

@test "the local locust image: the lock's packages from PyPI on the Debian base (python3, python3-venv), target local first" {
  run clean_env bash -c 'source scripts/lib/config.sh && source runtimes/compose/images/lib.sh && local_image locust'
  assert_output "$(env_value LOCAL_IMAGE_PREFIX)/locust:$(env_value LOCUST_VERSION)"
  grep -qE '^ALL=\(.* locust .*\)$' "$REPO/runtimes/compose/images/build"
  grep -qE '^BASE_PACKAGES=.*,python3,python3-venv(,|$)' "$REPO/runtimes/compose/images/build"
  # the classic builder stops at --target local: that stage comes before the official one
  run grep -E '^FROM ' "$REPO/runtimes/compose/images/locust/Dockerfile"
  assert_output $'FROM ${BASE_IMAGE} AS local\nFROM ${LOCUST_IMAGE}:${LOCUST_VERSION} AS official'
  grep -q -- '--require-hashes --no-deps -r /tmp/requirements.lock' "$REPO/runtimes/compose/images/locust/Dockerfile"
}

@test "LAB_IMAGES=official (lab.env's default) runs the pinned images, unchanged" {
  assert_equal "$(env_value LAB_IMAGES)" official
  run clean_env "$REPO/runtimes/compose/bin/lab" files
  refute_output --partial local-compose.yml
}

@test "the private engine refuses to start without root, with one line" {
  run as_nobody "$REPO/scripts/docker-engine" start
  assert_failure 2
  assert_output "error: the private Docker engine needs root (dockerd runs as root): run as root, or use a Docker engine of your own (DOCKER_HOST)"
}

@test "the local images are not built without root, nor without an engine" {
  run as_nobody "$REPO/runtimes/compose/images/build"
  assert_failure 2
  assert_output "error: building the local images needs root (debootstrap): run as root"
  [[ $(id -u) -eq 0 ]] || skip "not root: the no-engine path is checked as root only"
  DOCKER_HOST="unix://$BATS_TEST_TMPDIR/none.sock" run "$REPO/runtimes/compose/images/build"
  assert_failure 2
  assert_output --partial "no Docker engine answers at unix://$BATS_TEST_TMPDIR/none.sock"
}

@test "docker-engine: an unknown command is one line; status of a stopped engine says so" {
  run "$REPO/scripts/docker-engine" restart
  assert_failure 2
  assert_output "error: usage: scripts/docker-engine start|stop|status|env"
  LAB_DOCKER_DIR="$BATS_TEST_TMPDIR/engine" run "$REPO/scripts/docker-engine" status
  assert_failure 1
  assert_output stopped
}
