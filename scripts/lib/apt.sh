# ensure_apt_packages PKG...: installs the Debian packages that are missing (cached: a second
# call is a dpkg query). Needs root, as on the lab's machines; otherwise says what to run.
ensure_apt_packages() {
  local missing=() pkg
  for pkg in "$@"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
  done
  ((${#missing[@]})) || return 0
  if [[ $(id -u) -ne 0 ]]; then
    die "missing Debian packages: ${missing[*]}; install them with: sudo apt-get install -y ${missing[*]}"
  fi
  say "installing Debian packages: ${missing[*]}"
  # The package lists of a fresh machine may be empty or stale
  apt-get update -qq >&2 || die "apt-get update failed: check the network to the Debian mirror"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2 \
    || die "apt-get install ${missing[*]} failed"
}
