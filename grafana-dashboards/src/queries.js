// PromQL used by more than one panel or dashboard, stated once. Names with a colon
// (index_group:*, tenantlab:*) are recording rules of prometheus/rules/tenantlab-recording.yml.
// Variables ($group, $node, $tenant, $scenario) are those of variables.js.

/**
 * Cluster health as one number: 0 green, 1 yellow, 2 red (the exporter exports one 0/1 series
 * per colour). HEALTH_MAPPING names the numbers; thresholds.HEALTH colours them.
 */
export const CLUSTER_HEALTH =
  'max((elasticsearch_cluster_health_status{color="red"} == 1) * 2 or (elasticsearch_cluster_health_status{color="yellow"} == 1) or (elasticsearch_cluster_health_status{color="green"} == 1) - 1)';

export const HEALTH_MAPPING = [{
  type: 'value',
  options: {
    0: { text: 'green', color: 'green', index: 0 },
    1: { text: 'yellow', color: 'yellow', index: 1 },
    2: { text: 'red', color: 'red', index: 2 },
  },
}];

/** Alerts of prometheus/rules/tenantlab-alerts.yml firing now (0, not "no data", when none). */
export const FIRING_ALERTS = 'count(ALERTS{alertstate="firing"}) or vector(0)';

/** Heap used / max per node; `matchers` (e.g. `, name=~"$node"`) narrow both sides. */
export const heapRatio = (matchers = '') =>
  `elasticsearch_jvm_memory_used_bytes{area="heap"${matchers}} / elasticsearch_jvm_memory_max_bytes{area="heap"${matchers}}`;

/** A group recording rule, for the groups of $group (each series carries its index_group). */
export const inGroups = (rule) => `${rule}{index_group=~"$group"}`;

/** Per-node series (label `name`) of the nodes in $group, each labelled with its index_group. */
export const onGroupNodes = (expr) =>
  `${expr} * on (name) group_left (index_group) tenantlab:node_index_group:info{index_group=~"$group"}`;

/** Per-second rate of a node counter, summed by `by`, for the nodes of $node. */
export const nodeRate = (counter, { by = 'name', matchers = '', fn = 'rate' } = {}) =>
  `sum by (${by}) (${fn}(${counter}{${matchers}name=~"$node"}[$__rate_interval]))`;

/** A node gauge for the nodes of $node. */
export const nodeGauge = (gauge, matchers = '') => `${gauge}{${matchers}name=~"$node"}`;

/** Tenants per index group (the allocator's placement). */
export const TENANTS_PER_GROUP = 'sum by (index_group) (tenantlab_tenants{index_group=~"$group"})';

// ---- The load (Locust, traffic/: tenantlab_load_*, scraped as job `load` while a run lasts) ----
// No tenant label (thousands of tenants): per-tenant figures come from Elasticsearch's search
// stats groups, through the allocator (tenantlab_tenant_search_rate).

/** The load's request duration histogram (labels scenario, index_group, query_type, outcome). */
export const LOAD_DURATION = 'tenantlab_load_request_duration_seconds';

/** Matchers of the chosen scenarios and groups ($scenario, $group of the Load dashboard). */
export const LOAD_CHOSEN = 'scenario=~"$scenario", index_group=~"$group"';

/** Requests per second of the load, summed `by` (a label list, or '' for one total). */
export const loadRequestRate = (by = '', matchers = LOAD_CHOSEN) =>
  `sum${by ? ` by (${by}) ` : ''}(rate(${LOAD_DURATION}_count${matchers ? `{${matchers}}` : ''}[$__rate_interval]))`;

/** A quantile of the load's request duration over the last interval, by `by` (seconds). */
export const loadQuantile = (quantile, by, matchers = LOAD_CHOSEN) =>
  `histogram_quantile(${quantile}, sum by (${by ? `${by}, ` : ''}le) (rate(${LOAD_DURATION}_bucket{${matchers}}[$__rate_interval])))`;

/**
 * The shoppers' p95 per group (the bot, bursts and writers left out): the recording rule the
 * IndexGroupClientP95Skew alert judges, the allocator's load_p95_ms over 1 m instead of 30 s.
 */
export const LOAD_GROUP_P95 = 'index_group:tenantlab_load_request_duration_seconds:p95_1m';

/** Requests the load has sent and not yet had an answer to, every scenario. */
export const LOAD_IN_FLIGHT = 'sum(tenantlab_load_in_flight)';
