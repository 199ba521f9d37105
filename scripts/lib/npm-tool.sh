# npm_tool DIR PACKAGE@VERSION...: installs test tools from the npm registry into DIR (outside the
# workspace: they are not the lab's dependencies), once per list of pinned versions; a second call
# only reads DIR/.installed. Extra npm environment (PUPPETEER_SKIP_DOWNLOAD=1) comes from the caller.
npm_tool() {
  local dir="$1"
  shift
  local want="$*"
  [[ "$(cat "$dir/.installed" 2>/dev/null)" == "$want" ]] && return 0
  command -v npm >/dev/null || die "npm is needed to install $want: install npm (Debian: apt-get install npm)"
  say "installing $want (npm)..."
  mkdir -p "$dir"
  npm install --prefix "$dir" --no-save --no-audit --no-fund --loglevel=error "$@" >&2 \
    || die "npm install of $want failed: is the npm registry reachable?"
  echo "$want" >"$dir/.installed"
}
