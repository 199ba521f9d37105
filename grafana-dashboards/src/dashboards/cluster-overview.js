// Cluster overview: health, nodes, heap, GC, CPU, disk, shards, pending tasks, circuit breakers.
import * as units from '@grafana/grafana-foundation-sdk/units';
import { dashboard, line, row } from '../dashboard.js';
import { bargauge, q, stat, timeseries } from '../panels.js';
import { heapRatio, nodeGauge, nodeRate } from '../queries.js';
import { clusterNodes, clusterStatus, firingAlerts, unassignedShards } from '../shared-panels.js';
import { ANY_IS_WARNING, BREAKER, HEAP } from '../thresholds.js';
import * as variables from '../variables.js';

const health = (field) => `max(elasticsearch_cluster_health_${field})`;

export default () => dashboard({
  uid: 'tenantlab-cluster',
  title: 'Cluster overview',
  description: "Health, nodes, heap, GC, CPU, shards, pending tasks and circuit breakers of the lab's cluster (elasticsearch_exporter, every node).",
  variables: [variables.node()],
}, [
  row('Cluster'),
  clusterStatus().span(4),
  clusterNodes().span(3),
  stat('Data nodes', health('number_of_data_nodes')).span(3),
  stat('Active shards', health('active_shards')).span(3),
  unassignedShards().span(4),
  stat('Pending tasks', health('number_of_pending_tasks'), { thresholds: ANY_IS_WARNING }).span(3),
  firingAlerts().span(4),
  ...line(
    timeseries('Shards', [
      q(health('active_shards'), 'active'),
      q(health('relocating_shards'), 'relocating'),
      q(health('initializing_shards'), 'initializing'),
      q(health('unassigned_shards'), 'unassigned'),
    ]),
    timeseries('Pending cluster tasks', [
      q(health('number_of_pending_tasks'), 'pending tasks'),
      q(`${health('task_max_waiting_in_queue_millis')} / 1000`, 'longest wait (s)'),
    ]),
  ),

  row('Nodes'),
  ...line(
    timeseries('Heap used', q(heapRatio(', name=~"$node"'), '{{name}}'), {
      description: 'Heap used / max per node; the ElasticsearchHeapHigh alert fires above 85% for 5m.',
      unit: units.PercentUnit, max: 1, thresholds: HEAP,
    }),
    timeseries('GC time', q(nodeRate('elasticsearch_jvm_gc_collection_seconds_sum', { by: 'name, gc' }), '{{name}} {{gc}}'), {
      description: 'Seconds spent in garbage collection per second, per collector.',
      unit: units.Seconds,
    }),
  ),
  ...line(
    timeseries('Process CPU', q(nodeGauge('elasticsearch_process_cpu_percent'), '{{name}}'), { unit: units.Percent }),
    timeseries('GC collections', q(nodeRate('elasticsearch_jvm_gc_collection_seconds_count'), '{{name}}'), { unit: units.OpsPerSecond }),
    timeseries('Disk used',
      q(`1 - ${nodeGauge('elasticsearch_filesystem_data_available_bytes')} / ${nodeGauge('elasticsearch_filesystem_data_size_bytes')}`, '{{name}} {{mount}}'), {
        description: "Of the file system holding each node's data path (the disk watermarks are in lab.env).",
        unit: units.PercentUnit, max: 1,
      }),
  ),
  ...line(
    // This exporter series names the node in `node`, not `name`
    bargauge('Shards per node', q('elasticsearch_node_shards_total{node=~"$node"}', '{{node}}')),
    timeseries('Circuit breakers: estimated / limit',
      q(`max by (name, breaker) (${nodeGauge('elasticsearch_breakers_estimated_size_bytes')} / ${nodeGauge('elasticsearch_breakers_limit_size_bytes')})`, '{{name}} {{breaker}}'),
      { unit: units.PercentUnit, thresholds: BREAKER }),
    timeseries('Circuit breaker trips',
      q(nodeRate('elasticsearch_breakers_tripped', { by: 'name, breaker', fn: 'increase' }), '{{name}} {{breaker}}'), {
        description: 'A trip is a request refused with a circuit_breaking_exception (HTTP 429).',
      }),
  ),
]);
