// The whole catalog of a set of tenants as a lazy stream of bulk items: one product at a time,
// so memory stays flat whether the profile holds 50 thousand products or 10 million.
import { versionOf } from '@tenantlab/contract/write-contract';
import { documentId, makeProduct } from './products.js';

/**
 * Yields { tenant, id, version, source } for every product of every tenant, in tenant order.
 * The write contract (packages/contract/src/write-contract.js): version = updated_at in epoch ms
 * (external_gte), _id = "<tenant>:<id>".
 * `updatedAt` stamps every document with one time (a catalog re-submission).
 */
export function* catalogItems(seed, tenants, { updatedAt } = {}) {
  for (const t of tenants) {
    for (let i = 0; i < t.expected_products; i++) {
      const doc = makeProduct(seed, t, i, updatedAt);
      yield { tenant: t.id, id: documentId(t.id, i), version: versionOf(doc.updated_at), source: JSON.stringify(doc) };
    }
  }
}

/**
 * Tenants ordered so that neighbours live in different indices (`indexOf(tenant)`, from the
 * allocator's placement): round-robin over the indices, biggest index first.
 */
export function spreadOrder(tenants, indexOf = () => '') {
  const byIndex = new Map();
  for (const t of tenants) {
    const k = indexOf(t) ?? '';
    if (!byIndex.has(k)) byIndex.set(k, []);
    byIndex.get(k).push(t);
  }
  const lists = [...byIndex.values()].sort((a, b) => b.length - a.length);
  const out = [];
  for (let i = 0; out.length < tenants.length; i++) for (const l of lists) if (i < l.length) out.push(l[i]);
  return out;
}

/**
 * The same items as catalogItems, interleaved: `lanes` tenants are loaded at once, `chunk`
 * documents at a time each. Loading tenants one after the other sends every request of a
 * giant store to the same index, so the same two nodes work while the others idle; with the
 * tenants in spreadOrder, every bulk request fans out over several indices, hence groups and
 * nodes. Same documents, same bytes, only the order differs; memory stays one cursor per lane.
 */
export function* interleavedItems(seed, tenants, { lanes = 8, chunk = 250, updatedAt } = {}) {
  const queue = tenants[Symbol.iterator]();
  const active = [];
  const open = () => {
    const next = queue.next();
    return next.done ? null : catalogItems(seed, [next.value], { updatedAt });
  };
  for (let i = 0; i < lanes; i++) {
    const lane = open();
    if (lane) active.push(lane);
  }
  while (active.length) {
    for (let i = 0; i < active.length; ) {
      let n = 0;
      let step = active[i].next();
      while (!step.done) {
        yield step.value;
        if (++n >= chunk) break;
        step = active[i].next();
      }
      if (step.done) {
        const lane = open();
        if (lane) active[i++] = lane;
        else active.splice(i, 1);
      } else i++;
    }
  }
}
