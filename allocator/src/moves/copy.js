// The two bulk loops a move is made of. Both read a point-in-time snapshot of the source and
// are idempotent, so a pass can be repeated (and is, as the verification) without harm.
import { tenantFilter } from '../es/cluster.js';
import { isTransient, isTransientItem } from '@tenantlab/contract/errors';
import { bulkAction } from '@tenantlab/contract/write-contract';
import { MoveError } from '../errors.js';
import { scanPages } from '../es/scan.js';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

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
      else if (isTransientItem(r)) retry.push(i);
      else throw new MoveError(`bulk item ${r._id} failed: ${r.error?.type}: ${r.error?.reason}`);
    });
    if (retry.length && attempt >= attempts) throw new MoveError(`${retry.length} bulk items still rejected after ${attempts} attempts`, { transient: true });
    pending = retry;
    if (pending.length) await sleep(200 * attempt);
  }
  return outcome;
}

/**
 * A delete that only succeeds while the document still has the version it was read with (a
 * newer write makes it a 409, left for the next round), and whose tombstone carries that same
 * version. A plain delete would leave a tombstone one version higher, which for the next
 * gc_deletes period would reject the tenant's unchanged documents when they come back: a move
 * back into this index, or a re-seed after the tenant was deleted and created again.
 */
function versionedDelete(index, h) {
  return bulkAction({ op: 'delete', index, id: h._id, version: h._version, routing: h._routing });
}

/**
 * The hits of a page the target lacks or holds at an older version. Only those are written,
 * so a pass that finds none proves the target holds the whole tenant; a hit the target holds
 * at the same or a newer version, or has a newer delete tombstone for, is left alone.
 */
async function staleInTarget(client, target, hits) {
  const res = await client.mget({
    index: target,
    docs: hits.map((h) => ({ _id: h._id, ...(h._routing ? { routing: h._routing } : {}) })),
    _source: false,
  });
  return hits.filter((h, i) => {
    const d = res.docs[i];
    return !d.found || d._version < h._version;
  });
}

/**
 * Writes hits into the target with the source's version as an external version
 * (external_gte): the target keeps whatever is newer (a write made there during the move, or a
 * client's delete tombstone), so a stale copy can never overwrite a newer write. An equal
 * version is the same product version: it may replace the tombstone this index kept when the
 * tenant last moved out of it, which is how a tenant moves back without losing anything.
 */
async function copyHits(client, target, hits) {
  if (!hits.length) return { copied: 0, conflicts: 0 };
  const pairs = hits.map((h) => [
    bulkAction({ index: target, id: h._id, version: h._version, routing: h._routing }),
    h._source,
  ]);
  const outcome = await bulkWithRetry(client, pairs);
  const copied = outcome.filter((o) => o === 'done').length;
  return { copied, conflicts: outcome.length - copied };
}

/** Copies every document of the tenant the target lacks or holds at an older version. */
export async function copyPass(client, { source, target, tenantId, batchSize, keepAlive, onPage, beforeWrite }) {
  const totals = { copied: 0, skipped: 0 };
  for await (const hits of scanPages(client, { index: source, query: tenantFilter(tenantId), size: batchSize, keepAlive })) {
    const stale = await staleInTarget(client, target, hits);
    // lets the job persist what it is about to write, so a crash mid-page can be reconciled
    await beforeWrite?.({ hits: hits.length, copy: stale });
    const { copied } = await copyHits(client, target, stale);
    const page = { copied, skipped: hits.length - copied };
    totals.copied += page.copied;
    totals.skipped += page.skipped;
    await onPage?.(page);
  }
  return totals;
}

/**
 * Empties the source of the tenant after the final switch without losing a late write: each
 * page is copied to the target first (external versions: anything newer there wins), then
 * deleted from the source only if unchanged since it was read (a versioned delete). A
 * write that lands in the source late (its request resolved the alias before the split and sat
 * in a queue) makes that delete a conflict, and the next round copies it instead of losing it.
 */
export async function drainPass(client, { source, target, tenantId, batchSize, keepAlive, onPage, beforeWrite }) {
  const totals = { copied: 0, deleted: 0, changed: 0 };
  for await (const hits of scanPages(client, { index: source, query: tenantFilter(tenantId), size: batchSize, keepAlive })) {
    const stale = await staleInTarget(client, target, hits);
    await beforeWrite?.({ hits: hits.length, copy: stale, del: hits });
    const { copied } = await copyHits(client, target, stale);
    const deleted = await bulkWithRetry(client, hits.map((h) => [versionedDelete(source, h)]));
    const page = { copied, deleted: deleted.filter((o) => o === 'done').length };
    totals.copied += page.copied;
    totals.deleted += page.deleted;
    totals.changed += hits.length - page.deleted;
    await onPage?.(page);
  }
  return totals;
}

/** Drains until nothing of the tenant is left in the source. */
export async function drainAll(client, opts) {
  const total = { copied: 0, deleted: 0 };
  for (let round = 0; round < 10; round++) {
    await client.indices.refresh({ index: opts.source });
    const { count } = await client.count({ index: opts.source, query: tenantFilter(opts.tenantId) });
    if (count === 0) return total;
    const res = await drainPass(client, opts);
    total.copied += res.copied;
    total.deleted += res.deleted;
  }
  throw new MoveError(`documents of ${opts.tenantId} keep appearing in ${opts.source}`, { transient: true });
}

/** Deletes every document of the tenant from an index the tenant no longer reads from. */
export async function deletePass(client, { index, tenantId, batchSize, keepAlive, onPage }) {
  let deleted = 0;
  for await (const hits of scanPages(client, { index, query: tenantFilter(tenantId), size: batchSize, keepAlive, source: false })) {
    const pairs = hits.map((h) => [versionedDelete(index, h)]);
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

export const transient = (err) => isTransient(err) || err?.transient === true;
