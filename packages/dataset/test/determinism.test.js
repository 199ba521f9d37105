import assert from 'node:assert/strict';
import { test } from 'node:test';
import { balancedItems, catalogItems, interleavedItems } from '../src/catalog.js';
import { makeProduct } from '../src/products.js';
import { generateTenants } from '../src/tenants.js';
import { loadProfile } from '../src/profiles.js';

test('a product is the same whether generated in order, out of order, or alone', () => {
  const tenants = generateTenants({ seed: 5, profile: loadProfile('ci'), scale: 0.05, prefix: 'det' });
  const inOrder = [...catalogItems(5, tenants)];
  const t = tenants[0];
  for (const i of [t.expected_products - 1, 0, Math.floor(t.expected_products / 2)]) {
    assert.equal(JSON.stringify(makeProduct(5, t, i)), inOrder[i].source);
  }
});

test('ids are deterministic and unique: <tenant>:<product id>', () => {
  const tenants = generateTenants({ seed: 1, profile: loadProfile('ci'), scale: 0.05, prefix: 'det' });
  const ids = new Set();
  let n = 0;
  for (const it of catalogItems(1, tenants)) {
    assert.match(it.id, /^det-\d{4}:\d+$/);
    ids.add(it.id);
    n += 1;
  }
  assert.equal(ids.size, n);
  assert.equal(n, tenants.reduce((a, t) => a + t.expected_products, 0));
});

test('versions are the documents\' updated_at in epoch ms (the write contract)', () => {
  const tenants = generateTenants({ seed: 1, profile: loadProfile('ci'), scale: 0.01, prefix: 'det' });
  for (const it of catalogItems(1, tenants)) assert.equal(it.version, Date.parse(JSON.parse(it.source).updated_at));
  const stamped = [...catalogItems(1, tenants.slice(0, 1), { updatedAt: 1800000000123 })];
  assert.ok(stamped.every((it) => it.version === 1800000000123 && JSON.parse(it.source).updated_at === '2027-01-15T08:00:00.123Z'));
});

test('memory stays flat while streaming a large profile', () => {
  const tenants = generateTenants({ seed: 1, profile: loadProfile('large'), prefix: 'mem' });
  assert.equal(tenants.reduce((a, t) => a + t.expected_products, 0), 10000000);
  const it = catalogItems(1, tenants);
  const step = () => {
    for (let i = 0; i < 50000; i++) it.next();
  };
  step();
  global.gc?.();
  const before = process.memoryUsage().heapUsed;
  for (let k = 0; k < 6; k++) step();
  global.gc?.();
  const grown = process.memoryUsage().heapUsed - before;
  assert.ok(grown < 32 * 1024 * 1024, `heap grew by ${Math.round(grown / 1048576)} MB over 300k documents`);
});

test('interleaving changes the order, never the documents', () => {
  const tenants = generateTenants({ seed: 4, profile: loadProfile('ci'), scale: 0.05, prefix: 'il' });
  const plain = [...catalogItems(4, tenants)];
  const mixed = [...interleavedItems(4, tenants, { lanes: 4, chunk: 7 })];
  assert.equal(mixed.length, plain.length);
  const key = (it) => `${it.id} ${it.version} ${it.source}`;
  assert.deepEqual(mixed.map(key).sort(), plain.map(key).sort());
  assert.notDeepEqual(mixed.map((it) => it.id), plain.map((it) => it.id));
  // Within a tenant, products still come in order (a resumed load re-sends from the start).
  const seen = new Map();
  for (const it of mixed) {
    const [tenant, n] = it.id.split(':');
    assert.ok(Number(n) === (seen.get(tenant) ?? 0) + 1);
    seen.set(tenant, Number(n));
  }
});

test('the balanced schedule: the same documents, every group busy to the end, the biggest store first', () => {
  const tenants = generateTenants({ seed: 5, profile: loadProfile('ci'), scale: 0.05, prefix: 'bal' });
  const groupOf = (t) => (t.index % 2 ? 'g1' : 'g2');
  const plain = [...catalogItems(5, tenants)];
  const chunk = 7;
  const balanced = [...balancedItems(5, tenants, { groupOf, chunk })];
  const key = (it) => `${it.id} ${it.version} ${it.source}`;
  assert.equal(balanced.length, plain.length);
  assert.deepEqual(balanced.map(key).sort(), plain.map(key).sort());
  // each store's products in their own order (a resumed load re-sends from the start)
  const seen = new Map();
  for (const it of balanced) {
    const [tenant, n] = it.id.split(':');
    assert.equal(Number(n), (seen.get(tenant) ?? 0) + 1);
    seen.set(tenant, Number(n));
  }
  // every group's share sent stays within a chunk of the others', to the last document
  const byId = new Map(tenants.map((t) => [t.id, t]));
  const total = { g1: 0, g2: 0 };
  for (const t of tenants) total[groupOf(t)] += t.expected_products;
  assert.ok(total.g1 > 0 && total.g2 > 0 && total.g1 !== total.g2, 'the two groups differ in size');
  const sent = { g1: 0, g2: 0 };
  let worst = 0;
  for (const it of balanced) {
    sent[groupOf(byId.get(it.tenant))] += 1;
    worst = Math.max(worst, Math.abs(sent.g1 / total.g1 - sent.g2 / total.g2));
  }
  assert.ok(worst <= chunk / Math.min(total.g1, total.g2) + 1e-9, `groups drifted apart by ${worst}`);
  // within a group, the store with the most documents starts first
  for (const g of ['g1', 'g2']) {
    const biggest = tenants.filter((t) => groupOf(t) === g).sort((a, b) => b.expected_products - a.expected_products)[0];
    const first = balanced.find((it) => groupOf(byId.get(it.tenant)) === g);
    assert.equal(first.tenant, biggest.id);
  }
  // deterministic
  assert.deepEqual([...balancedItems(5, tenants, { groupOf, chunk })].map((it) => it.id), balanced.map((it) => it.id));
});
