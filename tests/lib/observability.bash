# Shared by tests/static/observability.bats and tests/live/90-observability.bats: the PromQL targets
# of the Grafana dashboards (grafana-dashboards/dashboards/*.json, compiled from grafana-dashboards/src/)
# with their variables substituted.
#
# dashboard_targets FILE VALUES_JSON prints one JSON object per panel target:
#   {"file": "index-groups.json", "dashboard": "tenantlab / Index groups", "panel": "...",
#    "ref": "A", "raw": "<expr as written>", "expr": "<expr, variables substituted>"}
# VALUES_JSON maps variable names (without $) to values, e.g. {"group": "(g1|g2)"}. Every
# spelling Grafana accepts is substituted: $name, ${name}, ${name:format}, [[name]].
# Panels inside collapsed rows are included.

DASHBOARDS_DIR="$REPO/grafana-dashboards/dashboards"
# shellcheck disable=SC2034 # used by the bats files
DATASOURCE_UID=tenantlab-prometheus

# The Grafana built-ins the dashboards may use, and what a check substitutes for them: the rate
# window Grafana picks at the lab's 10s scrape interval for a 30-minute view.
GRAFANA_BUILTINS='{"__rate_interval": "1m", "__interval": "1m", "__range": "30m"}'

# shellcheck disable=SC2016 # jq program
_JQ_TARGETS='
def panels: .panels[]? | ., (.panels[]?);
def subst($vals): reduce ($vals | to_entries[]) as $e (.;
  gsub("\\$\\{" + $e.key + "(:[a-z]+)?\\}|\\[\\[" + $e.key + "\\]\\]|\\$" + $e.key + "(?![A-Za-z0-9_])"; $e.value));
.title as $d
| panels | select(.targets) | .title as $p
| .targets[] | select(.expr)
| {file: $file, dashboard: $d, panel: $p, ref: .refId, raw: .expr, expr: (.expr | subst($vals))}'

dashboard_files() { (cd "$DASHBOARDS_DIR" && ls -1 -- *.json); }

dashboard_targets() {
  jq -c --arg file "$(basename "$1")" --argjson vals "$(jq -n --argjson a "$GRAFANA_BUILTINS" --argjson b "$2" '$a + $b')" \
    "$_JQ_TARGETS" "$1"
}

# dashboard_variables FILE: one JSON object per template variable, in dashboard order
dashboard_variables() { jq -c '.templating.list[]?' "$1"; }

# variable_query VAR_JSON: the query of a query variable (both encodings Grafana writes)
variable_query() { jq -r '.definition // (.query | if type == "object" then .query else . end) // ""' <<<"$1"; }

# target_name TARGET_JSON: how a failure names a target
target_name() { jq -r '"\(.file) › \(.panel) (\(.ref))"' <<<"$1"; }
