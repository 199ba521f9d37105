#!/usr/bin/env bash
# Builds Docker Compose v2 (${COMPOSE_VERSION} from lab.env) into $LAB_CACHE/bin/docker-compose
# and prints its path. Used to validate runtimes/compose/docker-compose.yml with the real Compose
# semantics on machines with no Docker engine (and no compose plugin to borrow).
set -euo pipefail
here="$(dirname "$0")"
source "$here/../lib/config.sh"

module=github.com/docker/compose/v2
# Without the version stamp, `docker-compose version` reports "dev".
exec "$here/go-wrapper-build.sh" "$module" "$COMPOSE_VERSION" "$module/cmd" docker-compose \
  "-X $module/internal.Version=$COMPOSE_VERSION"
