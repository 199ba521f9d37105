// make bench-analysis: what the storefront analysis costs (the products template's `.partial`
// subfields: edge n-grams of name and keywords, of the whole SKU; the SKU's lowercase normalizer),
// and what a cheaper form of it would save. The same documents (the ci profile's, BENCH_SCALE x
// 50,000) are loaded by the seeder's bulk loader into fresh indices that differ only in that:
// `standard` (the mapping without the subfields and the normalizer, no analysis settings: the
// template before), `storefront` (the template as it is), and two cheaper forms of the same n-grams: `lean`
// (the `.partial` fields index documents only: no term frequencies, positions or norms; a prefix
// either matches or not, so the set of hits cannot change, only the scores within it; but a
// quoted phrase cannot be searched there) and `no-norms` (positions kept, norms dropped). Rounds
// alternate the order. Prints each one's docs/s (to the end of the load, refreshed) and its size
// merged to one segment, the median of the rounds, and the ratios to `storefront`; then the same
// hits check: BENCH_QUERIES searches of the profile's query log (every type: products, facets,
// categories, autocomplete) run on the `storefront` index and each candidate's, and each search's
// matching documents compared (all of them, not a page), with how often the first page differs.
// Figures from one run, never from a test.
//
//   BENCH_SCALE   share of the ci profile's 50,000 products (default 1)
//   BENCH_SEED    seed (default 1)
//   BENCH_ROUNDS  rounds of each (default 3), after one warm-up load of each (not counted: a
//                 fresh lab's first loads run on a cold JIT; the same hits check runs on these)
//   BENCH_QUERIES searches of the same hits check (default 2000)
//   BENCH_SAVE    a file to keep the result in too: seed-data/bench/results/bench-analysis.json is
//                 the committed run that make render shows (docs/benchmarks.md, seed-data/README.md)
//   ES_URL        as everywhere
import { readFileSync } from 'node:fs';
import { benchEnvironment, median, saveBenchResult } from '@tenantlab/contract/bench-result';
import { labRoot } from '@tenantlab/contract/lab-env-file';
import { loadConfig } from '../src/config.js';
import { generateTenants } from '@tenantlab/dataset/tenants';
import { interleavedItems } from '@tenantlab/dataset/catalog';
import { parseLine } from '@tenantlab/contract/querylog';
import { queryLogLines } from '../src/generate/querylog.js';
import { loadProfile } from '@tenantlab/dataset/profiles';
import { BulkLoader } from '../src/load/bulk-loader.js';
import { clusterUp, es, uid } from '../test/integration/harness.js';

const scale = Number(process.env.BENCH_SCALE ?? 1);
const seed = Number(process.env.BENCH_SEED ?? 1);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const queries = Number(process.env.BENCH_QUERIES ?? 2000);
for (const [k, v] of [['BENCH_SCALE', scale], ['BENCH_SEED', seed], ['BENCH_ROUNDS', rounds], ['BENCH_QUERIES', queries]]) {
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

/** The mapping with `with` set on every `.partial` subfield. */
export function withPartials(mapping, withSettings) {
  const change = (props) => Object.fromEntries(Object.entries(props).map(([name, f]) => {
    const fields = f.fields?.partial ? { ...f.fields, partial: { ...f.fields.partial, ...withSettings } } : f.fields;
    return [name, { ...f, ...(fields ? { fields } : {}), ...(f.properties ? { properties: change(f.properties) } : {}) }];
  }));
  return { ...mapping, properties: change(mapping.properties) };
}

const VARIANTS = {
  standard: { mappings: withoutAnalysis(MAPPING), analysis: null },
  storefront: { mappings: MAPPING, analysis: ANALYSIS },
  // documents only: no term frequencies, positions or norms (a phrase can no longer be searched there)
  lean: { mappings: withPartials(MAPPING, { index_options: 'docs', norms: false }), analysis: ANALYSIS },
  // positions kept (phrases still work), no norms
  'no-norms': { mappings: withPartials(MAPPING, { norms: false }), analysis: ANALYSIS },
};
const CANDIDATES = ['lean', 'no-norms'];
const NAMES = Object.keys(VARIANTS);


async function once(name, tenants, run, { keep = false } = {}) {
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
    return { index, docs, seconds, docsPerSecond: docs / seconds, bytes };
  } finally {
    if (!keep) await es.indices.delete({ index, ignore_unavailable: true });
  }
}

/** Every document a search matches (ids, sorted) and its first page (ids in order). */
async function hitsOf(index, query) {
  const { size = 10, aggs, sort, _source, ...rest } = query;
  const page = await es.search({ index, ...rest, ...(sort ? { sort } : {}), size, _source: false });
  // every match up to 10,000 (the default result window); past that, the count alone
  const all = await es.search({ index, ...rest, size: 10000, _source: false, track_total_hits: true });
  const total = all.hits.total.value;
  return { ids: total <= 10000 ? all.hits.hits.map((h) => h._id).sort() : [], total, page: page.hits.hits.map((h) => h._id) };
}

/** The same hits check: the query log's searches on two indices of the same documents. */
async function sameHits(a, b, tenants) {
  const out = { searches: 0, same_hits: 0, same_first_page: 0, by_type: {}, first_difference: null };
  for (const line of queryLogLines({ seed, tenants, lines: queries })) {
    const e = parseLine(line);
    const [x, y] = [await hitsOf(a, e.query), await hitsOf(b, e.query)];
    const same = x.total === y.total && x.ids.join() === y.ids.join();
    const t = (out.by_type[e.type] ??= { searches: 0, same_hits: 0, same_first_page: 0 });
    out.searches += 1; t.searches += 1;
    if (same) { out.same_hits += 1; t.same_hits += 1; }
    if (x.page.join() === y.page.join()) { out.same_first_page += 1; t.same_first_page += 1; }
    if (!same && !out.first_difference) out.first_difference = { type: e.type, query: e.query, totals: [x.total, y.total] };
  }
  return out;
}

async function main() {
  if (!(await clusterUp())) { console.error('bench-analysis: no lab answers at ES_URL; start one with `make up`'); process.exit(2); }
  const tenants = generateTenants({ seed, profile: loadProfile('ci'), scale, prefix: 'bench' });
  const total = tenants.reduce((a, t) => a + t.expected_products, 0);
  const run = uid();
  console.log(`bench-analysis: ${total} products (ci x ${scale}, seed ${seed}), ${rounds} rounds of ${NAMES.join(', ')}, one shard, no replica`);
  // the warm-up loads are kept for the same hits check, then deleted
  const warm = {};
  try {
    for (const name of NAMES) warm[name] = await once(name, tenants, `${run}-warm`, { keep: true });
    const results = Object.fromEntries(NAMES.map((n) => [n, []]));
    for (let r = 0; r < rounds; r++) {
      const order = r % 2 ? [...NAMES].reverse() : NAMES;
      for (const name of order) {
        const f = await once(name, tenants, `${run}-r${r}`);
        if (f.docs !== total) throw new Error(`${name}: ${f.docs} documents indexed, expected ${total}`);
        results[name].push(f);
        console.log(`  round ${r + 1} ${name.padEnd(10)} ${Math.round(f.docsPerSecond)} docs/s (${f.seconds.toFixed(1)} s), ${(f.bytes / 1048576).toFixed(1)} MiB merged`);
      }
    }
    const m = (name, k) => median(results[name].map((f) => f[k]));
    const result = {
      bench: 'bench-analysis',
      ...benchEnvironment(labRoot),
      profile: 'ci', scale, seed, documents: total, rounds, queries,
      index: { shards: 1, replicas: 0, refresh_interval: '1s' },
      variants: Object.fromEntries(NAMES.map((n) => [n, {
        median_rate: Math.round(m(n, 'docsPerSecond')), median_bytes: m(n, 'bytes'),
        rounds: results[n].map((f) => ({ rate: Math.round(f.docsPerSecond), seconds: Math.round(f.seconds * 1000) / 1000, bytes: f.bytes })),
      }])),
      candidates: {},
    };
    console.log(`median: ${NAMES.map((n) => `${n} ${Math.round(m(n, 'docsPerSecond'))} docs/s, ${(m(n, 'bytes') / 1048576).toFixed(1)} MiB`).join('; ')}`);
    for (const n of ['standard', ...CANDIDATES]) {
      console.log(`${n} / storefront: seeding rate ${(m(n, 'docsPerSecond') / m('storefront', 'docsPerSecond')).toFixed(2)}x, index size ${(m(n, 'bytes') / m('storefront', 'bytes')).toFixed(2)}x`);
    }
    for (const n of CANDIDATES) {
      const h = await sameHits(warm.storefront.index, warm[n].index, tenants);
      const types = Object.entries(h.by_type).map(([t, x]) => `${t} ${x.same_hits}/${x.searches}`).join(', ');
      console.log(`same hits, ${n} against storefront: ${h.same_hits} of ${h.searches} searches match the same documents (${types}); the same first page in ${h.same_first_page} of ${h.searches}`);
      if (h.first_difference) console.log(`  first difference: ${h.first_difference.type}, ${h.first_difference.totals.join(' vs ')} hits: ${JSON.stringify(h.first_difference.query)}`);
      // a shopper's quoted words are a phrase: does the candidate still answer one? (two words: one alone is a term)
      const phrase = await es.search({ index: warm[n].index, size: 1, query: { simple_query_string: { query: '"classic lamp"', fields: ['name.partial'] } } }).then(() => 'answered', (err) => `refused (${err.meta?.body?.error?.root_cause?.[0]?.reason ?? err.message})`);
      console.log(`  a quoted phrase on name.partial: ${phrase}`);
      result.candidates[n] = { searches: h.searches, same_hits: h.same_hits, same_first_page: h.same_first_page, by_type: h.by_type, first_difference: h.first_difference, phrase };
    }
    const [where, saved] = saveBenchResult('bench-analysis', result, { labDir: loadConfig().labDir });
    console.log(`result: ${where}${saved ? ` (and ${saved})` : ''}`);
  } finally {
    for (const f of Object.values(warm)) await es.indices.delete({ index: f.index, ignore_unavailable: true });
  }
}

main().catch((err) => { console.error(`bench-analysis: ${err.message}`); process.exit(1); });
