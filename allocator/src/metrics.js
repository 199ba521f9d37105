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
    tenantSearchRate: new client.Gauge({ name: 'tenantlab_tenant_search_rate', help: 'Searches per second per tenant (searches tagged with stats group tenant-<id>)', labelNames: ['tenant'], registers: r }),
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
