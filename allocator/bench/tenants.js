// What the observer and console benchmarks share: N tenants on a real allocator, each with one
// document and searched once with its stats group (so _stats carries a group per tenant), a
// steady stand-in for shoppers, and the allocator process's CPU from /proc.
import { readFileSync } from 'node:fs';
import { aliasFor, statsGroupFor } from '@tenantlab/contract/naming';
import { es, sleep } from '../test/integration/harness.js';

/** CPU seconds (user + system) of a process so far. */
export const cpuSeconds = (pid) => {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
};

async function pool(items, n, fn) {
  let i = 0;
  await Promise.all(Array.from({ length: n }, async () => {
    while (i < items.length) await fn(items[i++]);
  }));
}

/** N tenants PREFIXt0.. placed through the allocator `a`, one document each, each searched once. -> ids */
export async function placeTenants(a, prefix, n) {
  const ids = Array.from({ length: n }, (_, i) => `${prefix}t${i}`);
  await pool(ids, 8, async (id) => {
    const r = await a.request('POST', '/tenants', { id, name: id, expected_products: 10 });
    if (r.status !== 201) throw new Error(`POST /tenants ${id}: ${r.status} ${JSON.stringify(r.body)}`);
  });
  for (let i = 0; i < ids.length; i += 500) {
    const ops = ids.slice(i, i + 500).flatMap((id) => [{ index: { _index: aliasFor(id), _id: `${id}:1` } }, { store_id: id, product_id: '1', name: 'one', updated_at: Date.now() }]);
    await es.bulk({ operations: ops, refresh: true });
  }
  await pool(ids, 8, (id) => es.search({ index: aliasFor(id), stats: [statsGroupFor(id)], size: 1 }));
  return ids;
}

/** Searches of random tenants, `perS` a second, until stop(). */
export function shoppers(ids, perS) {
  let running = true;
  const loop = (async () => {
    while (running) {
      const id = ids[Math.floor(Math.random() * ids.length)];
      await Promise.all([es.search({ index: aliasFor(id), stats: [statsGroupFor(id)], size: 24, query: { match_all: {} }, aggs: { b: { terms: { field: 'brand_name.raw' } } } }).catch(() => {}), sleep(1000 / perS)]);
    }
  })();
  return { stop: async () => ((running = false), await loop) };
}
