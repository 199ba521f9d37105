// Tenants: placement, documents, per-tenant search rate and moves, from the allocator's /metrics
// (tenantlab_*) and the exporter's alias metrics.
import * as units from '@grafana/grafana-foundation-sdk/units';
import * as annotations from '../annotations.js';
import { dashboard, line, row } from '../dashboard.js';
import { bargauge, q, stat, table, timeseries } from '../panels.js';
import * as shared from '../shared-panels.js';
import * as variables from '../variables.js';

const TENANT_DOCUMENTS = 'tenantlab_tenant_documents{tenant=~"$tenant", index_group=~"$group"}';
const MOVES_IN_PROGRESS = 'sum(tenantlab_moves_in_progress)';

export default () => dashboard({
  uid: 'tenantlab-tenants',
  title: 'Tenants',
  description: "Tenant placement, documents, per-tenant search rate and moves, from the allocator's /metrics (tenantlab_*) and the exporter's alias metrics.",
  variables: [variables.group('tenants'), variables.tenant()],
  annotations: [annotations.moves(), annotations.hotTenants()],
}, [
  row('Placement'),
  ...line(
    shared.groupTenants('Tenants per group'),
    stat('Managed indices per group', q('count by (index_group) (tenantlab_index_documents{index_group=~"$group"})', '{{index_group}}')),
    stat('Load per data node', q('tenantlab_group_load{index_group=~"$group"}', '{{index_group}}'), {
      description: "The allocator's placement load of each group per data node (documents and traffic against shared-index capacity, allocator/policy.json).",
      decimals: 2,
    }),
    stat('Moves in progress', MOVES_IN_PROGRESS),
  ).map((p) => p.height(5)),
  ...line(
    table('Placement', `max by (tenant, index_group, index) (${TENANT_DOCUMENTS})`, {
      description: 'Where each tenant lives, with its document count (through its alias).',
      columns: { tenant: 'Tenant', index_group: 'Group', index: 'Index' },
      valueTitle: 'Documents',
    }),
    bargauge('Largest tenants (documents)', q(`topk(15, max by (tenant) (${TENANT_DOCUMENTS}))`, '{{tenant}}')),
  ).map((p) => p.height(10)),

  row('Traffic'),
  ...line(
    timeseries('Search rate per tenant (top 10)',
      q('topk(10, max by (tenant) (tenantlab_tenant_search_rate{tenant=~"$tenant"}) * on (tenant) group_left (index_group) max by (tenant, index_group) (tenantlab_tenant_documents{index_group=~"$group"}))',
        '{{tenant}} ({{index_group}})'), {
        description: 'From searches tagged with the stats group tenant-<id> (the traffic scripts do).',
        unit: units.RequestsPerSecond,
      }),
    timeseries('Documents per index', q('tenantlab_index_documents{index_group=~"$group"}', '{{index}}')),
  ),

  row('Observed cost (the allocator, over its window)'),
  ...line(
    timeseries('Search time per tenant (top 10)',
      q('topk(10, max by (tenant, index_group) (tenantlab_tenant_search_time_ms_per_second{tenant=~"$tenant", index_group=~"$group"}))', '{{tenant}} ({{index_group}})'), {
        description: "Shard-level query + fetch time of each tenant's searches, ms per second: what it costs its group's nodes.",
      }),
    timeseries("Share of its group's search time (top 10)",
      q('topk(10, max by (tenant, index_group) (tenantlab_tenant_search_share{of="group", tenant=~"$tenant", index_group=~"$group"}))', '{{tenant}} ({{index_group}})'), {
        description: "A tenant over the policy's share (allocator/policy.json hot.share) while its group misses its objective is flagged hot.",
        unit: units.PercentUnit,
      }),
    table('Hot tenants', 'max by (tenant, index_group, index) (tenantlab_tenant_hot) or label_replace(vector(0), "tenant", "none now", "", "")', {
      description: 'Flagged now by the allocator (`make hot` shows the evidence); "none now" (0) when no tenant is hot.',
      columns: { tenant: 'Tenant', index_group: 'Group', index: 'Index' },
      valueTitle: 'Hot',
    }),
  ),
  ...line(
    shared.groupObjectives(),
    timeseries('Search queue and rejections by group',
      [q('max by (index_group) (tenantlab_group_search_queue{index_group=~"$group"})', '{{index_group}} queued'), q('max by (index_group) (tenantlab_group_search_rejected_per_second{index_group=~"$group"})', '{{index_group}} rejected/s')]),
    timeseries('Write rate per tenant (top 10)',
      q('topk(10, max by (tenant, index_group) (tenantlab_tenant_write_rate{tenant=~"$tenant", index_group=~"$group"}))', '{{tenant}} ({{index_group}})'), {
        description: 'Products per second whose updated_at fell inside the window (re-sends of unchanged documents do not show).',
      }),
  ),

  row('Moves'),
  ...line(
    timeseries('Moves finished',
      q('sum by (result) (increase(tenantlab_moves_total[$__rate_interval])) or label_replace(vector(0), "result", "none yet", "", "")', '{{result}}'),
      { description: 'Tenant moves finished per interval, by result.' }),
    timeseries('Moves in progress', q(MOVES_IN_PROGRESS, 'queued or running')),
    timeseries('Documents copied by moves', q('rate(tenantlab_move_documents_copied_total[$__rate_interval])', 'docs/s')),
  ),
  ...line(
    timeseries('Tenant aliases per index (Elasticsearch)', q('count by (index) (elasticsearch_indices_aliases{alias=~"tenant-.*"})', '{{index}}'), {
      description: "The exporter's view of the same placement: tenant-<id> aliases per index.",
    }),
    timeseries('Allocator API p95',
      q('histogram_quantile(0.95, sum by (le, route) (rate(tenantlab_http_request_duration_seconds_bucket[$__rate_interval])))', '{{route}}'),
      { unit: units.Seconds }),
  ),
]);
