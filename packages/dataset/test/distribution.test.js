import assert from 'node:assert/strict';
import { readFileSync, existsSync } from 'node:fs';
import { test } from 'node:test';
import { catalogItems } from '../src/catalog.js';
import { generateTenants, storeSizes } from '../src/tenants.js';
import { loadProfile } from '../src/profiles.js';
import { vocab } from '../src/vocab.js';

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
const ranks = (xs) => {
  const order = xs.map((x, i) => [x, i]).sort((a, b) => a[0] - b[0]);
  const r = new Array(xs.length);
  order.forEach(([, i], k) => (r[i] = k));
  return r;
};
function spearman(a, b) {
  const ra = ranks(a);
  const rb = ranks(b);
  const n = a.length;
  const d2 = ra.reduce((s, r, i) => s + (r - rb[i]) ** 2, 0);
  return 1 - (6 * d2) / (n * (n * n - 1));
}

// the share of all products the largest 10% of stores hold: at 10,000 stores of 100 products
// on average (platform) the tail has less to hold than at 150 of 6,700
for (const [name, topShare] of [['ci', 0.8], ['demo', 0.8], ['large', 0.8], ['platform', 0.75]]) {
  test(`${name}: totals exact, most stores 10-100 products, a heavy tail holds most products`, () => {
    const profile = loadProfile(name);
    for (const seed of [1, 2, 3]) {
      const sizes = generateTenants({ seed, profile, prefix: 'x' }).map((t) => t.expected_products);
      assert.equal(sizes.length, profile.stores);
      assert.equal(sizes.reduce((a, b) => a + b, 0), profile.products);
      const sorted = [...sizes].sort((a, b) => a - b);
      const small = sizes.filter((s) => s >= 10 && s <= 100).length / sizes.length;
      assert.ok(small >= 0.6, `only ${Math.round(small * 100)}% of stores hold 10-100 products`);
      assert.ok(quantile(sorted, 0.5) <= 100, `median store ${quantile(sorted, 0.5)}`);
      const top = sorted.slice(-Math.max(1, Math.round(sizes.length * 0.1))).reduce((a, b) => a + b, 0);
      assert.ok(top / profile.products >= topShare, `top 10% hold only ${Math.round((100 * top) / profile.products)}%`);
      assert.ok(sorted.at(-1) >= 50 * quantile(sorted, 0.5), 'the largest store is not much larger than the median');
    }
  });
}

test('bigcommerce: the study\'s size law at 1/100 (10 to 3 million of 100M products): the smallest store 10, the largest about 3% of all (1.5-5%, by seed), ids of 7,000 stores unique', () => {
  const profile = loadProfile('bigcommerce');
  for (const seed of [0, 1, 2]) {
    const tenants = generateTenants({ seed, profile, prefix: 'bc' });
    const sizes = tenants.map((t) => t.expected_products).sort((a, b) => a - b);
    assert.equal(sizes.length, 7000);
    assert.equal(sizes.reduce((a, b) => a + b, 0), profile.products);
    assert.equal(sizes[0], 10);
    const share = sizes.at(-1) / profile.products;
    assert.ok(share >= 0.015 && share <= 0.05, `the largest store holds ${(100 * share).toFixed(1)}% (the study: 3M of 100M)`);
    assert.ok(quantile(sizes, 0.5) <= 100, `median store ${quantile(sizes, 0.5)}`);
    assert.equal(new Set(tenants.map((t) => t.id)).size, 7000);
  }
});

test('traffic weights are independent of store size', () => {
  for (const [name, bound] of [['demo', 0.25], ['large', 0.1]]) {
    const tenants = generateTenants({ seed: 1, profile: loadProfile(name), prefix: 'x' });
    const rho = spearman(tenants.map((t) => t.expected_products), tenants.map((t) => t.traffic_weight));
    assert.ok(Math.abs(rho) < bound, `${name}: rank correlation size/traffic ${rho.toFixed(3)}`);
    assert.ok(tenants.every((t) => t.traffic_weight > 0));
  }
});

test('a scaled-down profile keeps its stores and its exact total', () => {
  const profile = loadProfile('ci');
  const sizes = storeSizes(1, profile, 2500);
  assert.equal(sizes.length, 20);
  assert.equal(sizes.reduce((a, b) => a + b, 0), 2500);
  assert.ok(sizes.every((s) => s >= 1));
});

test('facet cardinalities per store stay within what a storefront shows', () => {
  const tenants = generateTenants({ seed: 1, profile: loadProfile('ci'), scale: 0.2, prefix: 'f' });
  const perStore = new Map();
  const global = { colors: new Set(), brands: new Set(), sizes: new Set(), materials: new Set() };
  let variants = 0;
  let docs = 0;
  for (const it of catalogItems(1, tenants)) {
    const d = JSON.parse(it.source);
    docs += 1;
    let s = perStore.get(d.store_id);
    if (!s) perStore.set(d.store_id, (s = { brands: new Set(), leaves: new Set(), n: 0 }));
    s.n += 1;
    s.brands.add(d.brand_name);
    s.leaves.add(d.categories.at(-1));
    global.brands.add(d.brand_name);
    if (d.attributes.color) global.colors.add(d.attributes.color);
    if (d.attributes.size) global.sizes.add(d.attributes.size);
    if (d.attributes.material) global.materials.add(d.attributes.material);
    assert.ok(d.variants.length <= 5);
    variants += d.variants.length;
    assert.ok(d.categories.length >= 2 && d.categories.length <= 3, 'category depth 2-3');
    assert.ok(d.rating >= 0 && d.rating <= 5);
    assert.ok(d.price > 0);
    assert.ok(d.sale_price === 0 || d.sale_price < d.price);
    if (d.inventory_tracking === 'none') assert.equal(d.inventory_level, 0);
    if (d.inventory_tracking === 'variant') assert.equal(d.inventory_level, d.variants.reduce((a, v) => a + v.inventory_level, 0));
    assert.ok(Date.parse(d.created_at) <= Date.parse(d.updated_at));
  }
  for (const [id, s] of perStore) {
    assert.ok(s.brands.size <= 30, `${id}: ${s.brands.size} brands`);
    assert.ok(s.leaves.size <= 30, `${id}: ${s.leaves.size} leaf categories`);
    if (s.n >= 1000) assert.ok(s.brands.size >= 5, `${id}: a large store with only ${s.brands.size} brands`);
  }
  assert.ok(global.colors.size <= vocab.colors.length && global.colors.size >= 15);
  assert.ok(global.brands.size >= 20);
  const avgVariants = variants / docs;
  assert.ok(avgVariants > 0.8 && avgVariants < 2.5, `average variants ${avgVariants}`);
});

test('prices are log-normal: median near the department level, a long right tail', () => {
  const tenants = generateTenants({ seed: 1, profile: loadProfile('ci'), scale: 0.2, prefix: 'p' });
  const prices = [];
  for (const it of catalogItems(1, tenants)) prices.push(JSON.parse(it.source).price);
  prices.sort((a, b) => a - b);
  const med = quantile(prices, 0.5);
  assert.ok(med > 5 && med < 200, `median price ${med}`);
  assert.ok(quantile(prices, 0.99) > 4 * med, 'no right tail');
  const logs = prices.map(Math.log);
  const mean = logs.reduce((a, b) => a + b, 0) / logs.length;
  assert.ok(Math.abs(mean - Math.log(med)) < 0.3, 'log prices are not centred on the median');
});

// Every generated document must fit the allocator's strict mapping, field for field.
const mappingFile = new URL('../../../allocator/schema/products-mapping.json', import.meta.url);
test('documents match the allocator\'s strict mapping exactly', { skip: !existsSync(mappingFile) && 'allocator/schema not present' }, () => {
  const mapping = JSON.parse(readFileSync(mappingFile, 'utf8'));
  const seen = new Set();
  function check(value, props, path) {
    for (const [k, v] of Object.entries(value)) {
      const m = props[k];
      assert.ok(m, `${path}${k} is not in the mapping`);
      seen.add(`${path}${k}`);
      const vals = Array.isArray(v) && m.type !== 'nested' ? v : [v];
      for (const x of vals) {
        switch (m.type ?? 'object') {
          case 'keyword': case 'text': assert.equal(typeof x, 'string', `${path}${k}`); break;
          case 'double': case 'float': assert.equal(typeof x, 'number', `${path}${k}`); break;
          case 'integer': assert.ok(Number.isInteger(x), `${path}${k}`); break;
          case 'boolean': assert.equal(typeof x, 'boolean', `${path}${k}`); break;
          case 'date': assert.ok(!Number.isNaN(Date.parse(x)) && /Z$/.test(x), `${path}${k}`); break;
          case 'object': check(x, m.properties, `${path}${k}.`); break;
          case 'nested': assert.ok(Array.isArray(x)); x.forEach((e) => check(e, m.properties, `${path}${k}.`)); break;
          default: assert.fail(`unexpected mapping type ${m.type}`);
        }
      }
    }
  }
  const tenants = generateTenants({ seed: 1, profile: loadProfile('demo'), scale: 0.01, prefix: 'm' });
  let n = 0;
  for (const it of catalogItems(1, tenants)) {
    if (n++ > 20000) break;
    check(JSON.parse(it.source), mapping.properties, '');
  }
  // Every mapped field is produced somewhere (the mapping is what searches and facets use).
  const expected = [];
  const walk = (props, path) => Object.entries(props).forEach(([k, m]) => (m.properties ? walk(m.properties, `${path}${k}.`) : expected.push(`${path}${k}`)));
  walk(mapping.properties, '');
  for (const f of expected) assert.ok(seen.has(f), `mapped field ${f} never generated`);
});
