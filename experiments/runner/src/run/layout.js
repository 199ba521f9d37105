// One variant's layout: its indices (shards, replicas, refresh interval, index group), one
// filtered alias per tenant in that variant (the storefront reaches a tenant only through it, as
// in the lab), the stores assigned to the indices as the variant says, the documents loaded by
// the seeder's bulk loader (the same generated documents, same SEED, in every variant), then
// the variant's settings put back and every shard force-merged to the same segment count, so the
// layout is the only difference between variants.
import { readFileSync } from 'node:fs';
import { experimentAlias, experimentIndexName } from '@tenantlab/contract/naming';
import { interleavedItems } from '@tenantlab/dataset/catalog';
import { BulkLoader } from 'tenantlab-seed-data/bulk-loader';
import { RunError } from '../errors.js';
import { forEachUrlBatch } from '@tenantlab/contract/bounded';

// the lab's products contract: the allocator's template mapping and the analysis it refers to
const schema = (file) => JSON.parse(readFileSync(new URL(`../../../../allocator/schema/${file}`, import.meta.url), 'utf8'));
const MAPPING = schema('products-mapping.json');
const ANALYSIS = schema('products-analysis.json');

/** A variant as these functions (and lab-check.js's) take it: its name beside its settings. */
export const flatVariant = (v) => ({ name: v.name, ...v.settings });

/** The store number of a generated tenant (its position, from 1): odd/even assignment uses it. */
const storeNumber = (t) => t.index + 1;

/** Which of the variant's indices (0-based) a tenant goes to. */
export function indexOfTenant(variant, tenant) {
  switch (variant.assign) {
    case 'all': return 0;
    case 'odd-even': return storeNumber(tenant) % 2 === 1 ? 0 : 1;
    case 'round-robin': return tenant.index % variant.indices;
    default: throw new RunError(`variant ${variant.name}: unknown assign '${variant.assign}'`);
  }
}

/** The names of one variant's layout: indices and each tenant's alias and index. */
export function layoutNames(runId, variant, tenants) {
  const indices = Array.from({ length: variant.indices }, (_, i) => experimentIndexName(runId, variant.name, i));
  const tenantsOut = tenants.map((t) => ({
    id: t.id, alias: experimentAlias(runId, variant.name, t.id), index: indices[indexOfTenant(variant, t)],
    // odd or even store number: the article's two halves, whichever index holds them
    set: storeNumber(t) % 2 === 1 ? 'odd' : 'even',
    weight: t.traffic_weight, documents: t.expected_products,
  }));
  return { indices, tenants: tenantsOut };
}

const filterPath = { filter_path: 'acknowledged' };

/**
 * Creates the indices (no replicas, no refresh while loading) and the tenants' aliases. An index
 * is held to the variant's group; with group `spread`, index i to the i-th of `groups` (the
 * lab's index groups in order: odd stores on g1, even on g2 for two indices).
 */
export async function createLayout(client, { variant, groupAttr, names, groups = [] }) {
  for (const [i, index] of names.indices.entries()) {
    const settings = {
      'index.number_of_shards': variant.shards,
      'index.number_of_replicas': 0,
      'index.refresh_interval': '-1',
      'index.analysis.analyzer.default.type': 'standard',
      analysis: ANALYSIS,
      // store sizes read right after the force-merge, not 10 s old (the default cache)
      'index.store.stats_refresh_interval': '0s',
    };
    const group = variant.group === 'spread' ? groups[i] : variant.group;
    if (!group) throw new RunError(`variant ${variant.name}: no index group for its index ${i + 1} (the lab has ${groups.join(', ') || 'none'})`);
    if (group !== 'all') settings[`index.routing.allocation.require.${groupAttr}`] = group;
    await client.indices.create({ index, settings, mappings: { ...MAPPING, _meta: { tenantlab: { kind: 'experiment', variant: variant.name } } }, wait_for_active_shards: 'all' });
  }
  const actions = names.tenants.map((t) => ({
    add: { index: t.index, alias: t.alias, filter: { term: { store_id: t.id } }, is_write_index: true },
  }));
  for (let i = 0; i < actions.length; i += 500) {
    await client.indices.updateAliases({ actions: actions.slice(i, i + 500) }, { querystring: filterPath });
  }
}

/** Loads every tenant's catalog through its alias in this variant; returns documents acknowledged. */
export async function loadLayout(client, { seed, tenants, names, concurrency = 2 }) {
  const aliasOf = new Map(names.tenants.map((t) => [t.id, t.alias]));
  const items = (function* withAliases() {
    for (const item of interleavedItems(seed, tenants)) yield { ...item, alias: aliasOf.get(item.tenant) };
  })();
  const loader = new BulkLoader({ client, concurrency, flushBytes: 2 * 1024 * 1024 });
  await loader.load(items);
  return loader.stats.indexed + loader.stats.superseded;
}

/**
 * The variant's own settings back, merged, green. The merge comes first, on the primaries alone
 * and flushed: the replicas are then built by copying the merged files, instead of replaying
 * the whole load's translog and merging again (twice as fast on 200k documents).
 */
export async function finishLayout(client, { variant, names, timeout = '300s' }) {
  // each step over every index before the next, in request lines of bounded length
  const each = (fn) => forEachUrlBatch(names.indices, fn);
  await each((index) => client.indices.refresh({ index }));
  await each((index) => client.indices.forcemerge({ index, max_num_segments: variant.segments, wait_for_completion: true }, { requestTimeout: 3600000 }));
  await each((index) => client.indices.flush({ index }));
  await each((index) => client.indices.putSettings({ index, settings: { 'index.number_of_replicas': variant.replicas, 'index.refresh_interval': variant.refresh_interval } }));
  for (const health of await each((index) => client.cluster.health({ index, wait_for_status: 'green', wait_for_no_relocating_shards: true, wait_for_no_initializing_shards: true, timeout }, { requestTimeout: 330000 }))) {
    if (health.status !== 'green') throw new RunError(`variant ${variant.name}: its indices are ${health.status}, not green, ${timeout} after loading`);
  }
  await each((index) => client.indices.refresh({ index }));
}

const median = (xs) => {
  if (!xs.length) return null;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/** Facts of the built layout: shard counts, median primary shard size, documents, segments. */
export async function layoutFacts(client, names) {
  const shards = (await forEachUrlBatch(names.indices, (index) => client.cat.shards({ index, format: 'json', bytes: 'b', h: 'index,shard,prirep,state,docs,store,segments.count' }))).flat();
  const primaries = shards.filter((s) => s.prirep === 'p');
  const segments = primaries.map((s) => Number(s['segments.count'] ?? 0));
  return {
    indices: names.indices,
    shard_count: shards.length,
    primary_shards: primaries.length,
    median_shard_bytes: median(primaries.map((s) => Number(s.store))),
    // _count, not the shards' docs: those count every nested variant as a Lucene document
    docs: (await forEachUrlBatch(names.indices, (index) => client.count({ index }))).reduce((a, r) => a + r.count, 0),
    bytes: primaries.reduce((a, s) => a + Number(s.store), 0),
    segments_per_shard: median(segments),
  };
}
