// The two bulk loops a move is made of. Both read a point-in-time snapshot of the source and
// are idempotent, so a pass can be repeated (and is, as the verification) without harm.
import { tenantFilter } from '../es/cluster.js';
import { isUnavailable } from '../errors.js';
import { scanPages } from '../es/scan.js';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export class MoveError extends Error {
  constructor(message, { transient = false } = {}) {
    super(message);
    this.name = 'MoveError';
    this.transient = transient;
  }
}

/**
 * Sends bulk operations, retrying only the items the cluster pushed back (429/503).
 * Returns per-item outcomes in input order: 'done', 'conflict', or throws on a real error.
 */
async function bulkWithRetry(client, pairs, { attempts = 5 } = {}) {
  const outcome = new Array(pairs.length);
  let pending = pairs.map((_, i) => i);
  for (let attempt = 1; pending.length; attempt++) {
    const operations = pending.flatMap((i) => pairs[i]);
    const res = await client.bulk({ operations, refresh: false });
    const retry = [];
    res.items.forEach((item, k) => {
      const i = pending[k];
      const r = Object.values(item)[0];
      if (r.status < 300 || (r.status === 404 && r.result === 'not_found')) outcome[i] = 'done';
      else if (r.status === 409) outcome[i] = 'conflict';
      else if (r.status === 429 || r.status === 503) retry.push(i);
      else throw new MoveError(`bulk item ${r._id} failed: ${r.error?.type}: ${r.error?.reason}`);
    });
    if (retry.length && attempt >= attempts) throw new MoveError(`${retry.length} bulk items still rejected after ${attempts} attempts`, { transient: true });
    pending = retry;
    if (pending.length) await sleep(200 * attempt);
  }
  return outcome;
}

/**
 * Copies every document of the tenant from source to target with the source's version as an
 * external version: the target keeps whatever is newer (a write made there during the move,
 * or a delete tombstone), so a stale copy can never overwrite a newer write.
 */
export async function copyPass(client, { source, target, tenantId, batchSize, keepAlive, onPage }) {
  const totals = { copied: 0, skipped: 0 };
  for await (const hits of scanPages(client, { index: source, query: tenantFilter(tenantId), size: batchSize, keepAlive })) {
    const pairs = hits.map((h) => [
      { index: { _index: target, _id: h._id, version: h._version, version_type: 'external', ...(h._routing ? { routing: h._routing } : {}) } },
      h._source,
    ]);
    const outcome = await bulkWithRetry(client, pairs);
    const page = { copied: 0, skipped: 0 };
    for (const o of outcome) page[o === 'done' ? 'copied' : 'skipped'] += 1;
    totals.copied += page.copied;
    totals.skipped += page.skipped;
    await onPage?.(page);
  }
  return totals;
}

/** Deletes every document of the tenant from an index the tenant no longer reads from. */
export async function deletePass(client, { index, tenantId, batchSize, keepAlive, onPage }) {
  let deleted = 0;
  for await (const hits of scanPages(client, { index, query: tenantFilter(tenantId), size: batchSize, keepAlive, source: false })) {
    const pairs = hits.map((h) => [{ delete: { _index: index, _id: h._id, ...(h._routing ? { routing: h._routing } : {}) } }]);
    await bulkWithRetry(client, pairs);
    deleted += hits.length;
    await onPage?.(hits.length);
  }
  return deleted;
}

/** Deletes until nothing of the tenant is left (a PIT cannot see docs that arrive later). */
export async function deleteAll(client, opts) {
  let total = 0;
  for (let round = 0; round < 10; round++) {
    await client.indices.refresh({ index: opts.index });
    const { count } = await client.count({ index: opts.index, query: tenantFilter(opts.tenantId) });
    if (count === 0) return total;
    total += await deletePass(client, opts);
  }
  throw new MoveError(`documents of ${opts.tenantId} keep appearing in ${opts.index}`);
}

export const transient = (err) => isUnavailable(err) || err?.transient === true;
