// The write workload of the ingest experiments (workload.scenario: ingest): per repetition a new,
// empty index with the variant's settings (shards, replicas, refresh interval, index group) and
// the document profile's explicit mapping; the load engine (traffic/ingest.py) sends bulks of a
// set size from a set number of clients spread over the index group's data nodes; the figures
// are the guidance's (documents/s, bulk operations/s, average and p95 bulk response time,
// errors) with what Elasticsearch did meanwhile (indexing, merges, refreshes, segments, the
// write thread pool).
// After the window, every document the clients saw acknowledged must be in the index: a run
// that lost one is not a measurement.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { experimentIndexName } from '@tenantlab/contract/naming';
import { bulkBodies, loadDocumentProfile } from '@tenantlab/dataset/documents';
import { RunError } from '../errors.js';

// Distinct bodies the clients take turns over: enough that no two clients send the same bulk at
// the same moment, few enough to make (40 x 1,000 log events is about 25 MB in the generator's memory)
export const BODY_POOL = 40;

/** The index of one repetition (round 0: the warm-up pass), under the run's prefix. */
export const ingestIndexName = (runId, variant, round) => experimentIndexName(runId, variant, round);

/**
 * The bulk bodies of a run, written once into `dir` (bulk-000.ndjson, ...) for every repetition's
 * load (traffic/ingest.py: BODIES_DIR, BODIES_COUNT). -> { profile, count, bytes }
 */
export function writeBodies(dir, { profile, seed, docsPerBulk, bodies = BODY_POOL }) {
  const p = loadDocumentProfile(profile);
  const list = bulkBodies({ profile: p, seed, bodies, docsPerBulk });
  list.forEach((body, i) => writeFileSync(join(dir, `bulk-${String(i).padStart(3, '0')}.ndjson`), body));
  return { profile: p, count: list.length, bytes: list.reduce((a, b) => a + Buffer.byteLength(b), 0) };
}

/** Creates the empty index of a repetition: the variant's settings, the profile's mapping. */
export async function createIngestIndex(client, { index, variant, mapping, groupAttr }) {
  const settings = {
    'index.number_of_shards': variant.shards,
    'index.number_of_replicas': variant.replicas,
    'index.refresh_interval': variant.refresh_interval,
    'index.store.stats_refresh_interval': '0s',
  };
  if (variant.group !== 'all') settings[`index.routing.allocation.require.${groupAttr}`] = variant.group;
  await client.indices.create({ index, settings, mappings: { ...mapping, _meta: { tenantlab: { kind: 'experiment', variant: variant.name } } }, wait_for_active_shards: 'all' });
  const h = await client.cluster.health({ index, wait_for_status: 'green', timeout: '60s' }, { ignore: [408] });
  if (h.status !== 'green') throw new RunError(`variant ${variant.name}: its index ${index} was not green 60s after it was created (${h.unassigned_shards} shards unassigned)`, 1);
}

const r2 = (v) => (Number.isFinite(v) ? Math.round(v * 100) / 100 : null);

/** The measured window's figures from traffic/ingest.py's summary (k6's key shape). */
export function ingestFiguresOf(summary, measureSeconds) {
  const m = summary.metrics;
  const count = (name) => m[`${name}{scenario:measure}`]?.values?.count ?? 0;
  const d = m['http_req_duration{scenario:measure}']?.values ?? {};
  const bulks = count('http_reqs');
  const errors = m['http_req_failed{scenario:measure}']?.values?.passes ?? 0;
  const indexed = count('docs_indexed');
  const rejected = count('docs_rejected');
  const failed = count('docs_failed');
  const sent = indexed + rejected + failed;
  return {
    requests: bulks,
    throughput_rps: r2(bulks / measureSeconds),
    errors,
    // exact, never rounded: 248 rejected of 100,000 must not read 0
    error_rate: bulks ? errors / bulks : null,
    avg_ms: r2(d.avg), p50_ms: r2(d['p(50)'] ?? d.med), p95_ms: r2(d['p(95)']), p99_ms: r2(d['p(99)']), max_ms: r2(d.max),
    ingest: {
      docs_per_s: r2(indexed / measureSeconds),
      bulk_ops_per_s: r2(bulks / measureSeconds),
      docs_indexed: indexed,
      docs_rejected: rejected,
      docs_failed: failed,
      bulks_rejected: count('bulks_rejected'),
      // the guidance's "ingestion errors": documents not indexed, per document sent
      error_share: sent ? (rejected + failed) / sent : null,
      docs_sent: sent,
    },
  };
}

/** Every document acknowledged over the whole load run (warm-up included): what the index must hold. */
export function acknowledgedOf(summary) {
  const v = summary.metrics.docs_indexed?.values?.count ?? 0;
  const failed = summary.metrics.docs_failed?.values?.count ?? 0;
  return { acknowledged: v, unanswered: failed };
}

/**
 * No acknowledged document lost: the index (refreshed) holds at least every acknowledged
 * document, and at most those plus the ones whose bulk got no answer (a timeout may still have
 * indexed them). Returns { count, acknowledged }; throws RunError naming the gap otherwise.
 */
export async function requireAllIndexed(client, index, { acknowledged, unanswered }) {
  await client.indices.refresh({ index });
  const { count } = await client.count({ index });
  if (count < acknowledged || count > acknowledged + unanswered) {
    throw new RunError(`${index}: ${count} documents in the index, ${acknowledged} acknowledged${unanswered ? ` (+${unanswered} unanswered)` : ''}: ${count < acknowledged ? 'acknowledged writes were lost' : 'documents nobody sent'}`, 1);
  }
  return { count, acknowledged };
}

const INDEX_STATS_FILTER = [
  'indices.*.total.indexing.index_total', 'indices.*.total.indexing.index_time_in_millis',
  'indices.*.total.merges.total', 'indices.*.total.merges.total_time_in_millis', 'indices.*.total.merges.total_docs',
  'indices.*.total.refresh.total', 'indices.*.total.refresh.total_time_in_millis',
  'indices.*.total.segments.count', 'indices.*.primaries.segments.count',
].join(',');

/** The index's own counters: indexing, merges, refreshes, segments (all copies). */
export async function indexSnapshot(client, index) {
  const body = await client.transport.request({ method: 'GET', path: `/${index}/_stats/indexing,merge,refresh,segments`, querystring: { filter_path: INDEX_STATS_FILTER } });
  const t = body.indices?.[index]?.total ?? {};
  return {
    at: Date.now(),
    indexed: t.indexing?.index_total ?? 0, indexMs: t.indexing?.index_time_in_millis ?? 0,
    merges: t.merges?.total ?? 0, mergeMs: t.merges?.total_time_in_millis ?? 0, mergedDocs: t.merges?.total_docs ?? 0,
    refreshes: t.refresh?.total ?? 0, refreshMs: t.refresh?.total_time_in_millis ?? 0,
    segments: t.segments?.count ?? 0, primarySegments: body.indices?.[index]?.primaries?.segments?.count ?? 0,
  };
}

/** The window's index figures between two index snapshots. */
export function indexWindowFigures(before, after) {
  const s = Math.max(0.001, (after.at - before.at) / 1000);
  return {
    // every copy's indexing (a replica indexes each document again)
    indexing_docs_per_s: r2((after.indexed - before.indexed) / s),
    merges: after.merges - before.merges,
    merge_ms: after.mergeMs - before.mergeMs,
    merged_docs: after.mergedDocs - before.mergedDocs,
    refreshes: after.refreshes - before.refreshes,
    refresh_ms: after.refreshMs - before.refreshMs,
    segments: after.segments,
  };
}
