// Ingest: bulk and indexing rate, indexing time, refresh, merges, segments and write rejections
// per data node ($node).
import * as units from '@grafana/grafana-foundation-sdk/units';
import { dashboard, line, row } from '../dashboard.js';
import { bargauge, q, timeseries } from '../panels.js';
import { nodeGauge, nodeRate } from '../queries.js';
import { REJECTIONS } from '../thresholds.js';
import * as variables from '../variables.js';

const WRITE_POOL = 'type="write", ';
const perNode = (expr, suffix = '') => q(expr, `{{name}}${suffix}`);

export default () => dashboard({
  uid: 'tenantlab-ingest',
  title: 'Ingest',
  description: 'Bulk and indexing rate, indexing time, refresh, merges, segments and write rejections per data node.',
  variables: [variables.node({ dataOnly: true })],
}, [
  row('Indexing'),
  ...line(
    timeseries('Indexed docs/s', perNode(nodeRate('elasticsearch_indices_indexing_index_total')), { stacked: true }),
    timeseries('Bulk shard requests/s (write pool)', perNode(nodeRate('elasticsearch_thread_pool_completed_count', { matchers: WRITE_POOL })), {
      description: 'Tasks completed by the write thread pool: one per bulk request per shard (the exporter has no bulk counter of its own).',
      unit: units.OpsPerSecond,
    }),
  ),
  ...line(
    timeseries('Indexing time per doc',
      perNode(`${nodeRate('elasticsearch_indices_indexing_index_time_seconds_total')} / ${nodeRate('elasticsearch_indices_indexing_index_total')}`),
      { unit: units.Seconds }),
    timeseries('Indexing pressure (bytes in flight)', perNode(nodeGauge('elasticsearch_indexing_pressure_current_all_in_bytes')), { unit: units.BytesIEC }),
    timeseries('Indexing throttled', perNode(nodeRate('elasticsearch_indices_indexing_throttle_time_seconds_total')), {
      description: 'Seconds per second indexing was throttled because merges fell behind.',
      unit: units.Seconds,
    }),
  ),

  row('Write thread pool'),
  ...line(
    timeseries('Write queue', perNode(nodeGauge('elasticsearch_thread_pool_queue_count', WRITE_POOL))),
    timeseries('Write rejections/s', perNode(nodeRate('elasticsearch_thread_pool_rejected_count', { matchers: WRITE_POOL })), {
      description: 'Bulk items refused with 429: the seeder backs off and retries them.',
      unit: units.OpsPerSecond, thresholds: REJECTIONS,
    }),
    timeseries('Active write threads', perNode(nodeGauge('elasticsearch_thread_pool_active_count', WRITE_POOL))),
  ),

  row('Refresh, merges and segments'),
  ...line(
    timeseries('Refreshes/s', perNode(nodeRate('elasticsearch_indices_refresh_total')), { unit: units.OpsPerSecond }),
    timeseries('Refresh time', perNode(nodeRate('elasticsearch_indices_refresh_time_seconds_total')), {
      description: 'Seconds per second spent refreshing (refresh_interval -1 during a bulk load makes it 0).',
      unit: units.Seconds,
    }),
    timeseries('Flushes/s', perNode(nodeRate('elasticsearch_indices_flush_total')), { unit: units.OpsPerSecond }),
  ),
  ...line(
    timeseries('Merge time', [
      perNode(nodeRate('elasticsearch_indices_merges_total_time_seconds_total'), ' merging'),
      perNode(nodeRate('elasticsearch_indices_merges_total_throttled_time_seconds_total'), ' throttled'),
    ], { unit: units.Seconds }),
    timeseries('Running merges', perNode(nodeGauge('elasticsearch_indices_merges_current'))),
    timeseries('Segments', perNode(nodeGauge('elasticsearch_indices_segments_count'))),
  ),
  ...line(
    timeseries('Translog size', perNode(nodeGauge('elasticsearch_indices_translog_size_in_bytes')), { unit: units.BytesIEC }),
    bargauge('Largest indices (primary docs)', q('topk(10, elasticsearch_indices_docs_primary)', '{{index}}')),
  ),
]);
