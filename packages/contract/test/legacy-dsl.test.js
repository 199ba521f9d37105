import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RULE_NAMES, TranslateError, findStore, replaceStore, translate } from '../src/legacy-dsl.js';

const q = (query, extra = {}) => ({ query, ...extra });
const refuses = (body, pattern) => assert.throws(() => translate(body), (err) => err instanceof TranslateError && pattern.test(err.message) && !err.message.includes('\n'));

test('filtered: query and filter become bool must and filter; a filter alone, a bool of filters', () => {
  const r = translate(q({ filtered: { query: { match: { name: 'shoe' } }, filter: { term: { store_id: 1 } } } }));
  assert.deepEqual(r.body.query, { bool: { must: [{ match: { name: 'shoe' } }], filter: [{ term: { store_id: 1 } }] } });
  assert.deepEqual(r.counts, { filtered: 1 });
  assert.deepEqual(translate(q({ filtered: { filter: { term: { a: 1 } } } })).body.query, { bool: { filter: [{ term: { a: 1 } }] } });
  assert.deepEqual(translate(q({ filtered: {} })).body.query, { match_all: {} });
  refuses(q({ filtered: { query: {}, weird: 1 } }), /filtered has keys the rule does not know: weird/);
});

test('legacy flags: _cache and _cache_key dropped on bools and beside a term\'s field', () => {
  const r = translate(q({ bool: { _cache: true, _cache_key: 'k', filter: [{ term: { store_id: 5, _cache: false } }] } }));
  assert.deepEqual(r.body.query, { bool: { filter: [{ term: { store_id: 5 } }] } });
  assert.equal(r.counts['legacy-flags'], 2);
});

test('and / or / not filters become bool filter, should (minimum 1) and must_not, in each legacy form', () => {
  const a = { term: { a: 1 } };
  const b = { term: { b: 2 } };
  assert.deepEqual(translate(q({ and: [a, b] })).body.query, { bool: { filter: [a, b] } });
  assert.deepEqual(translate(q({ and: { filters: [a, b] } })).body.query, { bool: { filter: [a, b] } });
  assert.deepEqual(translate(q({ or: [a, b] })).body.query, { bool: { should: [a, b], minimum_should_match: 1 } });
  assert.deepEqual(translate(q({ not: a })).body.query, { bool: { must_not: [a] } });
  assert.deepEqual(translate(q({ not: { filter: a } })).body.query, { bool: { must_not: [a] } });
  refuses(q({ and: 'x' }), /and filter: want a list of filters/);
});

test('missing becomes must_not exists; the forms with no equivalent are refused with the reason', () => {
  const r = translate(q({ missing: { field: 'sale_price' } }));
  assert.deepEqual(r.body.query, { bool: { must_not: [{ exists: { field: 'sale_price' } }] } });
  assert.deepEqual(r.counts, { missing: 1 });
  refuses(q({ missing: { field: 'x', null_value: true } }), /null_value is a mapping setting now/);
});

test('bool minimum_number_should_match, match type phrase, removed query_string options, disable_coord', () => {
  assert.deepEqual(translate(q({ bool: { should: [], minimum_number_should_match: 2 } })).body.query, { bool: { should: [], minimum_should_match: 2 } });
  assert.deepEqual(translate(q({ match: { name: { query: 'red shoe', type: 'phrase' } } })).body.query, { match_phrase: { name: { query: 'red shoe' } } });
  assert.deepEqual(translate(q({ match: { name: { query: 'red sh', type: 'phrase_prefix' } } })).body.query, { match_phrase_prefix: { name: { query: 'red sh' } } });
  const r = translate(q({ simple_query_string: { query: 'x', fields: ['name'], lowercase_expanded_terms: true, locale: 'en' } }));
  assert.deepEqual(r.body.query, { simple_query_string: { query: 'x', fields: ['name'] } });
  assert.deepEqual(r.counts, { 'query-options': 1 });
  assert.deepEqual(translate(q({ query_string: { query: 'x', auto_generate_phrase_queries: true, use_dis_max: true } })).body.query, { query_string: { query: 'x' } });
  assert.deepEqual(translate(q({ bool: { must: [], disable_coord: true } })).body.query, { bool: { must: [] } });
});

test('sort: ignore_unmapped dropped on _score, unmapped_type from the lab\'s mapping on a field', () => {
  const r = translate({ sort: [{ _score: { order: 'desc', ignore_unmapped: true } }, { price: { order: 'asc', ignore_unmapped: true } }, 'name'] }, { fieldType: (f) => (f === 'price' ? 'scaled_float' : null) });
  assert.deepEqual(r.body.sort, [{ _score: { order: 'desc' } }, { price: { order: 'asc', unmapped_type: 'scaled_float' } }, 'name']);
  assert.equal(r.counts['sort-unmapped'], 2);
  assert.deepEqual(translate({ sort: { brand: { ignore_unmapped: true } } }).body.sort, { brand: { unmapped_type: 'keyword' } });
});

test('a top-level fields list becomes _source; a top-level filter becomes post_filter', () => {
  const r = translate({ fields: ['store_id', 'name'], filter: { term: { a: 1 } } });
  assert.deepEqual(r.body, { _source: ['store_id', 'name'], post_filter: { term: { a: 1 } } });
  assert.deepEqual(r.counts, { fields: 1, 'top-filter': 1 });
});

test('what cannot be translated is refused with its path and the reason', () => {
  refuses({ query: { match_all: {} }, facets: { brands: { terms: { field: 'brand' } } } }, /^facets: facets were replaced by aggregations/);
  refuses(q({ bool: { filter: [{ type: { value: 'product' } }] } }), /query\.bool\.filter\[0\]\.type: mapping types were removed/);
  refuses(q({ bool: { filter: [{ limit: { value: 10 } }] } }), /limit filter was removed/);
  refuses('nope', /not a JSON object/);
});

test('a field named like a legacy construct (type, missing, limit) inside a term is a field, not a rule', () => {
  const body = q({ bool: { filter: [{ term: { type: { value: 'Request' } } }, { term: { missing: 1 } }, { range: { limit: { gte: 1 } } }] } });
  assert.deepEqual(translate(body).body, body);
});

test('the article\'s query (Elasticsearch 1.x) translates whole, and rules nest (a filtered inside an and)', () => {
  const article = { query: { filtered: { filter: { bool: { must: [{ term: { store_id: 123456 } }, { bool: { _cache: true, should: [{ term: { is_visible: true } }] } }] } },
    query: { bool: { should: [{ simple_query_string: { query: 'red', fields: ['name^2', 'name.partial', 'sku.partial'], lowercase_expanded_terms: true } }, { prefix: { sku: 'r' } }] } } } },
    sort: [{ _score: { order: 'desc', ignore_unmapped: true } }], _source: ['store_id'], from: 0, size: 6 };
  const r = translate(article);
  assert.deepEqual(r.counts, { 'legacy-flags': 1, 'query-options': 1, filtered: 1, 'sort-unmapped': 1 });
  assert.equal(JSON.stringify(r.body).includes('_cache'), false);
  assert.equal(findStore(r.body), '123456');
  const nested = translate(q({ and: [{ filtered: { filter: { missing: { field: 'x' } } } }] }));
  assert.deepEqual(nested.body.query, { bool: { filter: [{ bool: { filter: [{ bool: { must_not: [{ exists: { field: 'x' } }] } }] } }] } });
  assert.deepEqual(Object.keys(nested.counts).sort(), ['and-or-not', 'filtered', 'missing']);
  for (const name of Object.keys(r.counts)) assert.ok(RULE_NAMES.includes(name), name);
});

test('findStore: a term or a one-value terms anywhere in filter, must, nested bools, legacy filtered; numbers or strings', () => {
  assert.equal(findStore(q({ bool: { filter: [{ term: { store_id: 'k6-1' } }] } })), 'k6-1');
  assert.equal(findStore(q({ bool: { must: [{ bool: { filter: { term: { store_id: { value: 42 } } } } }] } })), '42');
  assert.equal(findStore(q({ filtered: { filter: { terms: { store_id: [7] } } } })), '7');
  assert.equal(findStore(q({ constant_score: { filter: { term: { shop: 9 } } } }), 'shop'), '9', 'the store field is configurable');
  assert.equal(findStore(q({ bool: { must_not: [{ term: { store_id: 3 } }] } })), null, 'a store excluded is not the query\'s store');
  assert.equal(findStore(q({ terms: { store_id: [1, 2] } })), null, 'several stores in a terms: no store');
  assert.throws(() => findStore(q({ bool: { filter: [{ term: { store_id: 1 } }, { term: { store_id: 2 } }] } })), /names 2 stores/);
});

test('replaceStore: every term on the store field moves to the lab tenant, nothing else changes', () => {
  const body = q({ bool: { filter: [{ term: { store_id: 123 } }, { terms: { store_id: [123] } }, { term: { other: 123 } }], must: [{ term: { store_id: { value: 123, boost: 2 } } }] } });
  assert.deepEqual(replaceStore(body, '123', 'k6-7').query.bool, {
    filter: [{ term: { store_id: 'k6-7' } }, { terms: { store_id: ['k6-7'] } }, { term: { other: 123 } }],
    must: [{ term: { store_id: { value: 'k6-7', boost: 2 } } }],
  });
  assert.equal(body.query.bool.filter[0].term.store_id, 123, 'the input is left as it was');
});
