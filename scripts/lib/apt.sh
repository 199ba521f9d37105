# ensure_apt_packages PKG...: installs the Debian packages that are missing (cached: a second
# call is a dpkg query). Needs root, as on the lab's machines; otherwise says what to run.
ensure_apt_packages() {
  local missing=() pkg
  _apt_missing() {
    missing=()
    for pkg in "$@"; do
      dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
    done
  }
  _apt_missing "$@"
  ((${#missing[@]})) || return 0
  if [[ $(id -u) -ne 0 ]]; then
    die "missing Debian packages: ${missing[*]}; install them with: sudo apt-get install -y ${missing[*]}"
  fi
  # One install at a time on the machine: make test starts the test lab (its packages) beside the
  # static suites (theirs), and a second apt-get fails at once on the lock the first holds (a
  # fresh machine's promtool suite failed so, 2026-12-07). The lock is held until this install
  # ends (a die ends the process, which lets it go); what the other one installed is not
  # installed again.
  exec {_apt_lock_fd}>/run/lock/tenantlab-apt.lock
  flock -w 900 "$_apt_lock_fd" || die "another install of Debian packages has held /run/lock/tenantlab-apt.lock for 15 minutes: wait for it, or stop it"
  _apt_missing "$@"
  if ! ((${#missing[@]})); then exec {_apt_lock_fd}>&-; return 0; fi
  say "installing Debian packages: ${missing[*]}..."
  # apt and dpkg print a line per package unpacked and set up, -qq or not (prometheus alone: about
  # 60): kept in a log that is shown only when the install fails, one line when it succeeds
  local log t0=$SECONDS
  log="$(mktemp "${TMPDIR:-/tmp}/tenantlab-apt.XXXXXX")"
  # The package lists of a fresh machine may be empty or stale
  # quietly CMD...: its output into the log; on failure the log's last lines, then the error
  quietly() { "$@" >"$log" 2>&1 || { tail -n 20 "$log" >&2; rm -f "$log"; return 1; }; }
  quietly apt-get update -qq || die "apt-get update failed: check the network to the Debian mirror"
  quietly env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" \
    || die "apt-get install ${missing[*]} failed (its last lines above)"
  say "  installed in $((SECONDS - t0))s ($(grep -c '^Setting up ' "$log") packages with their dependencies)"
  rm -f "$log"
  exec {_apt_lock_fd}>&-
}
