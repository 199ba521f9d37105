// make bench-analysis: what the storefront analysis costs (the products template's `.partial`
// subfields: edge n-grams of name and keywords, of the whole SKU; the SKU's lowercase normalizer).
// The same documents (the ci profile's, BENCH_SCALE x 50,000) are loaded by the seeder's bulk
// loader into two fresh indices that differ only in that: `standard` (the mapping without the
// subfields and the normalizer, no analysis settings: the template before) and `storefront` (the
// template as it is). Rounds alternate which goes first. Prints each one's docs/s (to the end of
// the load, refreshed) and its size merged to one segment, the median of the rounds, and the
// storefront's ratio to the standard one: figures from one run, never from a test.
//
//   BENCH_SCALE   share of the ci profile's 50,000 products (default 1)
//   BENCH_SEED    seed (default 1)
//   BENCH_ROUNDS  rounds of each (default 3), after one warm-up load of each (not counted: a
//                 fresh lab's first loads run on a cold JIT)
//   ES_URL        as everywhere
import { readFileSync } from 'node:fs';
import { generateTenants } from '@tenantlab/dataset/tenants';
import { interleavedItems } from '@tenantlab/dataset/catalog';
import { loadProfile } from '@tenantlab/dataset/profiles';
import { BulkLoader } from '../src/load/bulk-loader.js';
import { clusterUp, es, uid } from '../test/integration/harness.js';

const scale = Number(process.env.BENCH_SCALE ?? 1);
const seed = Number(process.env.BENCH_SEED ?? 1);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
for (const [k, v] of [['BENCH_SCALE', scale], ['BENCH_SEED', seed], ['BENCH_ROUNDS', rounds]]) {
  if (!(Number.isFinite(v) && v > 0)) { console.error(`bench-analysis: ${k} must be a positive number (got '${process.env[k]}')`); process.exit(2); }
}

const schema = (file) => JSON.parse(readFileSync(new URL(`../../allocator/schema/${file}`, import.meta.url), 'utf8'));
const MAPPING = schema('products-mapping.json');
const ANALYSIS = schema('products-analysis.json');

/** The mapping as it was before the storefront analysis: no `.partial` subfields, no normalizers. */
export function withoutAnalysis(mapping) {
  const strip = (props) => Object.fromEntries(Object.entries(props).map(([name, f]) => {
    const { normalizer, fields, properties, ...rest } = f;
    const sub = fields ? Object.fromEntries(Object.entries(fields).filter(([, s]) => !s.analyzer || s.analyzer === 'standard')) : null;
    return [name, { ...rest, ...(sub && Object.keys(sub).length ? { fields: sub } : {}), ...(properties ? { properties: strip(properties) } : {}) }];
  }));
  return { ...mapping, properties: strip(mapping.properties) };
}

const VARIANTS = {
  standard: { mappings: withoutAnalysis(MAPPING), analysis: null },
  storefront: { mappings: MAPPING, analysis: ANALYSIS },
};

const median = (xs) => { const s = [...xs].sort((a, b) => a - b); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };

async function once(name, tenants, run) {
  const index = `bench-analysis-${run}-${name}`;
  const { mappings, analysis } = VARIANTS[name];
  await es.indices.create({
    index,
    settings: { 'index.number_of_shards': 1, 'index.number_of_replicas': 0, 'index.refresh_interval': '1s', 'index.analysis.analyzer.default.type': 'standard',
      // the size read right after the merge, not the store stats' 10 s old cache
      'index.store.stats_refresh_interval': '0s', ...(analysis ? { analysis } : {}) },
    mappings,
    wait_for_active_shards: 'all',
  });
  try {
    const items = (function* into() { for (const item of interleavedItems(seed, tenants)) yield { ...item, alias: index }; })();
    const loader = new BulkLoader({ client: es, concurrency: 3, flushBytes: 5 * 1024 * 1024 });
    const t0 = process.hrtime.bigint();
    await loader.load(items);
    await es.indices.refresh({ index });
    const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
    const docs = (await es.count({ index })).count;
    await es.indices.forcemerge({ index, max_num_segments: 1, wait_for_completion: true }, { requestTimeout: 600000 });
    // the merged-away segments' files are gone once a flush commits the merge
    await es.indices.flush({ index });
    await es.indices.refresh({ index });
    const stats = await es.indices.stats({ index, metric: 'store' });
    const bytes = stats.indices[index].primaries.store.size_in_bytes;
    return { docs, seconds, docsPerSecond: docs / seconds, bytes };
  } finally {
    await es.indices.delete({ index, ignore_unavailable: true });
  }
}

async function main() {
  if (!(await clusterUp())) { console.error('bench-analysis: no lab answers at ES_URL; start one with `make up`'); process.exit(2); }
  const tenants = generateTenants({ seed, profile: loadProfile('ci'), scale, prefix: 'bench' });
  const total = tenants.reduce((a, t) => a + t.expected_products, 0);
  const run = uid();
  console.log(`bench-analysis: ${total} products (ci x ${scale}, seed ${seed}), ${rounds} rounds, one shard, no replica`);
  for (const name of ['standard', 'storefront']) await once(name, tenants, `${run}-warm`);
  const results = { standard: [], storefront: [] };
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 ? ['storefront', 'standard'] : ['standard', 'storefront'];
    for (const name of order) {
      const f = await once(name, tenants, `${run}-r${r}`);
      if (f.docs !== total) throw new Error(`${name}: ${f.docs} documents indexed, expected ${total}`);
      results[name].push(f);
      console.log(`  round ${r + 1} ${name.padEnd(10)} ${Math.round(f.docsPerSecond)} docs/s (${f.seconds.toFixed(1)} s), ${(f.bytes / 1048576).toFixed(1)} MiB merged`);
    }
  }
  const m = (name, k) => median(results[name].map((f) => f[k]));
  const [rate0, rate1, size0, size1] = [m('standard', 'docsPerSecond'), m('storefront', 'docsPerSecond'), m('standard', 'bytes'), m('storefront', 'bytes')];
  console.log(`median: standard ${Math.round(rate0)} docs/s, ${(size0 / 1048576).toFixed(1)} MiB; storefront ${Math.round(rate1)} docs/s, ${(size1 / 1048576).toFixed(1)} MiB`);
  console.log(`storefront / standard: seeding rate ${(rate1 / rate0).toFixed(2)}x, index size ${(size1 / size0).toFixed(2)}x`);
}

main().catch((err) => { console.error(`bench-analysis: ${err.message}`); process.exit(1); });
