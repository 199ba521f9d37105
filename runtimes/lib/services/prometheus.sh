# Prometheus from Debian's `prometheus` package (scripts/install/prometheus.sh), on
# LAB_BIND:PROMETHEUS_PORT. Its config is rendered from the template every runtime shares,
# prometheus/prometheus.yml.tmpl, with this lab's loopback addresses: it scrapes itself, the
# exporter, the allocator and the running load (Locust's /metrics on LAB_BIND:LOAD_METRICS_PORT,
# there only while a `make load` runs); rules come from prometheus/rules/. Config and data live
# in $LAB_DIR/prometheus.
# Interface: runtimes/lib/services.sh.

SERVICE_PORT="$PROMETHEUS_PORT"
SERVICE_HEALTH=/-/ready

PROMETHEUS_LAB_DIR="$LAB_DIR/prometheus"

# render_prometheus_config OUT: the shared template with the native addresses
render_prometheus_config() {
  # an unset port would render a target without one ("127.0.0.1:"): say which key is missing
  [[ -n "${LOAD_METRICS_PORT:-}" ]] || { say "prometheus: LOAD_METRICS_PORT is not set (lab.env)"; return 2; }
  PROM_SCRAPE_INTERVAL="$PROMETHEUS_SCRAPE_INTERVAL" \
    PROM_RULES_DIR="$LAB_ROOT/prometheus/rules" \
    PROM_PROMETHEUS_TARGET="$LAB_BIND:$PROMETHEUS_PORT" \
    PROM_ES_EXPORTER_TARGET="$LAB_BIND:$ES_EXPORTER_PORT" \
    PROM_ALLOCATOR_TARGET="$LAB_BIND:$ALLOCATOR_PORT" \
    PROM_LOAD_TARGET="$LAB_BIND:$LOAD_METRICS_PORT" \
    sh "$LAB_ROOT/prometheus/render.sh" "$LAB_ROOT/prometheus/prometheus.yml.tmpl" "$1"
}

service_prepare() {
  "$LAB_ROOT/scripts/install/prometheus.sh" >/dev/null
  mkdir -p "$PROMETHEUS_LAB_DIR/data"
  render_prometheus_config "$PROMETHEUS_LAB_DIR/prometheus.yml" \
    || die "prometheus: cannot render $PROMETHEUS_LAB_DIR/prometheus.yml"
  # A bad rule or config stops here with promtool's message, not in the service log.
  local out
  out="$(promtool check config "$PROMETHEUS_LAB_DIR/prometheus.yml" 2>&1)" \
    || die "prometheus: $PROMETHEUS_LAB_DIR/prometheus.yml is invalid: $(grep -iE 'fail|error' <<<"$out" | head -n 3 | tr '\n' ' ')"
}

service_command() {
  command -v prometheus || echo /usr/bin/prometheus
  echo "--config.file=$PROMETHEUS_LAB_DIR/prometheus.yml"
  echo "--storage.tsdb.path=$PROMETHEUS_LAB_DIR/data"
  echo "--storage.tsdb.retention.time=$PROMETHEUS_RETENTION"
  echo "--web.listen-address=$LAB_BIND:$PROMETHEUS_PORT"
  echo "--log.level=warn"
}
