import assert from 'node:assert/strict';
import { test } from 'node:test';
import { catalogItems, interleavedItems, spreadOrder } from '../src/catalog.js';
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
  const ordered = spreadOrder(tenants, (t) => `idx-${t.index % 3}`);
  assert.deepEqual(new Set(ordered.map((t) => t.id)).size, tenants.length);
  for (let i = 1; i < 3; i++) assert.notEqual(ordered[i].index % 3, ordered[i - 1].index % 3, 'neighbours share an index');
  const mixed = [...interleavedItems(4, ordered, { lanes: 4, chunk: 7 })];
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
