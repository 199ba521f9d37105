// Prometheus metrics for the lab's Grafana dashboards. Per-tenant and per-index gauges are
// rebuilt from each observation so deleted tenants and indices disappear from /metrics.
import client from 'prom-client';

export function createMetrics() {
  const registry = new client.Registry();
  client.collectDefaultMetrics({ register: registry, prefix: 'tenantlab_allocator_' });
  const r = [registry];
  return {
    registry,
    tenants: new client.Gauge({ name: 'tenantlab_tenants', help: 'Tenants placed, by index group and index', labelNames: ['index_group', 'index'], registers: r }),
    indexDocuments: new client.Gauge({ name: 'tenantlab_index_documents', help: 'Product documents per managed index', labelNames: ['index_group', 'index'], registers: r }),
    tenantDocuments: new client.Gauge({ name: 'tenantlab_tenant_documents', help: 'Product documents per tenant', labelNames: ['tenant', 'index_group', 'index'], registers: r }),
    tenantSearchRate: new client.Gauge({ name: 'tenantlab_tenant_search_rate', help: 'Searches per second per tenant (searches tagged with stats group tenant-<id>)', labelNames: ['tenant', 'index_group', 'index'], registers: r }),
    tenantSearchTime: new client.Gauge({ name: 'tenantlab_tenant_search_time_ms_per_second', help: "Shard-level query + fetch time of the tenant's searches, ms per second over the observation window", labelNames: ['tenant', 'index', 'index_group'], registers: r }),
    tenantSearchShare: new client.Gauge({ name: 'tenantlab_tenant_search_share', help: "The tenant's share (0-1) of its index's (of=index) or its group's (of=group) search time over the window", labelNames: ['tenant', 'index', 'index_group', 'of'], registers: r }),
    tenantWriteRate: new client.Gauge({ name: 'tenantlab_tenant_write_rate', help: 'Products per second whose updated_at fell inside the observation window', labelNames: ['tenant', 'index', 'index_group'], registers: r }),
    tenantWriteShare: new client.Gauge({ name: 'tenantlab_tenant_write_share', help: "The tenant's share (0-1) of its group's indexing time over the window (each index's split by the tenant's recent writes)", labelNames: ['tenant', 'index', 'index_group'], registers: r }),
    tenantHot: new client.Gauge({ name: 'tenantlab_tenant_hot', help: "1 while the tenant is flagged hot (its share of its group's search time, kind=search, or indexing time, kind=write, over the policy while the group misses its objective; crossed: absolute or relative)", labelNames: ['tenant', 'index', 'index_group', 'kind', 'crossed'], registers: r }),
    groupLatency: new client.Gauge({ name: 'tenantlab_group_search_latency_ms', help: "Average shard-level query + fetch time of the group's searches over the window", labelNames: ['index_group'], registers: r }),
    groupProbe: new client.Gauge({ name: 'tenantlab_group_probe_latency_ms', help: "p95 of the allocator's storefront-shaped probe searches on the group over the window (queueing included)", labelNames: ['index_group'], registers: r }),
    groupP95: new client.Gauge({ name: 'tenantlab_group_p95_ms', help: "The p95 the group's objective is judged on over the window: its shoppers' (signal=load, while a load run is scraped) or the probe searches' (signal=probe)", labelNames: ['index_group', 'signal'], registers: r }),
    groupBaseline: new client.Gauge({ name: 'tenantlab_group_baseline_p95_ms', help: "The group's own normal p95: median of its judged p95s over policy hot.baselineS while none of its tenants was flagged", labelNames: ['index_group'], registers: r }),
    groupRelativeLimit: new client.Gauge({ name: 'tenantlab_group_relative_limit_ms', help: 'The p95 above which the group misses its relative objective: max(hot.relative x baseline, baseline + hot.minRiseMs)', labelNames: ['index_group'], registers: r }),
    groupMissed: new client.Gauge({ name: 'tenantlab_group_objective_missed', help: '1 while the group misses its absolute or relative objective, 0 while it meets both', labelNames: ['index_group'], registers: r }),
    groupIndexTime: new client.Gauge({ name: 'tenantlab_group_index_time_ms_per_second', help: "Indexing time spent on the group's indices, ms per second over the window", labelNames: ['index_group'], registers: r }),
    groupObjective: new client.Gauge({ name: 'tenantlab_group_search_latency_objective_ms', help: "The group's absolute latency objective, a p95 (policy hot.objectiveMs)", labelNames: ['index_group'], registers: r }),
    groupSearchTime: new client.Gauge({ name: 'tenantlab_group_search_time_ms_per_second', help: "Search time spent on the group's indices, ms per second over the window", labelNames: ['index_group'], registers: r }),
    groupQueue: new client.Gauge({ name: 'tenantlab_group_search_queue', help: "Searches waiting in the search thread pools of the group's nodes", labelNames: ['index_group'], registers: r }),
    groupRejected: new client.Gauge({ name: 'tenantlab_group_search_rejected_per_second', help: "Searches rejected by the group's nodes, per second over the window", labelNames: ['index_group'], registers: r }),
    groupCpu: new client.Gauge({ name: 'tenantlab_group_cpu_percent', help: "Average process CPU of the group's nodes as Elasticsearch reports it", labelNames: ['index_group'], registers: r }),
    moveActive: new client.Gauge({ name: 'tenantlab_move_active', help: 'One series per move queued or running (trigger: api, rebalance or auto); dashboards draw it as a region', labelNames: ['tenant', 'from_group', 'to_group', 'trigger'], registers: r }),
    autoIsolations: new client.Counter({ name: 'tenantlab_auto_isolations_total', help: 'Hot tenants the allocator moved by itself (policy auto.enabled)', registers: r }),
    groupLoad: new client.Gauge({ name: 'tenantlab_group_load', help: 'Placement load per data node of each index group', labelNames: ['index_group'], registers: r }),
    nodeGroup: new client.Gauge({ name: 'tenantlab_node_index_group_info', help: 'Maps each data node to its index group (always 1)', labelNames: ['node', 'index_group'], registers: r }),
    clusterUp: new client.Gauge({ name: 'tenantlab_allocator_cluster_up', help: '1 when the last cluster observation succeeded', registers: r }),
    moves: new client.Counter({ name: 'tenantlab_moves_total', help: 'Tenant moves by result', labelNames: ['result'], registers: r }),
    movesInProgress: new client.Gauge({ name: 'tenantlab_moves_in_progress', help: 'Move jobs queued or running', registers: r }),
    documentsCopied: new client.Counter({ name: 'tenantlab_move_documents_copied_total', help: 'Documents copied by tenant moves', registers: r }),
    httpDuration: new client.Histogram({
      name: 'tenantlab_http_request_duration_seconds',
      help: 'Allocator API request durations',
      labelNames: ['method', 'route', 'status_code'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: r,
    }),
  };
}
