import assert from 'node:assert/strict';
import { test } from 'node:test';
import { generateTenants } from '@tenantlab/dataset/tenants';
import { loadProfile } from '@tenantlab/dataset/profiles';
import { queryLogLines } from '../../src/generate/querylog.js';
import { parseLine, parseLines, SEARCH_TYPES } from '@tenantlab/contract/querylog';

const tenants = generateTenants({ seed: 1, profile: loadProfile('ci'), prefix: 'ql' });

test('every generated line parses; types, stores and timestamps are sane', () => {
  const lines = [...queryLogLines({ seed: 1, tenants, lines: 3000, qps: 50 })];
  const entries = [...parseLines(lines)];
  assert.equal(entries.length, 3000);
  const ids = new Set(tenants.map((t) => t.id));
  const types = new Map();
  let last = 0;
  for (const e of entries) {
    assert.ok(ids.has(e.storeId), `unknown store ${e.storeId}`);
    assert.ok(SEARCH_TYPES.includes(e.type));
    assert.ok(e.timestampMs >= last, 'timestamps go backwards');
    last = e.timestampMs;
    types.set(e.type, (types.get(e.type) ?? 0) + 1);
  }
  for (const t of SEARCH_TYPES) assert.ok(types.get(t) > 200, `${t}: ${types.get(t)}`);
  // Poisson arrivals at 50 qps: 3000 lines span about a minute.
  const span = (entries.at(-1).timestampMs - entries[0].timestampMs) / 1000;
  assert.ok(span > 45 && span < 75, `span ${span}s`);
});

test('stores are picked by traffic weight, not by size', () => {
  const counts = new Map();
  for (const e of parseLines([...queryLogLines({ seed: 1, tenants, lines: 20000, qps: 100 })])) counts.set(e.storeId, (counts.get(e.storeId) ?? 0) + 1);
  const total = tenants.reduce((a, t) => a + t.traffic_weight, 0);
  for (const t of tenants) {
    const expected = (20000 * t.traffic_weight) / total;
    const got = counts.get(t.id) ?? 0;
    assert.ok(Math.abs(got - expected) < 5 * Math.sqrt(expected) + 5, `${t.id}: ${got} queries, expected about ${Math.round(expected)}`);
  }
});

test('the product search has the seed article\'s shape', () => {
  const line = [...queryLogLines({ seed: 1, tenants, lines: 50 })].find((l) => l.includes('|product|'));
  const { query, storeId } = parseLine(line);
  assert.equal(query.size, 6);
  assert.deepEqual(query._source, ['store_id']);
  assert.deepEqual(query.query.bool.filter, [{ term: { store_id: storeId } }]);
  assert.deepEqual(query.query.bool.should, [{ term: { inventory_tracking: 'none' } }, { range: { inventory_level: { gt: 0 } } }]);
  // the article's fields: each full field next to its partial-word subfield
  assert.deepEqual(query.query.bool.must[0].simple_query_string.fields,
    ['name^2', 'name.partial', 'description', 'sku^3', 'sku.partial', 'keywords^2', 'keywords.partial', 'brand_name^2']);
});

test('shoppers half-type words and SKUs: some product searches are partial words or a SKU prefix, autocomplete uses the edge n-grams', () => {
  const lines = [...queryLogLines({ seed: 1, tenants, lines: 3000 })].map((l) => parseLine(l));
  const texts = lines.filter((l) => l.type === 'product').map((l) => l.query.query.bool.must[0].simple_query_string.query);
  // a SKU prefix ends inside its last dash-separated part; a whole SKU does not
  assert.ok(texts.some((t) => /^[A-Z0-9]+-[A-Z0-9]+-\d{2}$/.test(t)), 'no SKU prefix among the product searches');
  const auto = lines.find((l) => l.type === 'autocomplete');
  assert.ok(auto.query.query.bool.must[0].match['name.partial'], 'autocomplete does not match on name.partial');
});

// The format itself (round trip, malformed lines) is tested with its module:
// packages/contract/test/querylog.test.js

test('query log generation is deterministic in-process too', () => {
  const qt = generateTenants({ seed: 2, profile: loadProfile('ci'), prefix: 'q' });
  const a = [...queryLogLines({ seed: 2, tenants: qt, lines: 200 })];
  const b = [...queryLogLines({ seed: 2, tenants: qt, lines: 200 })];
  assert.deepEqual(a, b);
});
