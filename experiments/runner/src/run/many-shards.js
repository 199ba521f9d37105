// The many-shards workload (workload.scenario: many-shards), after Elastic's nightly many-shards
// benchmark: per repetition, the load engine's clients (traffic/many_shards.py) create the
// variant's `indices` indices of one primary and no replica (the document profile's mapping),
// each with docs_per_index documents right after it is made. The figures: indices created per second,
// the creation latency, and what holding them costs the cluster: the cluster state's size, the
// master's heap (deepest seen) and GC time, the deepest pending-task queue. After the run every
// acknowledged document is counted in the indices (none lost), then they are all deleted.
import { writeFileSync } from 'node:fs';
import { bulkBodies, loadDocumentProfile } from '@tenantlab/dataset/documents';
import { experimentRunPrefix } from '@tenantlab/contract/naming';
import { RunError } from '../errors.js';
import { forEachUrlBatch } from '@tenantlab/contract/bounded';

/** The prefix of one repetition's indices: `<run prefix><variant>-r<round>-`. */
export const manyShardsPrefix = (runId, variant, round) => `${experimentRunPrefix(runId)}${variant}-r${round}-`;

/** The create-index body and a few bulks of docsPerIndex documents, written once to `file`. -> { profile, count, bytes } */
export function writeManyShardsFixture(file, { profile, seed, docsPerIndex, bulks = 20 }) {
  const p = loadDocumentProfile(profile);
  const index = JSON.stringify({ settings: { 'index.number_of_shards': 1, 'index.number_of_replicas': 0 }, mappings: p.mapping });
  const list = bulkBodies({ profile: p, seed, bodies: bulks, docsPerBulk: docsPerIndex });
  writeFileSync(file, JSON.stringify({ index, bulks: list }));
  return { profile: p, count: list.length, bytes: list.reduce((a, b) => a + Buffer.byteLength(b), 0) };
}

const get = (client, path, querystring = {}) => client.transport.request({ method: 'GET', path, querystring });

/** The elected master's heap and GC counters: { name, heapUsed, heapMax, gcMs } */
export async function masterJvm(client) {
  const body = await get(client, '/_nodes/_master/stats/jvm', { filter_path: 'nodes.*.name,nodes.*.jvm.mem.heap_used_in_bytes,nodes.*.jvm.mem.heap_max_in_bytes,nodes.*.jvm.gc.collectors.*.collection_time_in_millis' });
  const [n] = Object.values(body.nodes ?? {});
  if (!n) return null;
  const gcMs = Object.values(n.jvm?.gc?.collectors ?? {}).reduce((a, c) => a + (c.collection_time_in_millis ?? 0), 0);
  return { name: n.name, heapUsed: n.jvm?.mem?.heap_used_in_bytes ?? 0, heapMax: n.jvm?.mem?.heap_max_in_bytes ?? 0, gcMs };
}

/**
 * The cluster state's size: the bytes of its metadata and routing table as the master serves
 * them (JSON). Elastic's benchmark tracks the same growth; the wire form is compressed and smaller.
 */
export async function clusterStateBytes(client) {
  const res = await client.transport.request({ method: 'GET', path: '/_cluster/state/metadata,routing_table' }, { asStream: true });
  let bytes = 0;
  for await (const chunk of res) bytes += chunk.length;
  return bytes;
}

/** Every second until stop(): the master's heap in use and the pending tasks, deepest seen. */
export function masterSampler(client, everyMs = 1000) {
  const max = { heapUsed: 0, pending: 0 };
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      try {
        const [jvm, health] = await Promise.all([masterJvm(client), client.cluster.health({ filter_path: 'number_of_pending_tasks' })]);
        max.heapUsed = Math.max(max.heapUsed, jvm?.heapUsed ?? 0);
        max.pending = Math.max(max.pending, health.number_of_pending_tasks ?? 0);
      } catch { /* a missed sample is not a failed repetition */ }
      await new Promise((r) => setTimeout(r, everyMs));
    }
  })();
  return { stop: async () => { stopped = true; await loop; return max; } };
}

const r2 = (v) => (Number.isFinite(v) ? Math.round(v * 100) / 100 : null);

/** The run's figures from traffic/many_shards.py's summary (k6's key shape; its whole run is the window). */
export function manyShardsFiguresOf(summary) {
  const m = summary.metrics;
  const count = (name) => m[`${name}{scenario:measure}`]?.values?.count ?? 0;
  const create = m['http_req_duration{scenario:measure,op:create}']?.values ?? {};
  const bulk = m['http_req_duration{scenario:measure,op:bulk}']?.values ?? {};
  const seconds = (summary.state?.testRunDurationMs ?? 0) / 1000;
  const created = count('indices_created');
  const failed = count('indices_failed');
  const requests = m['http_reqs{scenario:measure}']?.values?.count ?? m.http_reqs?.values?.count ?? 0;
  const errors = m['http_req_failed{scenario:measure}']?.values?.passes ?? m.http_req_failed?.values?.passes ?? 0;
  return {
    requests,
    throughput_rps: seconds ? r2(requests / seconds) : null,
    errors,
    // exact, never rounded: 248 rejected of 100,000 must not read 0
    error_rate: requests ? errors / requests : null,
    // the creations' latency: what the benchmark is about (the bulks are in many_shards)
    avg_ms: r2(create.avg), p50_ms: r2(create['p(50)'] ?? create.med), p95_ms: r2(create['p(95)']), p99_ms: r2(create['p(99)']), max_ms: r2(create.max),
    many_shards: {
      indices_created: created,
      indices_failed: failed,
      indices_per_s: seconds ? r2(created / seconds) : null,
      elapsed_s: r2(seconds),
      bulk_avg_ms: r2(bulk.avg),
      bulk_p95_ms: r2(bulk['p(95)']),
      docs_indexed: count('docs_indexed'),
      docs_failed: count('docs_failed'),
    },
  };
}

/** The repetition's indices by name (expand_wildcards all: closed ones too). */
export async function indicesWithPrefix(client, prefix) {
  const rows = await client.cat.indices({ index: `${prefix}*`, format: 'json', h: 'index', expand_wildcards: 'all' });
  return rows.map((r) => r.index).filter((i) => i.startsWith(prefix));
}

/**
 * Every index reported created exists and every acknowledged document is in them (refreshed);
 * throws RunError naming the gap otherwise. -> { indices, count }
 */
export async function requireAllCreated(client, prefix, { created, docsIndexed, docsFailed }) {
  const names = await indicesWithPrefix(client, prefix);
  if (names.length < created) throw new RunError(`${prefix}*: ${names.length} indices exist, ${created} were acknowledged created`, 1);
  await client.indices.refresh({ index: `${prefix}*` });
  const { count } = await client.count({ index: `${prefix}*` });
  if (count < docsIndexed || count > docsIndexed + docsFailed) {
    throw new RunError(`${prefix}*: ${count} documents in the indices, ${docsIndexed} acknowledged: ${count < docsIndexed ? 'acknowledged writes were lost' : 'documents nobody sent'}`, 1);
  }
  return { indices: names.length, count };
}

/** Deletes the repetition's indices, by name in batches that fit a request line (wildcard deletes are refused). */
export async function deleteIndices(client, prefix) {
  const names = await indicesWithPrefix(client, prefix);
  await forEachUrlBatch(names, (index) => client.indices.delete({ index }, { requestTimeout: 300000 }));
  return names.length;
}
