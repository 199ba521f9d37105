import assert from 'node:assert/strict';
import { test } from 'node:test';
import { generateTenants } from '@tenantlab/dataset/tenants';
import { loadProfile } from '@tenantlab/dataset/profiles';
import { catalogItems } from '@tenantlab/dataset/catalog';
import { queryLogLines } from '../../src/generate/querylog.js';
import { mergesRunning, nodesKey, percentile, SCRATCH_INDEX, scratchBulks, scratchIndexBody, warmFigures, warmRequests, warmUp, warmWrites } from '../../src/warm/warm.js';

const tenants = generateTenants({ seed: 1, profile: loadProfile('ci'), prefix: 'wm' });

test('nodesKey: the same nodes in any order give one key; a restarted node changes it', () => {
  const a = { nodes: { x: { jvm: { start_time_in_millis: 10 } }, y: { jvm: { start_time_in_millis: 20 } } } };
  const b = { nodes: { y: { jvm: { start_time_in_millis: 20 } }, x: { jvm: { start_time_in_millis: 10 } } } };
  const restarted = { nodes: { x: { jvm: { start_time_in_millis: 30 } }, y: { jvm: { start_time_in_millis: 20 } } } };
  assert.equal(nodesKey(a), 'x@10,y@20');
  assert.equal(nodesKey(a), nodesKey(b));
  assert.notEqual(nodesKey(a), nodesKey(restarted));
  assert.equal(nodesKey({}), '');
});

test('percentile: nearest rank; warmFigures: the first and the last 5 s window', () => {
  assert.equal(percentile([], 95), null);
  assert.equal(percentile([3, 1, 2], 50), 2);
  assert.equal(percentile(Array.from({ length: 100 }, (_, i) => i + 1), 95), 95);
  const samples = [
    ...Array.from({ length: 20 }, (_, i) => ({ at: i * 100, ms: 500 + i })), // 0-2 s: cold
    ...Array.from({ length: 20 }, (_, i) => ({ at: 10000 + i * 100, ms: 100 + i })), // 10-12 s: warm
  ];
  const f = warmFigures(samples);
  assert.equal(f.first_p95_ms, 518); // nearest rank: the 19th of 20
  assert.equal(f.last_p95_ms, 118);
  assert.equal(f.p95_ms, 517); // the 38th of 40
  // one window only: no "last" to compare
  assert.equal(warmFigures(samples.slice(0, 5)).last_p95_ms, null);
});

test('warmRequests: the log\'s searches through each store\'s alias, without the stats group', () => {
  const reqs = warmRequests([...queryLogLines({ seed: 1, tenants, lines: 50 })]);
  assert.equal(reqs.length, 50);
  for (const r of reqs) {
    assert.equal(r.index, `tenant-${r.storeId}`);
    assert.equal(r.body.stats, undefined, 'a warm-up search counted in a tenant\'s cost');
    assert.ok(r.body.query);
  }
});

test('scratchIndexBody: the products mapping and analysis, one shard per data node, no replica', () => {
  const products = { settings: { index: { number_of_shards: '2', analysis: { analyzer: { a: { type: 'custom', tokenizer: 'standard' } } }, routing: { allocation: { include: { group: 'g1' } } } } }, mappings: { dynamic: 'strict', properties: { name: { type: 'text' } } } };
  const body = scratchIndexBody(products, 4);
  assert.equal(body.settings['index.number_of_shards'], 4);
  assert.equal(body.settings['index.number_of_replicas'], 0);
  assert.equal(body.settings['index.routing.allocation.total_shards_per_node'], 1);
  assert.deepEqual(body.settings['index.analysis'], products.settings.index.analysis);
  assert.deepEqual(body.mappings, products.mappings);
  // not pinned to the products index's group: every data node compiles the write path
  assert.ok(!JSON.stringify(body.settings).includes('g1'));
});

test('scratchBulks: every item once, `docs` per bulk, aimed at the scratch index with the write contract\'s versions', () => {
  const items = [...catalogItems(1, tenants.slice(0, 2))];
  const bodies = [...scratchBulks(items, 7)];
  assert.equal(bodies.length, Math.ceil(items.length / 7));
  const actions = bodies.flatMap((b) => b.trimEnd().split('\n').filter((_, i) => i % 2 === 0)).map((l) => JSON.parse(l).index);
  assert.equal(actions.length, items.length);
  assert.ok(actions.every((a) => a._index === SCRATCH_INDEX && a.version_type === 'external_gte'));
  assert.deepEqual(actions.map((a) => a._id), items.map((i) => i.id));
});

// A clock the fake client advances: pure loop logic, no cluster
function fakeClock() {
  let t = 0;
  return { now: () => t, advance: (ms) => { t += ms; } };
}

test('warmUp: keeps `inFlight` searches going until the deadline; a store gone (404) is skipped after once', async () => {
  const clock = fakeClock();
  const seen = [];
  const client = {
    transport: {
      async request({ path }) {
        seen.push(path);
        clock.advance(10);
        if (path.includes('gone')) throw Object.assign(new Error('index_not_found'), { meta: { statusCode: 404 } });
        if (path.includes('bad')) throw Object.assign(new Error('boom'), { meta: { statusCode: 500 } });
        return {};
      },
    },
  };
  const reqs = [{ index: 'tenant-a', storeId: 'a', body: {} }, { index: 'tenant-gone', storeId: 'gone', body: {} }, { index: 'tenant-bad', storeId: 'bad', body: {} }];
  const r = await warmUp(client, reqs, { seconds: 1, inFlight: 2, now: clock.now });
  assert.equal(r.missing, 1);
  assert.equal(seen.filter((p) => p.includes('gone')).length, 1);
  assert.ok(r.errors > 0);
  assert.equal(r.requests, seen.length);
  assert.equal(r.samples.length, seen.filter((p) => p.includes('tenant-a')).length);
  assert.ok(r.seconds >= 1 && r.seconds < 1.1, `ran ${r.seconds} s`);
  // nothing to send: no loop at all
  assert.equal((await warmUp(client, [], { seconds: 1, now: clock.now })).requests, 0);
});

test('warmUp: on past `seconds` while busy() says the cluster is settling, never past maxSeconds', async () => {
  const clock = fakeClock();
  const client = { transport: { async request() { clock.advance(10); return {}; } } };
  const reqs = [{ index: 'tenant-a', storeId: 'a', body: {} }];
  let checks = 0;
  // busy for the first two checks (merges running), then settled
  let r = await warmUp(client, reqs, { seconds: 1, inFlight: 1, now: clock.now, maxSeconds: 60, busy: async () => ++checks <= 2 });
  assert.equal(checks, 3);
  assert.ok(r.seconds >= 5 && r.seconds < 5.1, `ran ${r.seconds} s: 1 s, then 2 s twice`);
  assert.ok(r.extended_s >= 4 && r.extended_s < 4.1);
  assert.equal(r.samples.length, r.requests);
  assert.ok(r.samples.at(-1).at > 4000, 'the samples of the extension are timed from the start');
  // always busy: stops at maxSeconds
  r = await warmUp(client, reqs, { seconds: 1, inFlight: 1, now: clock.now, maxSeconds: 7, busy: async () => true });
  assert.ok(r.seconds >= 7 && r.seconds < 7.1, `ran ${r.seconds} s`);
  // never busy, or no busy(): just `seconds`
  r = await warmUp(client, reqs, { seconds: 1, inFlight: 1, now: clock.now, busy: async () => false });
  assert.ok(r.seconds < 1.1 && r.extended_s === 0);
});

test('mergesRunning: the merges running on every node, summed', async () => {
  const client = { nodes: { async stats(params) {
    assert.deepEqual(params.index_metric, 'merge');
    return { nodes: { a: { indices: { merges: { current: 2 } } }, b: { indices: { merges: { current: 0 } } }, c: {} } };
  } } };
  assert.equal(await mergesRunning(client), 2);
  assert.equal(await mergesRunning({ nodes: { stats: async () => ({}) } }), 0);
});

test('warmWrites: one bulk per `everyMs`, stops at the deadline, counts stored documents', async () => {
  const clock = fakeClock();
  const client = {
    transport: {
      async request({ bulkBody }) {
        clock.advance(100);
        const n = bulkBody.trimEnd().split('\n').length / 2;
        return { errors: false, items: Array.from({ length: n }, () => ({ index: { status: 201 } })) };
      },
    },
  };
  const bodies = scratchBulks(catalogItems(1, tenants), 10);
  const r = await warmWrites(client, bodies, { deadline: 3500, everyMs: 1000, now: clock.now, sleep: async (ms) => clock.advance(ms) });
  assert.equal(r.bulks, 4); // at 0, 1000, 2000, 3000
  assert.equal(r.documents, 40);
  assert.equal(r.errors, 0);
});
