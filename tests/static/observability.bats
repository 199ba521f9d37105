#!/usr/bin/env bats
# The observability stack without a lab: the Prometheus config both runtimes render from the one
# template (promtool check config), the recording and alert rules (promtool check rules and unit
# tests), the compose overlay (real Compose v2, as tests/static/compose.bats), the native service
# files, and the Grafana dashboards (JSON, uids, datasource by uid, variables, every target's
# PromQL parses). A failure names the dashboard and the panel.

# shellcheck disable=SC2016,SC2154 # jq programs are single-quoted on purpose; run sets $stderr
bats_require_minimum_version 1.5.0

setup_file() {
  load ../lib/compose
  # promtool ships in Debian's prometheus package (installed and version-checked, cached)
  "$REPO/scripts/install/prometheus.sh" >/dev/null
  DC="$("$REPO/scripts/install/compose.sh")"
  OVERLAY=runtimes/compose/extensions/observability/observability-compose.yml
  MODEL="$BATS_FILE_TMPDIR/model.json"
  export DC OVERLAY MODEL
  compose_model "$MODEL"
}

setup() {
  bats_load_library bats-support
  bats_load_library bats-assert
  load ../lib/compose
  source "$REPO/tests/lib/observability.bash"
  cd "$REPO" || return 1
}

OBS_SERVICES="es-exporter prometheus grafana"

# The native service files, sourced as runtimes/lib/services.sh does (in a subshell, after the
# lab's config), with a throwaway LAB_DIR.
native_service() {
  local name="$1"
  shift
  (
    # shellcheck disable=SC2030 # the subshell is the point: as runtimes/lib/services.sh sources them
    export LAB_DIR="$BATS_TEST_TMPDIR/lab"
    source "$REPO/scripts/lib/config.sh"
    # shellcheck disable=SC1090 # one of runtimes/lib/services/*.sh
    source "$REPO/runtimes/lib/services/$name.sh"
    "$@"
  )
}

@test "native: Prometheus renders its config from the shared template, and promtool accepts it" {
  local out="$BATS_TEST_TMPDIR/prometheus.yml"
  run native_service prometheus render_prometheus_config "$out"
  assert_success
  refute grep -q '@[A-Z_]*@' "$out"
  run promtool check config "$out"
  assert_success
  assert_output --partial "SUCCESS"
  # Loopback targets from lab.env (or the environment), the rules of prometheus/rules
  source scripts/lib/config.sh
  for target in "$LAB_BIND:$PROMETHEUS_PORT" "$LAB_BIND:$ES_EXPORTER_PORT" "$LAB_BIND:$ALLOCATOR_PORT" "$LAB_BIND:$LOAD_METRICS_PORT"; do
    grep -qF "'$target'" "$out" || fail "target $target missing from the rendered config"
  done
  grep -qF -- "- $REPO/prometheus/rules/*.yml" "$out"
  # The running load (Locust's /metrics, job `load`): every 5 s, at the load's port
  run load_job "$out"
  assert_line "    scrape_interval: 5s"
  assert_line "      - targets: ['$LAB_BIND:$LOAD_METRICS_PORT']"
}

# load_job FILE: the lines of the `load` scrape job of a rendered config
load_job() { sed -n '/^  - job_name: load$/,/^  - job_name: /p' "$1"; }

@test "render.sh refuses a template whose variable is unset, and writes nothing" {
  printf 'a: @SCRAPE_INTERVAL@\nb: @NOT_SET_ANYWHERE@\n' >"$BATS_TEST_TMPDIR/t.tmpl"
  PROM_SCRAPE_INTERVAL=10s run sh prometheus/render.sh "$BATS_TEST_TMPDIR/t.tmpl" "$BATS_TEST_TMPDIR/out.yml"
  assert_failure 2
  assert_output --partial "PROM_NOT_SET_ANYWHERE"
  [[ ! -e "$BATS_TEST_TMPDIR/out.yml" ]]
}

@test "native: the service commands listen on LAB_BIND only, exporter with every collector asked for" {
  source scripts/lib/config.sh
  run native_service es-exporter service_command
  assert_success
  assert_line "--web.listen-address=$LAB_BIND:$ES_EXPORTER_PORT"
  assert_line "--es.uri=http://$LAB_BIND:$(node_var "$LAB_MASTER_NODE" HTTP_PORT)"
  for flag in --es.all --es.indices --es.shards --es.aliases --collector.clustersettings; do assert_line "$flag"; done
  run native_service prometheus service_command
  assert_success
  assert_line "--web.listen-address=$LAB_BIND:$PROMETHEUS_PORT"
  # Nothing pushes (the load is scraped, job `load`): no remote-write receiver
  refute_line -- "--web.enable-remote-write-receiver"
  assert_line "--storage.tsdb.retention.time=$PROMETHEUS_RETENTION"
  assert_line --regexp "^--storage.tsdb.path=.*/prometheus/data$"
  assert_equal "$(native_service prometheus eval 'echo "$SERVICE_PORT $SERVICE_HEALTH"')" "$PROMETHEUS_PORT /-/ready"
  assert_equal "$(native_service es-exporter eval 'echo "$SERVICE_PORT"')" "$ES_EXPORTER_PORT"
}

@test "rules: promtool check rules" {
  # the rule unit tests (prometheus/rules.test.yml) are a suite of the harness, a test a group
  run promtool check rules prometheus/rules/*.yml
  assert_success
  refute_output --partial FAILED
}

@test "compose: the overlay resolves with the base file, with no warning, from lab.env alone" {
  run --separate-stderr clean_env "$DC" --project-directory "$REPO" -f runtimes/compose/docker-compose.yml -f "$OVERLAY" \
    --env-file lab.env config -q
  assert_success
  assert_equal "$stderr" ""
  local var missing=()
  while read -r var; do
    grep -q "^$var=" lab.env || missing+=("$var")
  done < <(grep -v '^[[:space:]]*#' "$OVERLAY" | grep -o '\${[A-Za-z_][A-Za-z0-9_]*' | cut -c3- | sort -u)
  assert_equal "missing from lab.env: ${missing[*]}" "missing from lab.env: "
}

@test "compose: Prometheus renders the same template with the compose addresses, and promtool accepts it" {
  local env rules_dir src dst prom_env out="$BATS_TEST_TMPDIR/compose-prometheus.yml"
  env="$(model '.services.prometheus.environment | to_entries[] | select(.key | startswith("PROM_")) | "\(.key)=\(.value)"')"
  [[ -n "$env" ]] || fail "the prometheus service has no PROM_* environment"
  # The entrypoint renders the mounted template: the same file native uses
  assert_equal "$(model '.services.prometheus.entrypoint | join(" ")')" \
    "/bin/sh /etc/tenantlab/prometheus/render.sh /etc/tenantlab/prometheus/prometheus.yml.tmpl /prometheus/prometheus.yml"
  src="$(model '.services.prometheus.volumes[] | select(.target == "/etc/tenantlab/prometheus") | .source')"
  assert_equal "$src" "$REPO/prometheus"
  # Rules: the container path, mapped back to the bind source so promtool finds the files
  rules_dir="$(sed -n 's/^PROM_RULES_DIR=//p' <<<"$env")"
  dst="${rules_dir/#\/etc\/tenantlab\/prometheus/$src}"
  mapfile -t prom_env < <(grep -v '^PROM_RULES_DIR=' <<<"$env")
  env -i PATH="$PATH" "${prom_env[@]}" PROM_RULES_DIR="$dst" \
    sh prometheus/render.sh prometheus/prometheus.yml.tmpl "$out" || fail "render failed"
  run promtool check config "$out"
  assert_success
  assert_output --partial "SUCCESS: 2 rule files found"
  for target in localhost:9090 es-exporter:9114 allocator:8080; do
    grep -qF "'$target'" "$out" || fail "target $target missing from the compose rendering"
  done
  # The load's /metrics, as the compose runtime names it (the locust service), every 5 s
  local load_target
  load_target="$(sed -n 's/^PROM_LOAD_TARGET=//p' <<<"$env")"
  [[ -n "$load_target" ]] || fail "the prometheus service has no PROM_LOAD_TARGET"
  run load_job "$out"
  assert_line "    scrape_interval: 5s"
  assert_line "      - targets: ['$load_target']"
  # Same command-line contract as native: no remote write (nothing pushes), retention from lab.env
  run model '.services.prometheus.command[]'
  refute_line -- "--web.enable-remote-write-receiver"
  assert_line "--storage.tsdb.retention.time=$(env_value PROMETHEUS_RETENTION)"
  assert_line "--config.file=/prometheus/prometheus.yml"
}

@test "compose: images pinned to lab.env, ports on 127.0.0.1, healthchecks, depends_on healthy" {
  assert_equal "$(model '.services["es-exporter"].image')" "$(env_value ES_EXPORTER_IMAGE):v$(env_value ES_EXPORTER_VERSION)"
  assert_equal "$(model '.services.prometheus.image')" "$(env_value PROMETHEUS_IMAGE):$(env_value PROMETHEUS_VERSION)"
  assert_equal "$(model '.services.grafana.image')" "$(env_value GRAFANA_IMAGE):$(env_value GRAFANA_VERSION)"
  local s
  for s in $OBS_SERVICES; do
    run model --arg s "$s" '.services[$s].image'
    refute_output --regexp ':latest$'
    run model --arg s "$s" '.services[$s].ports[] | "\(.host_ip) \(.published)"'
    assert_success
    assert_output --regexp '^127\.0\.0\.1 [0-9]+$'
    run model --arg s "$s" '.services[$s].healthcheck.test | length'
    assert_output --regexp '^[1-9]'
    run model --arg s "$s" '(.services[$s].depends_on // {}) | to_entries[] | select(.value.condition != "service_healthy") | .key'
    assert_output ""
  done
  assert_equal "$(model '.services["es-exporter"].ports[0].published')" "$(env_value ES_EXPORTER_PORT)"
  assert_equal "$(model '.services.prometheus.ports[0].published')" "$(env_value PROMETHEUS_PORT)"
  assert_equal "$(model '.services.grafana.ports[0].published')" "$(env_value GRAFANA_PORT)"
  run model '.services["es-exporter"].command[]'
  for flag in --es.all --es.indices --es.shards --es.aliases --collector.clustersettings \
    "--es.uri=http://$(env_value LAB_MASTER_NODE):9200"; do assert_line -- "$flag"; done
}

@test "compose: Grafana provisions from grafana-dashboards/, anonymous viewers read-only, admin password from lab.env" {
  run model '.services.grafana.volumes[] | select(.type == "bind") | "\(.source) \(.target) \(.read_only)"'
  assert_line "$REPO/grafana-dashboards/dashboards /etc/grafana/provisioning/dashboards true"
  assert_line "$REPO/grafana-dashboards/datasources /etc/grafana/provisioning/datasources true"
  run model '.services.grafana.environment | to_entries[] | "\(.key)=\(.value)"'
  assert_line "GF_SECURITY_ADMIN_PASSWORD=$(env_value GRAFANA_ADMIN_PASSWORD)"
  assert_line "GF_AUTH_ANONYMOUS_ENABLED=true"
  assert_line "GF_AUTH_ANONYMOUS_ORG_ROLE=Viewer"
  assert_line "GF_DASHBOARDS_DEFAULT_HOME_DASHBOARD_PATH=/etc/grafana/provisioning/dashboards/home.json"
  [[ -f grafana-dashboards/dashboards/home.json ]]
  # The provider loads the folder Grafana sees; the datasource has the uid the dashboards use
  grep -qx '      path: /etc/grafana/provisioning/dashboards' grafana-dashboards/dashboards/provider.yml
  grep -qx "    uid: $DATASOURCE_UID" grafana-dashboards/datasources/prometheus.yml
  grep -qx "    url: http://prometheus:9090" grafana-dashboards/datasources/prometheus.yml
  # Generated from lab.env (grafana-dashboards/build): nothing stated twice by hand
  grep -qx "      timeInterval: $(env_value PROMETHEUS_SCRAPE_INTERVAL)" grafana-dashboards/datasources/prometheus.yml
  grep -qx "      prometheusVersion: $(env_value PROMETHEUS_VERSION | sed 's/^v//')" grafana-dashboards/datasources/prometheus.yml
}

@test "dashboards: the committed JSON and datasource file are what grafana-dashboards/src/ compiles to (build --check)" {
  run --separate-stderr grafana-dashboards/build --check
  assert_success
}

@test "dashboards: build --check names every stale, missing or left-over file and exits 1; build rewrites them" {
  local out="$BATS_TEST_TMPDIR/gd"
  mkdir -p "$out"
  cp -r grafana-dashboards/dashboards grafana-dashboards/datasources "$out/"
  grafana-dashboards/build --check --out "$out" 2>/dev/null || fail "a fresh copy of the committed files is reported stale"
  jq '.panels[1].title = "edited by hand"' grafana-dashboards/dashboards/home.json >"$out/dashboards/home.json"
  rm "$out/dashboards/ingest.json"
  echo '{}' >"$out/dashboards/old.json"
  sed -i 's/^      timeInterval: .*/      timeInterval: 1m/' "$out/datasources/prometheus.yml"
  run --separate-stderr grafana-dashboards/build --check --out "$out"
  assert_failure 1
  local report="$stderr"
  assert_equal "$(grep -c '^stale: ' <<<"$report")" 4
  for f in dashboards/home.json dashboards/ingest.json dashboards/old.json datasources/prometheus.yml; do
    grep -q "^stale: .*$f (" <<<"$report" || fail "--check does not name $f: $report"
  done
  run grafana-dashboards/build --out "$out"
  assert_success
  [[ ! -e "$out/dashboards/old.json" ]] || fail "build left a dashboard no source produces"
  grafana-dashboards/build --check --out "$out" || fail "still stale after build"
  run grafana-dashboards/build --bogus
  assert_failure 2
  assert_output --partial "usage: grafana-dashboards/build"
}

@test "dashboards: valid JSON, each with a title, the tenantlab tag and a uid of its own" {
  local f uids
  [[ "$(dashboard_files | wc -l)" -ge 6 ]] || fail "expected at least 6 dashboards, found: $(dashboard_files | paste -sd ' ')"
  for f in $(dashboard_files); do
    jq -e . "$DASHBOARDS_DIR/$f" >/dev/null || fail "$f: not valid JSON"
    jq -e '(.uid | type == "string" and length > 0 and length <= 40) and (.title | length > 0) and (.tags | index("tenantlab"))' \
      "$DASHBOARDS_DIR/$f" >/dev/null || fail "$f: needs a uid (<= 40 chars), a title and the tenantlab tag"
    jq -e '.id == null' "$DASHBOARDS_DIR/$f" >/dev/null || fail "$f: a provisioned dashboard must not carry a numeric id"
  done
  uids="$(for f in $(dashboard_files); do jq -r .uid "$DASHBOARDS_DIR/$f"; done | sort | uniq -d)"
  assert_equal "duplicate uids: $uids" "duplicate uids: "
  # Links and bookmarks point at these uids: they stay
  for uid in tenantlab-home tenantlab-cluster tenantlab-index-groups tenantlab-tenants tenantlab-load tenantlab-ingest; do
    grep -qx "$uid" <<<"$(for f in $(dashboard_files); do jq -r .uid "$DASHBOARDS_DIR/$f"; done)" || fail "no dashboard with uid $uid"
  done
  for f in $(dashboard_files); do
    run jq -r '[.panels[]? | ., (.panels[]?)] | map(.id) | group_by(.) | map(select(length > 1) | .[0]) | .[]' "$DASHBOARDS_DIR/$f"
    assert_equal "$f duplicate panel ids: $output" "$f duplicate panel ids: "
    run jq -r '[.panels[]? | ., (.panels[]?)] | .[] | select((.id | type) != "number" or .id < 1) | .title' "$DASHBOARDS_DIR/$f"
    assert_equal "$f panels without an id: $output" "$f panels without an id: "
    # Every target has a refId of its own within its panel (failures name targets by it)
    run jq -r '[.panels[]? | ., (.panels[]?)] | .[] | select(.targets)
      | select((.targets | map(.refId) | (any(. == null or . == "") or (unique | length) != length))) | .title' "$DASHBOARDS_DIR/$f"
    assert_equal "$f panels with a missing or repeated refId: $output" "$f panels with a missing or repeated refId: "
    # The layout: every panel inside the 24 columns, no two overlapping
    run jq -r '[.panels[] | {t: .title, g: .gridPos}] as $p | ($p[] | select(.g.x + .g.w > 24) | "\(.t) is wider than the grid"),
      (range(0; $p | length) as $i | range($i + 1; $p | length) as $j | $p[$i].g as $a | $p[$j].g as $b
        | select($a.x < $b.x + $b.w and $b.x < $a.x + $a.w and $a.y < $b.y + $b.h and $b.y < $a.y + $a.h)
        | "\($p[$i].t) overlaps \($p[$j].t)")' "$DASHBOARDS_DIR/$f"
    assert_equal "$f layout: $output" "$f layout: "
  done
}

@test "dashboards: every datasource is the provisioned Prometheus, referenced by uid" {
  local f bad
  for f in $(dashboard_files); do
    # Every object under a "datasource" key, anywhere (panels, targets, variables)
    bad="$(jq -c --arg uid "$DATASOURCE_UID" '[.. | objects | select(has("datasource")) | .datasource]
      | map(select(. != {"type": "prometheus", "uid": $uid})) | unique | .[]' "$DASHBOARDS_DIR/$f")"
    assert_equal "$f: datasources not by uid $DATASOURCE_UID: $bad" "$f: datasources not by uid $DATASOURCE_UID: "
    # A panel with queries names its datasource
    bad="$(jq -r '[.panels[]? | ., (.panels[]?)] | .[] | select(.targets and (.datasource == null)) | .title' "$DASHBOARDS_DIR/$f")"
    assert_equal "$f: panels with targets but no datasource: $bad" "$f: panels with targets but no datasource: "
  done
}

# A $name, ${name} or [[name]] left in a target after every defined variable was substituted
JQ_UNDEFINED='select(.expr | test("\\$\\{?[A-Za-z_]|\\[\\[[A-Za-z_]"))
  | "\(.file) › \(.panel) (\(.ref)): undefined variable in \(.expr)"'
# A multi-value variable ($multi: names) after a plain = matcher
JQ_MULTI_EQ='. as $t | $multi[] | select(. as $n | $t.raw | test("[^=!~]=\"[^\"]*\\$\\{?" + $n + "\\b"))
  | "\($t.file) › \($t.panel) (\($t.ref)): multi-value $\(.) used with = instead of =~"'

@test "dashboards: every variable used is defined; multi-value variables only in =~ matchers" {
  local f placeholders multi bad
  for f in $(dashboard_files); do
    placeholders="$(jq -c '[.templating.list[]? | {(.name): "x"}] | add // {}' "$DASHBOARDS_DIR/$f")"
    bad="$(dashboard_targets "$DASHBOARDS_DIR/$f" "$placeholders" | jq -r "$JQ_UNDEFINED")"
    assert_equal "$bad" ""
    # A multi-value or All variable expands to a regex (g1|g2): only =~ or !~ may use it
    multi="$(jq -c '[.templating.list[]? | select(.multi or .includeAll) | .name]' "$DASHBOARDS_DIR/$f")"
    bad="$(dashboard_targets "$DASHBOARDS_DIR/$f" '{}' | jq -r --argjson multi "$multi" "$JQ_MULTI_EQ")"
    assert_equal "$bad" ""
    # Query variables have a query; names are unique
    bad="$(jq -r '.templating.list[]? | select(.type == "query") | select((.definition // "") == "") | .name' "$DASHBOARDS_DIR/$f")"
    assert_equal "$f: query variables without a query: $bad" "$f: query variables without a query: "
    bad="$(jq -r '[.templating.list[]?.name] | group_by(.) | map(select(length > 1) | .[0]) | .[]' "$DASHBOARDS_DIR/$f")"
    assert_equal "$f: duplicate variables: $bad" "$f: duplicate variables: "
  done
}

@test "dashboards: every target's PromQL parses (promtool, variables substituted)" {
  # One rule group per target, named after the dashboard and panel: promtool names the group of
  # every expression that does not parse.
  local rules="$BATS_TEST_TMPDIR/dashboards.rules.yml" f vars n=0
  echo "groups:" >"$rules"
  for f in $(dashboard_files); do
    # Query variables become a regex, as Grafana's All option does; custom ones their first value
    vars="$(jq -c '[.templating.list[]? | {(.name): "(a|b)"}] | add // {}' "$DASHBOARDS_DIR/$f")"
    while IFS= read -r t; do
      n=$((n + 1))
      jq -r --arg n "$n" '"  - name: \("\(.file) › \(.panel) (\(.ref)) #\($n)" | tojson)\n    rules:\n      - record: dashboard_target_\($n)\n        expr: \(.expr | tojson)"' <<<"$t" >>"$rules"
    done < <(dashboard_targets "$DASHBOARDS_DIR/$f" "$vars")
  done
  ((n > 50)) || fail "only $n targets found in the dashboards"
  # The panel walk (tests/lib/observability.bash) finds every query the compiled JSON holds,
  # whatever shape the generator gives it (rows, collapsed rows, repeats)
  local all
  all="$(cd "$DASHBOARDS_DIR" && jq -s '[.[] | .. | objects | select(has("expr") and has("refId"))] | length' -- *.json)"
  assert_equal "targets found: $n" "targets found: $all"
  run promtool check rules "$rules"
  assert_success
  assert_output --partial "SUCCESS: $n rules found"
}

@test "dashboards and rules use only metrics the allocator, the exporter, the load or the rules define" {
  local recorded used missing=() m base
  recorded="$(sed -n 's/^ *- record: *//p' prometheus/rules/*.yml | sort -u)"
  # Every tenantlab_* name (recorded level:metric:operation names and prose wildcards such as
  # tenantlab_load_* aside) must be one the allocator
  # (allocator/src/metrics.js) or, for tenantlab_load_*, the load engine (traffic/, Python:
  # prometheus_client adds _total to a counter) defines; histograms: _bucket etc.
  used="$( (cat "$DASHBOARDS_DIR"/*.json; cat prometheus/rules/*.yml) \
    | sed -E 's/\b[a-z_]+:[a-z0-9_]+:[a-z0-9_]+\b//g' | grep -oE '\btenantlab_[a-z0-9_]+' | sort -u)"
  for m in $used; do
    [[ "$m" != *_ ]] || continue
    m="${m%_bucket}" m="${m%_count}" m="${m%_sum}"
    if [[ "$m" == tenantlab_load_* ]]; then
      base="${m%_total}"
      grep -rqE --include='*.py' "[\"']$base(_total)?[\"']" traffic/ || missing+=("$m (traffic/)")
    else
      grep -q "name: '$m'" allocator/src/metrics.js || missing+=("$m")
    fi
  done
  assert_equal "metrics not defined by the allocator or the load: ${missing[*]}" "metrics not defined by the allocator or the load: "
  # Every level:metric:operation name used must be recorded by a rule
  missing=()
  used="$(cat "$DASHBOARDS_DIR"/*.json prometheus/rules/*.yml | grep -oE '\b(tenantlab|index_group|node):[a-z0-9_]+:[a-z0-9_]+\b' | sort -u)"
  for m in $used; do grep -qx "$m" <<<"$recorded" || missing+=("$m"); done
  assert_equal "recording rules missing: ${missing[*]}" "recording rules missing: "
}
