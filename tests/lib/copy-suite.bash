# What the static files that edit copies of the repository share (render.bats, node-config.bats,
# k8s.bats): the assertions, the compose and topology helpers, the checkout as the working
# directory, and Compose v2 built once per file. Load it at a file's top level; a file that needs
# more before its tests defines its own setup_file after the load.

setup_file() {
  load ../lib/compose
  DC="$("$REPO/scripts/install/compose.sh")"
  export DC
}

setup() {
  bats_load_library bats-support
  bats_load_library bats-assert
  load ../lib/compose
  load ../lib/topology
  cd "$REPO" || return 1
}
