// storefront: shoppers on every tenant, picked by traffic weight. Category navigation with facets
// (brand, colour, size, price ranges, rating; visibility filter, in-stock first), next pages and
// sorts, keyword search (simple_query_string + SKU prefix), product detail (ids query),
// autocomplete. RATE= page views/s (arrival rate, default 10) or VUS= shoppers with think times.
//
//   k6 run -e ES_URL=http://127.0.0.1:9200 -e ALLOCATOR_URL=http://127.0.0.1:8080 storefront.js
//   (or: make load SCENARIO=storefront RATE=20 DURATION=1m)

// ---- Thresholds (besides failed < 1%, checks > 99%, no cross-tenant hit: lib/options.js) ------
// p95 of the storefront's searches. Native lab on 2 cores: < 25 ms up to RATE=120 (make bench-load);
// the default leaves room for a busy laptop (a seed or a move beside it). Override: P95_STOREFRONT_MS=300
import { envNumber, DURATION, RATE, VUS, THINK_MS, PAGE_SIZE } from './lib/config.js';

export const P95_STOREFRONT_MS = envNumber('P95_STOREFRONT_MS', 1000);

import { sleep } from 'k6';
import { options as baseOptions, vuPool } from './lib/options.js';
import { loadTenants, weightedPicker } from './lib/tenants.js';
import { categoryPage, keywordSearch, productDetail, autocomplete, pick } from './lib/queries.js';
import { search } from './lib/search.js';

export { handleSummary } from './lib/summary.js';

export function storefrontScenario(extra = {}) {
  if (VUS) return { executor: 'constant-vus', vus: VUS, duration: DURATION, exec: 'storefront', gracefulStop: '5s', ...extra };
  const rate = RATE || 10;
  return { executor: 'constant-arrival-rate', rate, timeUnit: '1s', duration: DURATION, ...vuPool(rate), exec: 'storefront', gracefulStop: '5s', ...extra };
}

export const options = baseOptions({ storefront: storefrontScenario() }, { storefront: P95_STOREFRONT_MS });

export function setup() {
  return loadTenants();
}

let pickTenant;
// Per VU: where this shopper is (so "next page" continues a category)
let last = null;

/** One page view (RATE mode) or one step of a session with a think time (VUS mode). */
export function storefront(data) {
  if (!pickTenant) pickTenant = weightedPicker(data.tenants);
  const r = Math.random();
  if (last && r < 0.12) {
    // the next page of the category this shopper is on, same sort
    last.page += 1;
    const t = last.t;
    const count = (t.categories.find((c) => c.key === last.category) || { count: 0 }).count;
    if (last.page * PAGE_SIZE >= count) last.page = 0;
    search(t, categoryPage(t, { category: last.category, page: last.page, sort: last.sort, filters: false }), 'category_page', { aggs: true });
  } else {
    const t = pickTenant();
    if (r < 0.45 && t.categories.length) {
      const category = pick(t.categories).key;
      const sort = pick(['relevance', 'price_asc', 'price_desc', 'rating', 'newest', 'name']);
      last = { t, category, sort, page: 0 };
      search(t, categoryPage(t, { category, sort }), 'category', { aggs: true });
    } else if (r < 0.72) {
      search(t, keywordSearch(t), 'search', { aggs: true });
    } else if (r < 0.9 && t.products.length) {
      search(t, productDetail(t), 'detail', { expectHits: 1 });
    } else {
      search(t, autocomplete(t), 'autocomplete');
    }
  }
  if (VUS) sleep((THINK_MS * (0.5 + Math.random())) / 1000);
}

export default storefront;
