#!/usr/bin/env bats
# The private Docker engine's failure path (scripts/docker-engine), here rather than in
# tests/static/: it needs docker.io, which the compose part installs first (a fresh CI machine
# has none when the static tests run), and root, as the private engine does.

setup() {
  load ../lib/lab
}

@test "a dockerd that cannot start is one line with its reason, and nothing is left running" {
  [[ $(id -u) -eq 0 ]] || skip "not root: the private engine needs root"
  command -v dockerd >/dev/null || fail "docker.io is not installed, although the compose part started an engine"
  # A unix socket path longer than the kernel's 108 bytes: dockerd itself refuses to listen
  local dir="$BATS_TEST_TMPDIR/$(printf 'x%.0s' {1..110})"
  LAB_DOCKER_DIR="$dir" run "$REPO/scripts/docker-engine" start
  assert_failure 2
  assert_line --regexp "^error: the private Docker engine did not start: failed to load listeners: .*docker.sock.* \(full log: $dir/dockerd.log\)\$"
  run pgrep -f -- "$dir/"
  assert_failure
  [[ ! -e "$dir/dockerd.pid" ]]
}
