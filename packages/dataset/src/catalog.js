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
 * The same items as catalogItems, interleaved: `lanes` tenants are loaded at once, `chunk`
 * documents at a time each. Loading tenants one after the other sends every request of a
 * giant store to the same index, so the same two nodes work while the others idle; with several
 * tenants at once, every bulk request fans out over several indices and nodes (the experiments'
 * layouts). Same documents, same bytes, only the order differs; memory stays one cursor per lane.
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

/**
 * The same items as catalogItems, scheduled so that every index group's nodes stay busy to the
 * end. Under SHAPE=groups each group has CPUs of its own, and a load that finishes one group's
 * stores first leaves that group's CPUs idle while the other group works alone (interleaved in
 * index order, the demo profile's last 160k products were one g1 store, loaded by one CPU).
 * Here the group furthest behind, as a fraction of its own documents, sends next, so every
 * group ends at about the same time; within a group the store with the most documents left
 * sends next, `chunk` at a time, so the big stores start first and no store is left alone at
 * the end. `groupOf(tenant)` names a tenant's group (from the allocator's placement). Same
 * documents, same bytes, each store's in its own order; memory: one cursor per store started.
 */
export function* balancedItems(seed, tenants, { groupOf = () => '', chunk = 250, updatedAt } = {}) {
  const groups = new Map();
  tenants.forEach((t, order) => {
    if (!(t.expected_products > 0)) return;
    const k = groupOf(t) ?? '';
    if (!groups.has(k)) groups.set(k, { total: 0, sent: 0, stores: new MaxHeap() });
    const g = groups.get(k);
    g.total += t.expected_products;
    g.stores.push({ t, order, left: t.expected_products, cursor: null });
  });
  const active = [...groups.values()];
  while (active.length) {
    let gi = 0;
    for (let i = 1; i < active.length; i++) if (active[i].sent / active[i].total < active[gi].sent / active[gi].total) gi = i;
    const g = active[gi];
    const s = g.stores.pop();
    s.cursor ??= catalogItems(seed, [s.t], { updatedAt });
    const n = Math.min(chunk, s.left);
    for (let k = 0; k < n; k++) yield s.cursor.next().value;
    s.left -= n;
    g.sent += n;
    if (s.left > 0) g.stores.push(s);
    else if (g.stores.size === 0) active.splice(gi, 1);
  }
}

/** A binary heap of stores, the most documents left on top (ties: the earlier store). */
class MaxHeap {
  #a = [];

  get size() {
    return this.#a.length;
  }

  static #before(x, y) {
    return x.left > y.left || (x.left === y.left && x.order < y.order);
  }

  push(v) {
    const a = this.#a;
    a.push(v);
    for (let i = a.length - 1; i > 0; ) {
      const p = (i - 1) >> 1;
      if (!MaxHeap.#before(a[i], a[p])) break;
      [a[i], a[p]] = [a[p], a[i]];
      i = p;
    }
  }

  pop() {
    const a = this.#a;
    const top = a[0];
    const last = a.pop();
    if (a.length) {
      a[0] = last;
      for (let i = 0; ; ) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < a.length && MaxHeap.#before(a[l], a[m])) m = l;
        if (r < a.length && MaxHeap.#before(a[r], a[m])) m = r;
        if (m === i) break;
        [a[i], a[m]] = [a[m], a[i]];
        i = m;
      }
    }
    return top;
  }
}
