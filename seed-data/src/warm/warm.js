// The search path warmed before `make up` returns. A node that has just started answers its
// first thousand storefront searches 2-3x slower than it will a minute later (its JIT compiles
// the query, aggregation and fetch paths on first use): on the demo profile, 2026-11-28, the
// first `make load` after `make up` measured a storefront p95 of 320 ms and failed its
// re-submission threshold; the next one, 122 ms. So `make up` replays the stores' own searches
// (the query log it writes for `make replay`) with a few in flight for LAB_WARMUP, once per
// start of the nodes: what the user's first load then measures is the storefront.
//
// The write path too (the first load's catalog writes and re-submission were as cold): the
// same generated products, written the write contract's way (external versions) into a scratch
// index with the products' own mapping and analysis, one shard on each data node, dropped at the
// end. No tenant's documents are written, so no data changes (not even a deleted product's
// return, which re-sending a catalog would cause).
//
// Nobody's traffic: the searches carry no stats group, so no tenant's observed cost counts them.
import { parseLines, searchRequestOf } from '@tenantlab/contract/querylog';
import { bulkLines } from '@tenantlab/contract/write-contract';
import { nearestRank } from '@tenantlab/contract/percentile';

export const SCRATCH_INDEX = 'tenantlab-warmup';

/** The nodes' identity as of their last start: a warm-up is redone only when it changes. */
export function nodesKey(nodesInfo) {
  return Object.entries(nodesInfo?.nodes ?? {})
    .map(([id, n]) => `${id}@${n?.jvm?.start_time_in_millis ?? '?'}`)
    .sort()
    .join(',');
}

/** p-th percentile (0-100) of a list of numbers, nearest rank as the lab reads latencies; null when empty. */
export const percentile = (xs, p) => nearestRank(xs, p / 100);

/**
 * Samples [{ at (ms from the start), ms }] in windows of `windowMs` by their start: the first
 * and the last full window's p95, so the line can show what warming changed.
 */
export function warmFigures(samples, windowMs = 5000) {
  const windows = new Map();
  for (const s of samples) {
    const w = Math.floor(s.at / windowMs);
    if (!windows.has(w)) windows.set(w, []);
    windows.get(w).push(s.ms);
  }
  const keys = [...windows.keys()].sort((a, b) => a - b);
  return {
    p95_ms: percentile(samples.map((s) => s.ms), 95),
    first_p95_ms: keys.length ? percentile(windows.get(keys[0]), 95) : null,
    last_p95_ms: keys.length > 1 ? percentile(windows.get(keys.at(-1)), 95) : null,
  };
}

/** The query log's searches as requests without the stats group (see the header). */
export function warmRequests(lines) {
  return [...parseLines(lines)].map((e) => {
    const { index, body } = searchRequestOf(e);
    const { stats, ...rest } = body;
    return { index, storeId: e.storeId, body: rest };
  });
}

/**
 * Sends `requests` in a loop, `inFlight` at a time, for `seconds`, then on while `busy()` says
 * the cluster is still settling, up to `maxSeconds` in all. A store whose alias is gone (deleted
 * since the log was written) is skipped after its first 404. Returns { requests, errors,
 * missing, seconds, samples, extended_s } (samples: { at, ms } of the answered searches;
 * extended_s: how long past `seconds`).
 */
export async function warmUp(client, requests, { seconds, inFlight = 3, now = () => performance.now(), busy = null, maxSeconds = seconds }) {
  const t0 = now();
  let deadline = t0 + seconds * 1000;
  const gone = new Set();
  const samples = [];
  let next = 0;
  let sent = 0;
  let errors = 0;
  const pick = () => {
    for (let tries = 0; tries < requests.length; tries++) {
      const r = requests[next++ % requests.length];
      if (!gone.has(r.storeId)) return r;
    }
    return null;
  };
  async function worker() {
    for (let r = pick(); r && now() < deadline; r = pick()) {
      const start = now();
      sent += 1;
      try {
        await client.transport.request({ method: 'POST', path: `/${encodeURIComponent(r.index)}/_search`, body: r.body }, { requestTimeout: 30000, maxRetries: 0 });
        samples.push({ at: start - t0, ms: now() - start });
      } catch (err) {
        if (err?.meta?.statusCode === 404) gone.add(r.storeId);
        else errors += 1;
      }
    }
  }
  if (!requests.length) return { requests: 0, errors, missing: 0, seconds: (now() - t0) / 1000, samples, extended_s: 0 };
  await Promise.all(Array.from({ length: inFlight }, worker));
  // past `seconds`, on while the cluster is still busy settling (busy(): true), up to maxSeconds
  while (busy && now() - t0 < maxSeconds * 1000 && (await busy())) {
    deadline = Math.min(now() + EXTEND_MS, t0 + maxSeconds * 1000);
    await Promise.all(Array.from({ length: inFlight }, worker));
  }
  const ran = (now() - t0) / 1000;
  return { requests: sent, errors, missing: gone.size, seconds: ran, samples, extended_s: Math.max(0, ran - seconds) };
}

// how much longer the warm-up goes on at a time while the cluster is busy
const EXTEND_MS = 2000;

/**
 * The shards merging now, cluster-wide (`_nodes/stats`): a load leaves its last segments to
 * merge for a while after it ends, and searches meanwhile share the CPU with those merges (the
 * demo profile, 2026-11-29: 290 thousand documents merging through the whole 30-s warm-up).
 */
export async function mergesRunning(client) {
  const r = await client.nodes.stats({ metric: 'indices', index_metric: 'merge', filter_path: 'nodes.*.indices.merges.current' });
  return Object.values(r.nodes ?? {}).reduce((a, n) => a + (n.indices?.merges?.current ?? 0), 0);
}

/**
 * The scratch index's body from a products index as `indices.get` returns it: its mapping and
 * analysis, one primary on each of `dataNodes` nodes, no replica, wherever the group attribute
 * would put it.
 */
export function scratchIndexBody(productsIndex, dataNodes) {
  return {
    settings: {
      'index.number_of_shards': dataNodes,
      'index.number_of_replicas': 0,
      'index.routing.allocation.total_shards_per_node': 1,
      'index.refresh_interval': '1s',
      ...(productsIndex.settings?.index?.analysis ? { 'index.analysis': productsIndex.settings.index.analysis } : {}),
    },
    mappings: productsIndex.mappings,
  };
}

/** NDJSON bulk bodies of `docs` catalog items each, aimed at the scratch index. */
export function* scratchBulks(items, docs = 100) {
  let body = '';
  let n = 0;
  for (const it of items) {
    body += bulkLines({ ...it, alias: SCRATCH_INDEX });
    if (++n === docs) {
      yield body;
      body = '';
      n = 0;
    }
  }
  if (body) yield body;
}

/**
 * Bulks into the scratch index at a catalog feed's pace (`everyMs` apart, one in flight: a
 * trickle beside the searches, as `make load`'s writes are, not a load that starves them) until
 * `deadline` or the bodies run out. Returns { bulks, documents, errors }.
 */
export async function warmWrites(client, bodies, { deadline, everyMs = 1000, now = () => performance.now(), sleep = (ms) => new Promise((r) => setTimeout(r, ms)) }) {
  let bulks = 0;
  let documents = 0;
  let errors = 0;
  for (const body of bodies) {
    const start = now();
    if (start >= deadline) break;
    try {
      const r = await client.transport.request({ method: 'POST', path: '/_bulk', bulkBody: body, querystring: { filter_path: 'errors,items.*.status' } }, { requestTimeout: 30000, maxRetries: 0 });
      bulks += 1;
      documents += (r.items ?? []).filter((i) => Object.values(i)[0]?.status < 300).length;
      if (r.errors) errors += 1;
    } catch {
      errors += 1;
    }
    const wait = Math.min(everyMs - (now() - start), deadline - now());
    if (wait > 0) await sleep(wait);
  }
  return { bulks, documents, errors };
}

/** The scratch index, created afresh (a warm-up interrupted before its end left one). */
export async function createScratch(client, productsAlias) {
  await dropScratch(client);
  const productsIndex = Object.values(await client.indices.get({ index: productsAlias }))[0];
  const dataNodes = (await client.cat.nodes({ format: 'json', h: 'node.role' })).filter((n) => /d/.test(n['node.role'] ?? '')).length;
  await client.indices.create({ index: SCRATCH_INDEX, ...scratchIndexBody(productsIndex, Math.max(1, dataNodes)), wait_for_active_shards: 'all' });
}

export const dropScratch = (client) => client.indices.delete({ index: SCRATCH_INDEX, ignore_unavailable: true });
