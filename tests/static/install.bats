#!/usr/bin/env bats
# What the installers print, without installing anything: the native runtime's Maven build shows
# one line per module built and a count of the artifacts it downloads (its log keeps the rest:
# a cold build's ~420 "Downloaded from" lines), and a failed build is one line naming its log.

bats_require_minimum_version 1.5.0

setup() {
  bats_load_library bats-support
  bats_load_library bats-assert
  cd "$REPO" || return 1
}

# maven_output N: what `mvn -B package` prints with N downloads, padded as Maven pads its lines
maven_output() {
  local i
  echo "[INFO] Scanning for projects..."
  for ((i = 1; i <= $1; i++)); do echo "[INFO] Downloaded from central: https://repo.maven.apache.org/maven2/a/$i.jar (12 kB at 80 kB/s)"; done
  echo "[INFO] Building tenantlab rest-root 0.1.0                                [2/5]"
  echo "WARNING: A terminally deprecated method in sun.misc.Unsafe has been called"
  echo "[INFO] Building tenantlab analysis 0.1.0                                 [3/5]"
  echo "[INFO] BUILD SUCCESS"
}

@test "the native runtime's Maven build: one line per module and per 100 downloads, nothing else" {
  run bash -c 'source es-distribution/lib/build.sh; maven_progress' < <(maven_output 250)
  assert_success
  assert_output "  maven: 100 artifacts downloaded
  maven: 200 artifacts downloaded
  maven: building tenantlab rest-root 0.1.0 [2/5]
  maven: building tenantlab analysis 0.1.0 [3/5]
  maven: built (250 artifacts downloaded)"
}

@test "a failed Maven build: one line with Maven's error and where its whole log is, exit 2" {
  local fake="$BATS_TEST_TMPDIR/bin" cache="$BATS_TEST_TMPDIR/cache"
  mkdir -p "$fake"
  printf '#!/bin/sh\necho "[INFO] Downloaded from central: https://repo.maven.apache.org/maven2/a.jar"\necho "[ERROR] Failed to execute goal on project rest-root: Could not resolve dependencies"\nexit 1\n' >"$fake/mvn"
  chmod +x "$fake/mvn"
  run env PATH="$fake:$PATH" LAB_CACHE="$cache" LAB_NODE_SKIP=1 bash -c 'source scripts/lib/config.sh; source es-distribution/lib/build.sh
    ensure_apt_packages() { :; }
    build_native_dist /nonexistent-jdk'
  assert_failure 2
  assert_line --index 0 --partial "building the native Elasticsearch"
  assert_line --index 1 "error: Maven build of es-distribution failed (full log: $cache/native/maven-build.log): [ERROR] Failed to execute goal on project rest-root: Could not resolve dependencies; is Maven Central reachable?"
  assert_equal "${#lines[@]}" 2
  grep -q "Downloaded from" "$cache/native/maven-build.log"
}

# fake_apt DIR EXIT: an apt-get that prints what apt and dpkg print installing two packages
# (-qq or not), then exits EXIT; and a dpkg-query that knows no package
fake_apt() {
  mkdir -p "$1"
  cat >"$1/apt-get" <<SH
#!/bin/sh
[ "\$1" = update ] && exit 0
echo "debconf: delaying package configuration, since apt-utils is not installed"
for p in libjs-a libjs-b; do
  echo "Selecting previously unselected package \$p."
  echo "Preparing to unpack .../\$p.deb ..."
  echo "Unpacking \$p (1.0) ..."
  echo "Setting up \$p (1.0) ..."
done
[ $2 = 0 ] || echo "E: Sub-process /usr/bin/dpkg returned an error code (1)"
exit $2
SH
  printf '#!/bin/sh\nexit 1\n' >"$1/dpkg-query"
  chmod +x "$1/apt-get" "$1/dpkg-query"
}

# apt_as_user DIR: ensure_apt_packages run by another user than root (nobody, through setpriv,
# when the test runs as root: the lab's machines and CI run as root, so this path would never
# run there otherwise), the fake apt of DIR first on its PATH
apt_as_user() {
  local cmd='source scripts/lib/config.sh; source scripts/lib/apt.sh; ensure_apt_packages tenantlab-fake'
  if [[ $(id -u) -ne 0 ]]; then
    run env PATH="$1:$PATH" LAB_NODE_SKIP=1 bash -c "$cmd"
  else
    chmod -R a+rX "$1"
    run setpriv --reuid=65534 --regid=65534 --clear-groups env HOME=/nonexistent PATH="$1:$PATH" LAB_NODE_SKIP=1 \
      LAB_CACHE="$1/cache" bash -c "$cmd"
  fi
}

# as_root: the install itself runs as root only (the fake apt-get stands in for it)
as_root() { [[ $(id -u) -eq 0 ]] || skip "not root: the install runs as root only (the non-root path is its own test)"; }

@test "as another user than root: one line saying what to run, non-zero, nothing installed" {
  local bin
  bin="$(mktemp -d /tmp/tenantlab-apt.XXXXXX)"
  fake_apt "$bin" 0
  apt_as_user "$bin"
  rm -rf "$bin"
  assert_failure
  assert_output --partial "install them with: sudo apt-get install -y tenantlab-fake"
  refute_output --partial "installing Debian packages"
}

@test "installing Debian packages: two lines, apt's and dpkg's kept out of sight" {
  fake_apt "$BATS_TEST_TMPDIR/bin" 0
  as_root
  run env PATH="$BATS_TEST_TMPDIR/bin:$PATH" LAB_NODE_SKIP=1 bash -c 'source scripts/lib/config.sh; source scripts/lib/apt.sh; ensure_apt_packages tenantlab-fake'
  assert_success
  assert_line --index 0 "installing Debian packages: tenantlab-fake..."
  assert_line --index 1 --regexp '^  installed in [0-9]+s \(2 packages with their dependencies\)$'
  assert_equal "${#lines[@]}" 2
}

@test "a failed Debian install: apt's last lines, then one line naming the packages, non-zero" {
  fake_apt "$BATS_TEST_TMPDIR/bin" 100
  as_root
  run env PATH="$BATS_TEST_TMPDIR/bin:$PATH" LAB_NODE_SKIP=1 bash -c 'source scripts/lib/config.sh; source scripts/lib/apt.sh; ensure_apt_packages tenantlab-fake'
  assert_failure
  assert_line "E: Sub-process /usr/bin/dpkg returned an error code (1)"
  assert_equal "${lines[-1]}" "error: apt-get install tenantlab-fake failed (its last lines above)"
}
