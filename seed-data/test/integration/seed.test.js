// Seeding the real cluster through the real allocator. Figures: the ci profile at
// SEED_IT_SCALE (default 0.2: 20 stores, 10,000 products) for the load tests, and a separate
// ci load at SEED_IT_KILL_SCALE (default 0.4: 20,000 products) during which a data node is
// killed and restarted, when SEED_IT_KILL_CMD and SEED_IT_RESTART_CMD are given, e.g.
//   SEED_IT_KILL_CMD='scripts/lab kill es-data-3' SEED_IT_RESTART_CMD='scripts/lab restart es-data-3'
// (run from the repository root, with the LAB_DIR of the lab under test).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { generateTenants } from '@tenantlab/dataset/tenants';
import { queryLogLines } from '../../src/generate/querylog.js';
import { loadProfile } from '@tenantlab/dataset/profiles';
import { aliasFor } from '@tenantlab/contract/naming';
import { parseLines, searchRequestOf } from '@tenantlab/contract/querylog';
import { aliasCounts, clusterUp, es, esUrl, runShell, seedCli, sleep, startAllocator, uid } from './harness.js';

// No cluster is a failure of every test, with its reason, never a skip: a suite that skips when
// Elasticsearch is down passes having tested nothing.
const up = await clusterUp();
const down = up ? null : `no healthy Elasticsearch at ${esUrl}: the seeder's integration tests need the lab (make up) or ES_URL= a cluster`;
const needCluster = () => {
  if (down) assert.fail(down);
};
const scale = Number(process.env.SEED_IT_SCALE ?? 0.2);
const killScale = Number(process.env.SEED_IT_KILL_SCALE ?? 0.4);
const prefix = `sdit${uid()}`;
const tenants = generateTenants({ seed: 1, profile: loadProfile('ci'), scale, prefix });
let allocator;
let args;
const argsFor = (seed) => ['-p', 'ci', '--seed', String(seed), '--scale', String(scale), '--tenant-prefix', prefix, '--allocator', allocator.url, '--wait-green', '60'];

before(async () => {
  if (down) return;
  allocator = await startAllocator();
  args = argsFor(1);
});

after(async () => {
  if (down || !allocator) return;
  await seedCli(['delete', ...args]).catch(() => {});
  await allocator.stop();
  await es.close();
});

async function assertExactCounts(list) {
  const counts = await aliasCounts(list.map((t) => t.id));
  for (const t of list) assert.equal(counts.get(t.id), t.expected_products, `${t.id}: ${counts.get(t.id)} documents, manifest ${t.expected_products}`);
}

test('seeding the ci profile ends with exact counts per tenant', async () => {
  needCluster();
  const r = await seedCli(['seed', ...args]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /every tenant matches the manifest/);
  await assertExactCounts(tenants);
  // The load settings are back: the allocator's refresh and replicas.
  const idx = Object.keys(await es.indices.getAlias({ name: aliasFor(`${prefix}-*`) }));
  const s = await es.indices.getSettings({ index: idx.join(','), flat_settings: true });
  for (const i of idx) {
    assert.notEqual(s[i].settings['index.refresh_interval'], '-1', `${i} left with refresh -1`);
    assert.notEqual(s[i].settings['index.number_of_replicas'], '0', `${i} left with 0 replicas`);
  }
  // ... and in place when the seeder returns (a settled lab for the first make load): asked
  // without waiting
  const h = await es.cluster.health({ index: idx.join(','), timeout: '0s' });
  assert.equal(h.status, 'green', `the seeded indices are ${h.status} when the seeder returns (${h.initializing_shards} initializing, ${h.unassigned_shards} unassigned)`);
});

test('re-running the same profile duplicates nothing', async () => {
  needCluster();
  const r = await seedCli(['seed', ...args, '--keep-settings']);
  assert.equal(r.code, 0, r.stderr);
  await assertExactCounts(tenants);
  const total = await es.count({ index: aliasFor(`${prefix}-*`), query: { prefix: { store_id: `${prefix}-` } } });
  assert.equal(total.count, tenants.reduce((a, t) => a + t.expected_products, 0));
});

test('every query of the query log returns hits for its store', async () => {
  needCluster();
  const entries = [...parseLines([...queryLogLines({ seed: 1, tenants, lines: 1000 })])];
  const empty = [];
  for (let i = 0; i < entries.length; i += 100) {
    const chunk = entries.slice(i, i + 100);
    const res = await es.msearch({ searches: chunk.flatMap((e) => { const q = searchRequestOf(e); return [{ index: q.index }, q.body]; }) });
    res.responses.forEach((r, k) => {
      if (r.error || r.hits.total.value === 0) empty.push(`${chunk[k].type} ${JSON.stringify(chunk[k].query).slice(0, 200)} ${r.error?.reason ?? ''}`);
      else assert.ok(r.hits.hits.every((h) => h._source === undefined || h._source.store_id === undefined || h._source.store_id === chunk[k].storeId));
    });
  }
  assert.deepEqual(empty, []);
});

test('resubmit re-sends a whole catalog with a new updated_at; counts stay exact', async () => {
  needCluster();
  const t = tenants.find((x) => x.expected_products >= 20);
  const before = Date.now();
  const r = await seedCli(['resubmit', ...args, '--tenant', t.id]);
  assert.equal(r.code, 0, r.stderr);
  await assertExactCounts(tenants);
  const old = await es.count({ index: aliasFor(t.id), query: { range: { updated_at: { lt: before } } } });
  assert.equal(old.count, 0, 'documents that were not re-sent');
});

test('update changes price and inventory of a share of one tenant\'s products', async () => {
  needCluster();
  const t = [...tenants].sort((a, b) => b.expected_products - a.expected_products)[0];
  const before = Date.now();
  const r = await seedCli(['update', ...args, '--tenant', t.id, '--fraction', '0.05']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /price and inventory changed on \d+ products/);
  await assertExactCounts(tenants);
  const changed = await es.count({ index: aliasFor(t.id), query: { range: { updated_at: { gte: before } } } });
  assert.equal(changed.count, Math.round(t.expected_products * 0.05));
  // A later re-seed carries older versions: the updates win, nothing is duplicated.
  const again = await seedCli(['seed', ...args, '--keep-settings', '--tenant', t.id]);
  assert.equal(again.code, 0, again.stderr);
  assert.match(again.stdout, /already newer/);
  const still = await es.count({ index: aliasFor(t.id), query: { range: { updated_at: { gte: before } } } });
  assert.equal(still.count, changed.count);
});

test('a tenant that exists with a different spec stops the run before anything is loaded', async () => {
  needCluster();
  const r = await seedCli(['seed', ...argsFor(2)]);
  assert.equal(r.code, 2);
  assert.match(r.stderr.trim(), /^error: \d+ tenant\(s\) already exist with a different spec: .*expected_products|^error: \d+ tenant\(s\) already exist with a different spec/);
  assert.equal(r.stderr.trim().split('\n').length, 1);
});

const killCmd = process.env.SEED_IT_KILL_CMD;
const restartCmd = process.env.SEED_IT_RESTART_CMD;
test('killing a data node during seeding still ends with exact counts', { skip: up && !killCmd && 'set SEED_IT_KILL_CMD and SEED_IT_RESTART_CMD', timeout: 900000 }, async (t) => {
  needCluster();
  const kprefix = `sdik${uid()}`;
  const ktenants = generateTenants({ seed: 3, profile: loadProfile('ci'), scale: killScale, prefix: kprefix });
  const kargs = ['-p', 'ci', '--seed', '3', '--scale', String(killScale), '--tenant-prefix', kprefix, '--allocator', allocator.url, '--wait-green', '120', '--bulk-bytes', '1mb'];
  let killed = false;
  let restarted;
  let killError;
  const run = seedCli(['seed', ...kargs], {
    env: { SEED_PROGRESS_INTERVAL_MS: '500' },
    onStderr(chunk) {
      // Kill once the load is well under way, restart a few seconds later.
      const m = /seed: (\d+)\/\d+ docs/.exec(chunk);
      if (!killed && m && Number(m[1]) > 2000) {
        killed = true;
        restarted = runShell(killCmd)
          .then(() => sleep(5000))
          .then(() => runShell(restartCmd))
          .catch((err) => (killError = err));
      }
    },
  });
  const r = await run;
  await restarted;
  try {
    assert.ifError(killError);
    assert.ok(killed, `the load ended before a node could be killed:\n${r.stderr}`);
    assert.equal(r.code, 0, r.stderr);
    t.diagnostic(r.stdout.trim());
    await assertExactCounts(ktenants);
    const h = await es.cluster.health({ wait_for_status: 'green', timeout: '180s' });
    assert.equal(h.status, 'green');
  } finally {
    await seedCli(['delete', ...kargs]);
  }
});
