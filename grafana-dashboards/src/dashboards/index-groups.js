// Index groups: the groups side by side (search, indexing, thread pools, heap/GC/CPU, shards),
// from the recording rules index_group:* of prometheus/rules/, which need the allocator.
import * as units from '@grafana/grafana-foundation-sdk/units';
import * as annotations from '../annotations.js';
import { dashboard, line, row } from '../dashboard.js';
import { bargauge, q, stat, timeseries } from '../panels.js';
import { heapRatio, onGroupNodes } from '../queries.js';
import * as shared from '../shared-panels.js';
import { byGroup } from '../shared-panels.js';
import { HEAP } from '../thresholds.js';
import * as variables from '../variables.js';

// One panel per selected group, side by side (repeated over $group)
const perGroup = (panel) => panel.repeat('group').repeatDirection('h').maxPerRow(4).span(12);

export default () => dashboard({
  uid: 'tenantlab-index-groups',
  title: 'Index groups',
  description: "The index groups side by side. Group figures are exporter node stats joined to the allocator's node -> group map (recording rules index_group:* in prometheus/rules/); they need the allocator running.",
  variables: [variables.group()],
  annotations: [annotations.moves(), annotations.hotTenants()],
}, [
  row('Groups now'),
  ...line(
    shared.groupSearchRate(),
    shared.groupQueryTime(),
    shared.groupIndexingRate(),
    stat('Max heap used', byGroup('index_group:elasticsearch_jvm_heap_used:max_ratio'), { unit: units.PercentUnit, thresholds: HEAP }),
  ).map((p) => p.height(5)),
  ...line(
    stat('Documents (with replicas)', byGroup('index_group:elasticsearch_docs:sum')),
    stat('Store size (with replicas)', byGroup('index_group:elasticsearch_store_size_bytes:sum'), { unit: units.BytesIEC }),
    stat('Shards', byGroup('index_group:elasticsearch_shards:sum')),
    shared.groupTenants(),
  ),

  row('Search'),
  ...line(
    shared.groupSearchRateOverTime(),
    timeseries('Mean search time by group', [
      byGroup('index_group:elasticsearch_search_query_latency_seconds:mean1m', ' query'),
      byGroup('index_group:elasticsearch_search_fetch_latency_seconds:mean1m', ' fetch'),
    ], {
      description: "Mean time of one shard's query and fetch phase (node search stats over 1m). IndexGroupSearchLatencySkew fires when one group's 5m mean is over 3x the fastest group's.",
      unit: units.Seconds,
    }),
  ),
  ...line(shared.groupObjectives()),
  perGroup(timeseries('Search queries/s per node: $group',
    q(onGroupNodes('sum by (name) (rate(elasticsearch_indices_search_query_total[$__rate_interval]))'), '{{name}}'), {
      description: 'One panel per index group (repeated over the Index group variable).',
      unit: units.RequestsPerSecond,
    })),

  row('Indexing'),
  ...line(
    timeseries('Indexed docs/s by group', byGroup('index_group:elasticsearch_indexing_docs:rate1m')),
    timeseries('Mean indexing time per doc by group', byGroup('index_group:elasticsearch_indexing_latency_seconds:mean1m'), { unit: units.Seconds }),
  ),

  row('Thread pools'),
  ...line(
    timeseries('Queued tasks (max node)', byGroup('index_group:elasticsearch_thread_pool_queue:max', ' {{type}}'), {
      description: 'Deepest search/write queue on any node of the group. Full queues reject (HTTP 429).',
    }),
    timeseries('Active threads', byGroup('index_group:elasticsearch_thread_pool_active:sum', ' {{type}}')),
    shared.groupRejections('Rejections/s'),
  ),

  row('Heap, GC and CPU'),
  ...line(
    timeseries('Max heap used by group', byGroup('index_group:elasticsearch_jvm_heap_used:max_ratio'), { unit: units.PercentUnit, max: 1, thresholds: HEAP }),
    timeseries('GC time by group', byGroup('index_group:elasticsearch_jvm_gc_seconds:rate1m'), { unit: units.Seconds }),
    timeseries('CPU by group', byGroup('index_group:elasticsearch_process_cpu_seconds:rate1m'), {
      description: "CPU seconds per second used by the group's Elasticsearch processes (1 = one core).",
    }),
  ),
  perGroup(timeseries('Heap used per node: $group', q(onGroupNodes(`(${heapRatio()})`), '{{name}}'), {
    unit: units.PercentUnit, max: 1, thresholds: HEAP,
  })),

  row('Shards and size'),
  ...line(
    timeseries('Largest primary shard by group', byGroup('index_group:elasticsearch_primary_shard_size_bytes:max'), {
      description: 'Of the indices the allocator manages.',
      unit: units.BytesIEC,
    }),
    timeseries('Store size by group', byGroup('index_group:elasticsearch_store_size_bytes:sum'), { unit: units.BytesIEC }),
    bargauge('Primary shard sizes',
      q('max by (index_group, index, shard) (elasticsearch_indices_shards_store_size_in_bytes{primary="true"} * on (index) group_left (index_group) tenantlab:index_index_group:info{index_group=~"$group"})',
        '{{index_group}} {{index}}/{{shard}}'),
      { unit: units.BytesIEC }),
  ),
]);
