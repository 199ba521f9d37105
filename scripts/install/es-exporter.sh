#!/usr/bin/env bash
# Builds prometheus-community/elasticsearch_exporter at ES_EXPORTER_VERSION (lab.env) from the
# Go module proxy into $LAB_CACHE/bin/elasticsearch_exporter and prints its path (cached: a
# second call is a stamp check). Debian's prometheus-elasticsearch-exporter is 1.5.0, whose
# flags differ; the compose runtime runs the same version's official image.
set -euo pipefail
here="$(dirname "$0")"
source "$here/../lib/config.sh"

module=github.com/prometheus-community/elasticsearch_exporter
# Without the version stamp the exporter reports version "" in elasticsearch_exporter_build_info.
exec "$here/go-wrapper-build.sh" "$module" "v${ES_EXPORTER_VERSION#v}" "$module" elasticsearch_exporter \
  "-X github.com/prometheus/common/version.Version=${ES_EXPORTER_VERSION#v} -X github.com/prometheus/common/version.Branch=tenantlab"
