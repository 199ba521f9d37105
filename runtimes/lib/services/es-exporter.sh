# elasticsearch_exporter (prometheus-community) at ES_EXPORTER_VERSION, built from the Go module
# proxy by scripts/install/es-exporter.sh (cached in $LAB_CACHE/bin). It asks the lab's HTTP
# entry point (the master node; RUNTIME=external: ES_URL) for every node's stats (--es.all) plus the indices, shards,
# aliases and cluster-settings collectors, and serves them on LAB_BIND:ES_EXPORTER_PORT.
# Interface: runtimes/lib/services.sh.

SERVICE_PORT="$ES_EXPORTER_PORT"
# The landing page answers as soon as the exporter listens (it listens ~10 s late when the
# cluster is down); /metrics would query the cluster on every probe.
SERVICE_HEALTH=/
SERVICE_URL="http://$LAB_BIND:$ES_EXPORTER_PORT/metrics"

service_prepare() {
  "$LAB_ROOT/scripts/install/es-exporter.sh" >/dev/null
}

service_command() {
  echo "$LAB_CACHE/bin/elasticsearch_exporter"
  echo "--es.uri=$(es_url "$LAB_MASTER_NODE")"
  echo "--es.all"
  echo "--es.indices"
  echo "--es.shards"
  echo "--es.aliases"
  echo "--collector.clustersettings"
  echo "--es.timeout=8s"
  echo "--web.listen-address=$LAB_BIND:$ES_EXPORTER_PORT"
  echo "--log.level=warn"
  # an external cluster's CA (or no check); its credentials reach the exporter through its
  # environment (service_environment), never its command line
  if lab_is_external; then node "$LAB_ROOT/packages/contract/bin/connection" exporter-flags; fi
}

# An external cluster's credentials (ES_USERNAME/ES_PASSWORD or ES_API_KEY), for the exporter's
# process alone
service_environment() {
  if lab_is_external; then node "$LAB_ROOT/packages/contract/bin/connection" env exporter; fi
}
