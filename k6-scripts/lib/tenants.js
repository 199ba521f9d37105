// Tenants come from the allocator's API (GET /tenants) in setup(); each one is profiled with one
// search through its alias (categories, facet values, a sample of products) so the scenarios
// build queries that match the tenant's real catalog, whatever generated it.
import http from 'k6/http';
import { fail } from 'k6';
import { ALLOCATOR_URL, ES_URL, TENANT, TENANTS, TENANTS_FILE, PROFILE_TENANTS, SAMPLE_PRODUCTS, ES_JSON_HEADERS } from './config.js';
import { tags } from './checks.js';
// The lab's names (alias, stats group), the same file the allocator and the seeder import
import { aliasFor, statsGroupFor } from '../../packages/contract/src/naming.js';

function globMatch(glob, id) {
  const re = new RegExp(`^${glob.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.')}$`);
  return re.test(id);
}

/** Every tenant of the allocator: [{id, group, index, alias, documents, traffic_weight}] */
export function allocatorTenants() {
  const res = http.get(`${ALLOCATOR_URL}/tenants`, { tags: { name: 'allocator /tenants', query_type: 'setup' }, timeout: '20s' });
  if (res.status !== 200) {
    fail(`allocator at ${ALLOCATOR_URL} answered ${res.status || res.error}: is the lab up? (make up)`);
  }
  return res.json('tenants').map((t) => ({
    id: t.id,
    group: t.group || '',
    index: t.index,
    alias: t.alias || aliasFor(t.id),
    documents: t.documents || 0,
    weight: t.traffic_weight > 0 ? t.traffic_weight : 1,
    state: t.state,
  }));
}

/** The tenants this run uses: TENANT= alone, else TENANTS= (ids, globs), else all of them. */
export function selectTenants(all) {
  if (TENANT) {
    const t = all.find((x) => x.id === TENANT);
    if (!t) fail(`unknown TENANT '${TENANT}': the allocator has no such tenant (make tenants lists them)`);
    return [t];
  }
  if (TENANTS.length) {
    const picked = all.filter((t) => TENANTS.some((g) => globMatch(g, t.id)));
    if (!picked.length) fail(`TENANTS=${TENANTS.join(',')} matches no tenant of the allocator (make tenants lists them)`);
    return picked;
  }
  return all;
}

const PROFILE_BODY = (sample) => ({
  size: sample,
  track_total_hits: true,
  _source: ['store_id', 'product_id', 'sku', 'name', 'brand_name', 'categories'],
  query: { match_all: {} },
  aggs: {
    categories: { terms: { field: 'categories', size: 1000 } },
    brands: { terms: { field: 'brand_name.raw', size: 100 } },
    colors: { terms: { field: 'attributes.color', size: 50 } },
    sizes: { terms: { field: 'attributes.size', size: 50 } },
    price: { stats: { field: 'price' } },
  },
});

const words = (s) => String(s || '').toLowerCase().split(/[^a-z0-9]+/).filter((w) => w.length > 2);

/**
 * Profiles up to PROFILE_TENANTS tenants (heaviest traffic first) with one search each, in
 * parallel batches; tenants without documents are left out (nothing to browse).
 */
export function profileTenants(tenants) {
  const chosen = [...tenants].sort((a, b) => b.weight - a.weight || a.id.localeCompare(b.id)).slice(0, PROFILE_TENANTS);
  const out = [];
  for (let i = 0; i < chosen.length; i += 20) {
    const batch = chosen.slice(i, i + 20);
    const responses = http.batch(batch.map((t) => ({
      method: 'POST',
      url: `${t.esUrl || ES_URL}/${t.alias}/_search`,
      body: JSON.stringify({ ...PROFILE_BODY(SAMPLE_PRODUCTS), stats: [statsGroupFor(t.id)] }),
      params: { headers: ES_JSON_HEADERS, tags: tags(t, 'profile'), timeout: '30s' },
    })));
    batch.forEach((t, j) => {
      const res = responses[j];
      if (res.status !== 200) {
        fail(`cannot read tenant ${t.id} through ${t.esUrl || ES_URL}/${t.alias}: HTTP ${res.status || res.error}`);
      }
      const body = res.json();
      const total = body.hits.total.value;
      if (!total) return;
      const hits = body.hits.hits.map((h) => h._source);
      const keys = (agg) => (body.aggregations[agg]?.buckets || []).map((b) => ({ key: b.key, count: b.doc_count }));
      const vocab = new Set();
      hits.forEach((h) => { words(h.name).forEach((w) => vocab.add(w)); words(h.brand_name).forEach((w) => vocab.add(w)); });
      out.push({
        ...t,
        documents: total,
        categories: keys('categories'),
        brands: keys('brands').map((b) => b.key),
        colors: keys('colors').map((b) => b.key),
        sizes: keys('sizes').map((b) => b.key),
        price: { min: body.aggregations.price.min || 0, max: body.aggregations.price.max || 100 },
        products: hits.map((h) => String(h.product_id)).filter((p) => p !== 'undefined'),
        skus: hits.map((h) => h.sku).filter(Boolean),
        words: [...vocab].slice(0, 200),
      });
    });
  }
  return out;
}

// TENANTS_FILE= (the experiment runner): the tenants as a JSON list [{id, alias, weight, set, es_url}], read
// here because k6 opens files only in the init context; the allocator is then not asked.
const FILE_TENANTS = TENANTS_FILE ? JSON.parse(open(TENANTS_FILE)) : null;

function fileTenants() {
  if (!Array.isArray(FILE_TENANTS) || !FILE_TENANTS.length) fail(`TENANTS_FILE=${TENANTS_FILE} holds no tenant (want a JSON list of {id, alias, weight})`);
  return FILE_TENANTS.map((t) => ({
    id: t.id, group: t.group || '', index: t.index || '', alias: t.alias || aliasFor(t.id),
    documents: t.documents || 0, weight: t.weight > 0 ? t.weight : 1, state: 'ready', set: t.set || '',
    // the node that coordinates this tenant's searches (a node of its index's group), else ES_URL
    esUrl: t.es_url || '',
  }));
}

/** setup() of every storefront-like scenario: allocator tenants (or TENANTS_FILE's), selected, profiled. */
export function loadTenants({ requireDocuments = true } = {}) {
  const all = FILE_TENANTS ? fileTenants() : allocatorTenants();
  if (!all.length) fail(`the allocator at ${ALLOCATOR_URL} has no tenant: add some (make tenant-add, or seed)`);
  const selected = selectTenants(all);
  const profiled = profileTenants(selected);
  if (requireDocuments && !profiled.length) {
    fail(`no selected tenant has documents (${selected.map((t) => t.id).slice(0, 5).join(', ')}...): seed them first`);
  }
  return { tenants: profiled, all: Object.fromEntries(all.map((t) => [t.id, { group: t.group, alias: t.alias }])) };
}

/** A picker by traffic weight: pick() returns a tenant, heavier ones more often. */
export function weightedPicker(tenants) {
  const cumulative = [];
  let sum = 0;
  for (const t of tenants) { sum += t.weight; cumulative.push(sum); }
  return () => {
    const r = Math.random() * sum;
    let lo = 0;
    let hi = cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid] > r) hi = mid; else lo = mid + 1;
    }
    return tenants[lo];
  };
}
