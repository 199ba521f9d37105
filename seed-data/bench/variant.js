// One baseline load in a process of its own, as the seeder runs in its own: its CPU is its own
// and nothing warmed up by an earlier round helps it. Used by bench/seed.js:
//   node bench/variant.js naive|helper|ceiling '<json: esUrl, allocatorUrl, seed, scale, prefix, flushBytes, concurrency, stateDir>'
// The tenants already exist (created through the allocator). Prints one JSON line:
//   { docs, seconds, cpu, verified }   seconds and cpu: the load alone (settings in and out)
// helper and ceiling load like the seeder does (same order, same initial-load settings: refresh
// -1 and 0 replicas while loading, restored after), so only the client differs; naive is what
// a first loader looks like (defaults, one node, one request at a time).
import { aliasFor } from '@tenantlab/contract/naming';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AllocatorClient as AllocatorApi } from '@tenantlab/contract/allocator-client';
import { balancedItems, catalogItems } from '@tenantlab/dataset/catalog';
import { generateTenants } from '@tenantlab/dataset/tenants';
import { applyInitialLoadSettings, emptyIndices, indicesOfTenants } from '../src/load/initial-load-settings.js';
import { dataNodesClient, entryClient } from '../src/load/cluster.js';
import { loadProfile } from '@tenantlab/dataset/profiles';
import { compareCounts, countTenants } from '../src/verify/counts.js';
import { readChunks, sendChunks, writeChunks } from './ceiling.js';
import { helperLoad } from './helper-loader.js';
import { naiveLoad } from './naive-loader.js';

const [name, json] = process.argv.slice(2);
if (!json) {
  console.error('usage: node bench/variant.js naive|helper|ceiling CONFIG_JSON (bench/seed.js runs it)');
  process.exit(2);
}
const cfg = JSON.parse(json);
const tenants = generateTenants({ seed: cfg.seed, profile: loadProfile('ci'), scale: cfg.scale, prefix: cfg.prefix });
const entry = entryClient(cfg.esUrl);

// the allocator's placement of the stores, asked once: their groups (the seeder's order) and indices (its initial-load settings)
let placement = null;
const placed = async () => (placement ??= await new AllocatorApi(cfg.allocatorUrl).listTenants());

/** The seeder's document order: every index group's share advancing together, the biggest stores first. */
async function seederOrder() {
  const groupOf = new Map((await placed()).map((t) => [t.id, t.group]));
  return () => balancedItems(cfg.seed, tenants, { groupOf: (t) => groupOf.get(t.id) });
}

/** Runs load() between the seeder's initial-load settings and their restore; times that. */
async function timed(load, { initialLoad }) {
  let settings = { restore: async () => {} };
  if (initialLoad) {
    // the indices the allocator placed the stores in, as the seeder takes them from its placement
    const indexOf = new Map((await placed()).map((t) => [t.id, t.index]));
    const indices = await emptyIndices(entry, indicesOfTenants(tenants, indexOf));
    settings = await applyInitialLoadSettings(entry, indices, join(cfg.stateDir, 'initial-load-settings.json'));
  }
  const c0 = process.cpuUsage();
  const t0 = Date.now();
  try {
    const docs = await load();
    await settings.restore();
    const c = process.cpuUsage(c0);
    return { docs, seconds: (Date.now() - t0) / 1000, cpu: (c.user + c.system) / 1e6 };
  } finally {
    await settings.restore();
  }
}

async function main() {
  let result;
  if (name === 'naive') {
    result = await timed(() => naiveLoad(cfg.esUrl, catalogItems(cfg.seed, tenants)), { initialLoad: false });
  } else if (name === 'helper') {
    const order = await seederOrder();
    const { client } = await dataNodesClient(entry, cfg.esUrl);
    result = await timed(() => helperLoad({ client, items: order(), flushBytes: cfg.flushBytes, concurrency: cfg.concurrency }), { initialLoad: true });
    await client.close();
  } else if (name === 'ceiling') {
    const order = await seederOrder();
    const dir = mkdtempSync(join(tmpdir(), 'seed-bench-ndjson-'));
    try {
      writeChunks(order(), dir, cfg.flushBytes);
      const chunks = readChunks(dir);
      const { nodes } = await dataNodesClient(entry, cfg.esUrl);
      result = await timed(() => sendChunks({ nodes, chunks, concurrency: cfg.concurrency }), { initialLoad: true });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  } else throw new Error(`unknown variant '${name}'`);
  // Verified as the seeder verifies itself: every tenant's count through its alias.
  await entry.indices.refresh({ index: tenants.map((t) => aliasFor(t.id)).join(',') });
  const bad = compareCounts(tenants, await countTenants(entry, tenants.map((t) => t.id)));
  if (bad.length) throw new Error(`${name}: ${bad.length} tenants do not match the manifest (${bad.slice(0, 3).map((b) => `${b.id} ${b.actual}/${b.expected}`).join(', ')})`);
  result.verified = tenants.reduce((a, t) => a + t.expected_products, 0);
  console.log(JSON.stringify(result));
}

main()
  .then(() => entry.close())
  .catch((err) => {
    console.error(`error: ${err.message}`);
    process.exit(1);
  });
