// The names a spec, a results.json and a report share: the metrics a repetition's figures carry
// (the load engine's and Elasticsearch's), the variant settings and the layout facts, so spec validation, the
// verdict, the tables, the charts and `compare` all read a figure the same way.

const LOWER = 'lower';
const HIGHER = 'higher';

/** metric name -> { label, unit, path in a repetition's `figures`, better: which direction is good }. */
export const METRICS = Object.freeze({
  requests: { label: 'requests', unit: 'req', path: ['requests'], better: HIGHER },
  throughput_rps: { label: 'throughput', unit: 'req/s', path: ['throughput_rps'], better: HIGHER },
  errors: { label: 'errors', unit: 'req', path: ['errors'], better: LOWER },
  error_rate: { label: 'error rate', unit: 'ratio', path: ['error_rate'], better: LOWER },
  avg_ms: { label: 'average', unit: 'ms', path: ['avg_ms'], better: LOWER },
  p50_ms: { label: 'p50', unit: 'ms', path: ['p50_ms'], better: LOWER },
  p95_ms: { label: 'p95', unit: 'ms', path: ['p95_ms'], better: LOWER },
  p99_ms: { label: 'p99', unit: 'ms', path: ['p99_ms'], better: LOWER },
  max_ms: { label: 'max', unit: 'ms', path: ['max_ms'], better: LOWER },
  // open model only: requests the load engine started later than their intended time (its
  // LATE_MS); beside latency because a generator that falls behind hides latency (coordinated
  // omission). Latency is measured from the intended start, so a late arrival still counts its wait.
  late_arrivals: { label: 'late arrivals', unit: 'req', path: ['late_arrivals'], better: LOWER },
  // the same concern in results measured with k6 (before the Locust engine): iterations k6 could
  // not start on time; kept so those results still render and compare
  dropped_iterations: { label: 'dropped iterations', unit: 'iter', path: ['dropped_iterations'], better: LOWER },
  query_ms_per_query: { label: 'ES query time per query', unit: 'ms', path: ['es', 'query_ms_per_query'], better: LOWER },
  fetch_ms_per_fetch: { label: 'ES fetch time per fetch', unit: 'ms', path: ['es', 'fetch_ms_per_fetch'], better: LOWER },
  search_queue_max: { label: 'ES search queue (max)', unit: 'tasks', path: ['es', 'search_queue_max'], better: LOWER },
  search_rejected: { label: 'ES search rejections', unit: 'req', path: ['es', 'search_rejected'], better: LOWER },
  gc_ms: { label: 'ES GC time', unit: 'ms', path: ['es', 'gc_ms'], better: LOWER },
  // the write workload (scenario: ingest): a request is one bulk; the clients count its items
  docs_per_s: { label: 'documents indexed/s', unit: 'docs/s', path: ['ingest', 'docs_per_s'], better: HIGHER },
  bulk_ops_per_s: { label: 'bulk operations/s', unit: 'bulks/s', path: ['ingest', 'bulk_ops_per_s'], better: HIGHER },
  docs_indexed: { label: 'documents indexed', unit: 'docs', path: ['ingest', 'docs_indexed'], better: HIGHER },
  docs_rejected: { label: 'documents rejected (429)', unit: 'docs', path: ['ingest', 'docs_rejected'], better: LOWER },
  docs_failed: { label: 'documents failed', unit: 'docs', path: ['ingest', 'docs_failed'], better: LOWER },
  ingest_error_share: { label: 'ingestion errors per document sent', unit: 'ratio', path: ['ingest', 'error_share'], better: LOWER },
  indexing_docs_per_s: { label: 'ES indexing/s (all copies)', unit: 'docs/s', path: ['es', 'indexing_docs_per_s'], better: HIGHER },
  merges: { label: 'ES merges', unit: 'merges', path: ['es', 'merges'], better: LOWER },
  merge_ms: { label: 'ES merge time', unit: 'ms', path: ['es', 'merge_ms'], better: LOWER },
  refreshes: { label: 'ES refreshes', unit: 'refreshes', path: ['es', 'refreshes'], better: LOWER },
  refresh_ms: { label: 'ES refresh time', unit: 'ms', path: ['es', 'refresh_ms'], better: LOWER },
  segment_count: { label: 'ES segments at the end', unit: 'segments', path: ['es', 'segments'], better: LOWER },
  write_queue_max: { label: 'ES write queue (max)', unit: 'tasks', path: ['es', 'write_queue_max'], better: LOWER },
  write_rejected: { label: 'ES write rejections', unit: 'tasks', path: ['es', 'write_rejected'], better: LOWER },
  indexing_pressure_rejected: { label: 'ES indexing pressure rejections', unit: 'req', path: ['es', 'indexing_pressure_rejected'], better: LOWER },
  // many-shards: indices of one shard made one after the other by the clients (avg_ms, p95_ms: their creation)
  indices_per_s: { label: 'indices created/s', unit: 'indices/s', path: ['many_shards', 'indices_per_s'], better: HIGHER },
  indices_created: { label: 'indices created', unit: 'indices', path: ['many_shards', 'indices_created'], better: HIGHER },
  create_elapsed_s: { label: 'time to create them', unit: 's', path: ['many_shards', 'elapsed_s'], better: LOWER },
  cluster_state_bytes: { label: 'cluster state (metadata and routing, JSON)', unit: 'bytes', path: ['many_shards', 'cluster_state_bytes'], better: LOWER },
  master_heap_max_mb: { label: "master's heap in use (max)", unit: 'MB', path: ['many_shards', 'master_heap_max_mb'], better: LOWER },
  master_gc_ms: { label: "master's GC time", unit: 'ms', path: ['many_shards', 'master_gc_ms'], better: LOWER },
  pending_tasks_max: { label: 'pending cluster tasks (max)', unit: 'tasks', path: ['many_shards', 'pending_tasks_max'], better: LOWER },
  delete_s: { label: 'time to delete them', unit: 's', path: ['many_shards', 'delete_s'], better: LOWER },
});

/** What a spec's report.metrics lists when it lists nothing. */
export const DEFAULT_REPORT_METRICS = Object.freeze(['avg_ms', 'p50_ms', 'p95_ms', 'p99_ms', 'throughput_rps', 'error_rate']);

// Per query type (a workload that mixes e.g. regular and aggregated search): `<type>.<metric>`,
// read from figures.by_type[type][metric].
const BY_TYPE = /^([a-z][a-z0-9_]*)\.(requests|avg_ms|p50_ms|p95_ms|p99_ms)$/;

// Per store half (odd / even store numbers, the article's two halves): `<set>.<metric>`, read from
// figures.by_set[set][metric]; with a burst, the half's p95 before and during it and their ratio.
const BY_SET = /^(odd|even)\.(requests|avg_ms|p95_ms|before_p95_ms|during_p95_ms|burst_p95_ratio)$/;
const SET_METRICS = {
  before_p95_ms: { label: 'p95 before the burst', unit: 'ms', better: LOWER },
  during_p95_ms: { label: 'p95 during the burst', unit: 'ms', better: LOWER },
  burst_p95_ratio: { label: 'p95 during / before the burst', unit: 'x', better: LOWER },
};

// The closed loop (a variant with `isolate`): the burst store's neighbours (the other stores of
// its group) before the burst, during it until the move ended, and after the move (past its
// settle time), with the ratios to before (neighbours_es, others_es: the same on Elasticsearch's own
// `took`); and the loop's times, in seconds from the burst's start.
const NEIGHBOURS = /^(neighbours|others)(_es)?\.(before_p95_ms|during_p95_ms|after_p95_ms|during_ratio|after_ratio|recovered_share)$/;
const NEIGHBOUR_METRICS = {
  before_p95_ms: { label: 'p95 before the burst', unit: 'ms', better: LOWER },
  during_p95_ms: { label: 'p95 during the burst, until the move ended', unit: 'ms', better: LOWER },
  after_p95_ms: { label: 'p95 after the move', unit: 'ms', better: LOWER },
  during_ratio: { label: 'p95 during / before', unit: 'x', better: LOWER },
  after_ratio: { label: 'p95 after the move / before the burst', unit: 'x', better: LOWER },
  // (during - after) / (during - before): how much of the burst's rise is gone after the move
  recovered_share: { label: 'share of the burst\'s rise in p95 gone after the move', unit: 'ratio', better: HIGHER },
};
const WHOSE = { neighbours: "the burst store's neighbours'", others: "the other group's stores'" };
const ISOLATION = {
  'isolation.flag_s': { label: 'burst start to flagged', unit: 's', path: ['isolation', 'flag_s'], better: LOWER },
  'isolation.move_start_s': { label: 'burst start to move start', unit: 's', path: ['isolation', 'move_start_s'], better: LOWER },
  'isolation.move_s': { label: 'move duration', unit: 's', path: ['isolation', 'move_s'], better: LOWER },
  'isolation.recovered_s': { label: "burst start to the neighbours' recovery", unit: 's', path: ['isolation', 'recovered_s'], better: LOWER },
  'isolation.recovered_rise_s': { label: "burst start to the neighbours within 15% of the burst's rise", unit: 's', path: ['isolation', 'recovered_rise_s'], better: LOWER },
};

/** The definition of a metric name, or null when the name is not a metric. */
export function metricDef(name) {
  if (typeof name !== 'string') return null;
  if (Object.hasOwn(METRICS, name)) return { name, ...METRICS[name] };
  if (Object.hasOwn(ISOLATION, name)) return { name, ...ISOLATION[name] };
  const nb = NEIGHBOURS.exec(name);
  if (nb) {
    const base = NEIGHBOUR_METRICS[nb[3]];
    const label = nb[2] ? base.label.replace('p95', "p95 of Elasticsearch's took") : base.label;
    return { name, label: `${WHOSE[nb[1]]} ${label}`, unit: base.unit, path: [`${nb[1]}${nb[2] ?? ''}`, nb[3]], better: base.better };
  }
  const set = BY_SET.exec(name);
  if (set) {
    const base = SET_METRICS[set[2]] ?? METRICS[set[2]];
    return { name, label: `${set[1]} stores' ${base.label}`, unit: base.unit, path: ['by_set', set[1], set[2]], better: base.better };
  }
  const m = BY_TYPE.exec(name);
  if (!m) return null;
  const base = METRICS[m[2]];
  return { name, label: `${m[1]} ${base.label}`, unit: base.unit, path: ['by_type', m[1], m[2]], better: base.better };
}

export const isMetric = (name) => metricDef(name) !== null;

/** A repetition's figures -> the metric's value, or null when the figures (or that figure) are missing. */
export function metricValue(figures, name) {
  const def = metricDef(name);
  if (!def || figures == null) return null;
  let v = figures;
  for (const key of def.path) {
    if (v == null || typeof v !== 'object') return null;
    v = v[key];
  }
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

/** The inverse of metricValue: sets the metric's figure in figures (creating its path); for simulated figures. */
export function setMetricValue(figures, name, value) {
  const def = metricDef(name);
  if (!def) throw new TypeError(`not a metric name: ${name}`);
  let v = figures;
  for (const key of def.path.slice(0, -1)) v = (v[key] ??= {});
  v[def.path[def.path.length - 1]] = value;
  return figures;
}

/** A variant's settings: name -> { label, builtin default (undefined: the spec must give it) }. */
export const SETTINGS = Object.freeze({
  indices: { label: 'indices', default: 1 },
  shards: { label: 'shards', default: undefined },
  replicas: { label: 'replicas', default: 1 },
  refresh_interval: { label: 'refresh interval', default: '1s' },
  group: { label: 'group', default: 'all' },
  assign: { label: 'assignment', default: 'all' },
  segments: { label: 'segments', default: 1 },
});

/** Facts the runner reads from the built layout (results.json variants[].layout). */
export const LAYOUT = Object.freeze({
  shard_count: { label: 'shards (all copies)', unit: '' },
  primary_shards: { label: 'primary shards', unit: '' },
  median_shard_bytes: { label: 'median shard size', unit: 'bytes' },
  docs: { label: 'documents', unit: '' },
  segments_per_shard: { label: 'segments per shard', unit: '' },
});

/**
 * A column of the article-shaped table (spec report.table): a variant setting, a layout fact or a
 * metric. -> { name, kind: 'setting'|'layout'|'metric', label, unit } or null.
 */
export function columnDef(name) {
  if (name === 'name' || name === 'label') return { name, kind: 'variant', label: name === 'name' ? 'variant' : 'label', unit: '' };
  if (Object.hasOwn(SETTINGS, name)) return { name, kind: 'setting', label: SETTINGS[name].label, unit: '' };
  if (Object.hasOwn(LAYOUT, name)) return { name, kind: 'layout', ...LAYOUT[name] };
  const m = metricDef(name);
  return m ? { name, kind: 'metric', label: m.label, unit: m.unit } : null;
}

export const columnNames = () => ['name', 'label', ...Object.keys(SETTINGS), ...Object.keys(LAYOUT), ...Object.keys(METRICS)];
