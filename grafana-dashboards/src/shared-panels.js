// Panels that appear on more than one dashboard, defined once (Home shows a selection of the
// other dashboards' panels). Sizes are the layout's: each dashboard sets them.
import * as units from '@grafana/grafana-foundation-sdk/units';
import { q, stat, timeseries } from './panels.js';
import { CLUSTER_HEALTH, FIRING_ALERTS, HEALTH_MAPPING, LOAD_GROUP_P95, LOAD_IN_FLIGHT, TENANTS_PER_GROUP, inGroups } from './queries.js';
import { ANY_IS_BAD, ANY_IS_WARNING, HEALTH, REJECTIONS } from './thresholds.js';

// ---- Cluster (Home, Cluster overview) ----
export const clusterStatus = () => stat('Status', CLUSTER_HEALTH, {
  description: 'Cluster health as the master reports it.',
  thresholds: HEALTH, mappings: HEALTH_MAPPING, background: true,
});

export const clusterNodes = () => stat('Nodes', 'max(elasticsearch_cluster_health_number_of_nodes)');

export const unassignedShards = () =>
  stat('Unassigned shards', 'max(elasticsearch_cluster_health_unassigned_shards)', { thresholds: ANY_IS_WARNING, background: true });

export const firingAlerts = () => stat('Firing alerts', FIRING_ALERTS, {
  description: "Prometheus alert rules firing now (prometheus/rules/tenantlab-alerts.yml); details on Prometheus' /alerts page.",
  thresholds: ANY_IS_BAD, background: true,
});

// ---- Index groups now (Home, Index groups, Tenants) ----
/** A group recording rule for the groups of $group, one series per group (legend: the group, then `suffix`). */
export const byGroup = (rule, suffix = '') => q(inGroups(rule), `{{index_group}}${suffix}`);

export const groupSearchRate = () => stat('Search queries/s', byGroup('index_group:elasticsearch_search_queries:rate1m'), {
  description: 'Shard-level query phases per second on the group\'s nodes (one search = one per shard).',
  unit: units.RequestsPerSecond, decimals: 1,
});

export const groupQueryTime = () => stat('Mean shard query time', byGroup('index_group:elasticsearch_search_query_latency_seconds:mean1m'), {
  description: 'Mean, not a percentile: Elasticsearch exports only totals. Client-side p95: Load dashboard.',
  unit: units.Seconds,
});

export const groupIndexingRate = () =>
  stat('Indexed docs/s', byGroup('index_group:elasticsearch_indexing_docs:rate1m'), { decimals: 1 });

export const groupTenants = (title = 'Tenants') => stat(title, q(TENANTS_PER_GROUP, '{{index_group}}'), {
  description: 'Tenants the allocator placed in each group.',
});

// ---- Index groups over time (Home, Index groups) ----
export const groupSearchRateOverTime = () =>
  timeseries('Search queries/s by group', byGroup('index_group:elasticsearch_search_queries:rate1m'), { unit: units.RequestsPerSecond });

export const groupRejections = (title = 'Rejections/s by group') =>
  timeseries(title, byGroup('index_group:elasticsearch_thread_pool_rejections:rate5m', ' {{type}}'), {
    description: 'Tasks refused because the queue was full (5m rate).',
    unit: units.OpsPerSecond, thresholds: REJECTIONS,
  });

/** Mean shard query time per group: of the groups of $group, or of every group (`all`). */
export const groupQueryTimeOverTime = (title, { all = false, description = '' } = {}) => {
  const rule = 'index_group:elasticsearch_search_query_latency_seconds:mean1m';
  return timeseries(title, q(all ? rule : inGroups(rule), '{{index_group}}'), { description, unit: units.Seconds });
};

// ---- The load (Home, Load) ----
/** Requests in flight: all of them, or `byScenario`, of the scenarios of $scenario. */
export const loadInFlight = (title, { byScenario = false } = {}) => timeseries(title,
  byScenario ? q('sum by (scenario) (tenantlab_load_in_flight{scenario=~"$scenario"})', '{{scenario}}') : q(LOAD_IN_FLIGHT, 'in flight'), {
    description: 'Requests sent and not answered yet. Open model: it grows when Elasticsearch slows down (arrivals keep their schedule); closed model: at most the users.',
  });

/** The shoppers' p95 per group, for the groups of $group. */
export const loadGroupP95 = (title) => timeseries(title, q(inGroups(LOAD_GROUP_P95), '{{index_group}}'), {
  description: "p95 over 1m of the load's searches to each group, from its histogram (durations from the intended start). The bot, an experiment's burst and the writers are left out: what the neighbours feel. The allocator shows the same over 30 s beside its probe (make hot: load p95); the IndexGroupClientP95Skew alert judges it.",
  unit: units.Seconds,
});

/**
 * Each group's p95 against its two objectives, as the allocator judges it (Tenants, Index
 * groups): the judged p95 (the shoppers' while a load run is scraped, else the probe's), the
 * absolute objective, the baseline it learned and the relative limit above it.
 */
export const groupObjectives = () =>
  timeseries('Group p95 against its objectives',
    [
      q('max by (index_group, signal) (tenantlab_group_p95_ms{index_group=~"$group"})', '{{index_group}} p95 ({{signal}})'),
      q('max by (index_group) (tenantlab_group_baseline_p95_ms{index_group=~"$group"})', '{{index_group}} baseline'),
      q('max by (index_group) (tenantlab_group_relative_limit_ms{index_group=~"$group"})', '{{index_group}} relative limit'),
      q('max by (index_group) (tenantlab_group_search_latency_objective_ms{index_group=~"$group"})', '{{index_group}} objective'),
    ], {
      description: "The p95 the allocator judges each group by over its window (signal load: the shoppers' requests of a scraped load run; probe: its storefront-shaped probe searches), the absolute objective (policy hot.objectiveMs), the group's own baseline (median of its p95s over hot.baselineS while none of its tenants was flagged) and the relative limit (max(hot.relative x baseline, baseline + hot.minRiseMs)). Above either line the group misses its objective, and a tenant over hot.share of its search or indexing time is flagged.",
      unit: units.Milliseconds,
    });
