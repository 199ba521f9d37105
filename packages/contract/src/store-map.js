// Foreign store ids (a real platform's query log) onto the lab's tenants, deterministically, so a
// replay keeps the log's traffic shape on the lab's data. Pure (no Node API).
//   rank  (default) the log's most queried stores onto the lab's highest traffic weights, in
//         order; more stores than tenants: they wrap around (the tail shares tenants)
//   hash  each store onto a tenant by a hash of its id (FNV-1a): stable when the log grows
//   file  the user's pairs, one `<log store> <lab tenant>` per line (# comments); a store the
//         file does not name is left unmapped (its lines are skipped and counted)
import { StoreMapError } from './errors.js';

export { StoreMapError };

export const STORE_MAP_MODES = Object.freeze(['rank', 'hash', 'file']);

const fnv1a = (s) => {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193) >>> 0;
  return h;
};

/** A pairs file's text -> Map(log store -> tenant id); StoreMapError naming the line otherwise. */
export function parsePairs(text, tenantIds) {
  const known = new Set(tenantIds);
  const pairs = new Map();
  String(text).split('\n').forEach((raw, i) => {
    const line = raw.replace(/#.*/, '').trim();
    if (!line) return;
    const parts = line.split(/[\s,]+/);
    if (parts.length !== 2) throw new StoreMapError(`line ${i + 1}: want '<log store> <lab tenant>' (got '${raw.trim()}')`);
    const [store, tenant] = parts;
    if (!known.has(tenant)) throw new StoreMapError(`line ${i + 1}: '${tenant}' is not a tenant of the lab (make tenants lists them)`);
    if (pairs.has(store) && pairs.get(store) !== tenant) throw new StoreMapError(`line ${i + 1}: store ${store} is mapped twice (${pairs.get(store)}, ${tenant})`);
    pairs.set(store, tenant);
  });
  if (!pairs.size) throw new StoreMapError('the pairs file maps no store');
  return pairs;
}

/**
 * mapStores({ counts, tenants, mode, pairs }) -> Map(log store -> tenant id).
 * counts: Map(log store -> queries in the log); tenants: [{ id, weight }] (the lab's, traffic
 * weights); pairs: for mode file, from parsePairs.
 */
export function mapStores({ counts, tenants, mode = 'rank', pairs = null }) {
  if (!STORE_MAP_MODES.includes(mode)) throw new StoreMapError(`STORE_MAP=${mode}: use rank, hash or a file of pairs`);
  if (!tenants.length) throw new StoreMapError('the lab has no tenants to map the log\'s stores onto: make up seeds some (SEED=1)');
  const out = new Map();
  if (mode === 'file') {
    for (const store of counts.keys()) if (pairs.has(store)) out.set(store, pairs.get(store));
    return out;
  }
  const byId = [...tenants].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  if (mode === 'hash') {
    for (const store of counts.keys()) out.set(store, byId[fnv1a(store) % byId.length].id);
    return out;
  }
  // rank: ties broken by id, so the same log and lab always give the same map
  const stores = [...counts.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).map(([s]) => s);
  const heavy = [...byId].sort((a, b) => (b.weight ?? 0) - (a.weight ?? 0));
  stores.forEach((store, i) => out.set(store, heavy[i % heavy.length].id));
  return out;
}
