# The compose runtime's two image sets (LAB_IMAGES in lab.env), shared by runtimes/compose/bin/lab and
# runtimes/compose/images/build. Source it after scripts/lib/config.sh.
#
#   official  the images lab.env pins (ES_IMAGE, PROMETHEUS_IMAGE, ...), unchanged
#   local     images built here by runtimes/compose/images/build, named LOCAL_IMAGE_PREFIX/NAME:TAG
#             (tenantlab-local/elasticsearch:9.5.3): never an official name, so a user's Docker
#             never mistakes one for the other. Kibana and Grafana have no local image: the
#             overlay local-compose.yml puts them in a profile nobody activates.

# check_lab_images: one line and exit 2 for an unknown LAB_IMAGES
check_lab_images() {
  case "${LAB_IMAGES:-official}" in
    official | local) ;;
    *) die "unknown LAB_IMAGES '$LAB_IMAGES': use official (the pinned images) or local (built here by runtimes/compose/images/build)" ;;
  esac
}

# The local images' names. The tags are the versions of what they carry.
local_image() {
  local p="$LOCAL_IMAGE_PREFIX"
  case "$1" in
    base) echo "$p/debian:$LOCAL_BASE_SUITE" ;;
    elasticsearch) echo "$p/elasticsearch:$ES_VERSION" ;;
    prometheus) echo "$p/prometheus:$PROMETHEUS_VERSION" ;;
    es-exporter) echo "$p/elasticsearch-exporter:v${ES_EXPORTER_VERSION#v}" ;;
    locust) echo "$p/locust:$LOCUST_VERSION" ;;
    # lab.env's Node.js (NODE_VERSION, as the native runtime runs it) on the Debian base
    node) echo "$p/node:$NODE_VERSION-$LOCAL_BASE_SUITE" ;;
    # local-compose.yml names it too (compose reads no function)
    allocator) echo "$p/allocator:latest" ;;
    *) die "local_image: unknown image '$1'" ;;
  esac
}

# use_lab_images: exports, for LAB_IMAGES=local, the variables the compose files interpolate in
# their image: lines (the environment wins over lab.env), and the elasticsearch.yml variant
# without the settings of modules the local image lacks (x-pack, ingest-geoip).
use_lab_images() {
  check_lab_images
  [[ "${LAB_IMAGES:-official}" == local ]] || return 0
  export ES_IMAGE="$LOCAL_IMAGE_PREFIX/elasticsearch"
  export PROMETHEUS_IMAGE="$LOCAL_IMAGE_PREFIX/prometheus"
  export ES_EXPORTER_IMAGE="$LOCAL_IMAGE_PREFIX/elasticsearch-exporter"
  export LOCUST_IMAGE="$LOCAL_IMAGE_PREFIX/locust"
  NODE_IMAGE="$(local_image node)"
  export NODE_IMAGE
  export ES_CONFIG_FILE=elasticsearch.local.yml
  local hard
  hard="$(ulimit -Hn)"
  if [[ "$hard" =~ ^[0-9]+$ ]] && ((hard < ES_NOFILE)); then export ES_NOFILE="$hard"; fi
}

# The overlay LAB_IMAGES=local adds after the other compose files
local_overlay() { [[ "${LAB_IMAGES:-official}" != local ]] || echo "$LAB_ROOT/runtimes/compose/images/local-compose.yml"; }
