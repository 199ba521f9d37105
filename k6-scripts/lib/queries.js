// Storefront query builders: faceted category pages, keyword search, product detail,
// autocomplete. None filters on store_id: the tenant alias does (that is what the cross-tenant
// check proves). Values come from the tenant's profile (tenants.js), so queries match its catalog.
import { PAGE_SIZE } from './config.js';
import { statsGroupFor } from '../../packages/contract/src/naming.js';
import { AUTOCOMPLETE_FIELD, SEARCH_FIELDS, typedPart } from '../../packages/contract/src/storefront.js';

export const pick = (a) => a[Math.floor(Math.random() * a.length)];
export const chance = (p) => Math.random() < p;

// Product listing fields of a storefront card; store_id for the cross-tenant check
const CARD = ['store_id', 'product_id', 'name', 'sku', 'brand_name', 'price', 'sale_price', 'rating', 'inventory_level'];

const SORTS = {
  relevance: undefined,
  price_asc: [{ price: 'asc' }],
  price_desc: [{ price: 'desc' }],
  rating: [{ rating: 'desc' }, { price: 'asc' }],
  newest: [{ created_at: 'desc' }],
  name: [{ 'name.raw': 'asc' }],
};
export const SORT_NAMES = Object.keys(SORTS);

// In stock first, as the seed article's query does (should: untracked or inventory > 0)
const INVENTORY_SHOULD = [{ term: { inventory_tracking: 'none' } }, { range: { inventory_level: { gt: 0 } } }];

function priceRanges(t) {
  const max = Math.max(1, t.price.max);
  const step = Math.max(1, Math.round(max / 4));
  return [{ to: step }, { from: step, to: 2 * step }, { from: 2 * step, to: 3 * step }, { from: 3 * step }];
}

function facets(t) {
  return {
    brands: { terms: { field: 'brand_name.raw', size: 20 } },
    colors: { terms: { field: 'attributes.color', size: 20 } },
    sizes: { terms: { field: 'attributes.size', size: 20 } },
    price: { range: { field: 'price', ranges: priceRanges(t) } },
    rating: { range: { field: 'rating', ranges: [{ from: 4 }, { from: 3 }, { from: 2 }] } },
  };
}

/** Shopper-chosen facet filters: a brand, a colour, a size or a price range, sometimes. */
function facetFilters(t) {
  const f = [];
  if (t.brands.length && chance(0.25)) f.push({ term: { 'brand_name.raw': pick(t.brands) } });
  if (t.colors.length && chance(0.2)) f.push({ term: { 'attributes.color': pick(t.colors) } });
  if (t.sizes.length && chance(0.15)) f.push({ term: { 'attributes.size': pick(t.sizes) } });
  if (chance(0.15)) { const r = pick(priceRanges(t)); f.push({ range: { price: { gte: r.from, lt: r.to } } }); }
  return f;
}

/** A category page: filters, facets, a page and a sort. opts: {category, page, sort, filters} */
export function categoryPage(t, opts = {}) {
  const category = opts.category || pick(t.categories).key;
  const sort = SORTS[opts.sort || pick(SORT_NAMES)];
  const body = {
    size: PAGE_SIZE,
    from: (opts.page || 0) * PAGE_SIZE,
    _source: CARD,
    track_total_hits: 10000,
    query: {
      bool: {
        filter: [{ term: { categories: category } }, { term: { is_visible: true } }, ...(opts.filters === false ? [] : facetFilters(t))],
        should: INVENTORY_SHOULD,
      },
    },
    aggs: facets(t),
  };
  if (sort) body.sort = sort;
  return body;
}

/** Search text: one or two words of the tenant's names and brands (a fifth of them half-typed), or a SKU prefix. */
export function searchText(t) {
  if (t.skus.length && chance(0.15)) { const s = pick(t.skus); return s.slice(0, Math.max(3, Math.ceil(s.length / 2))); }
  if (!t.words.length) return 'product';
  const word = () => (chance(0.2) ? typedPart(pick(t.words)) : pick(t.words));
  return chance(0.5) ? word() : `${word()} ${word()}`;
}

/** Keyword search: simple_query_string over the storefront fields, or a prefix on the SKU. */
export function keywordSearch(t, text = searchText(t), opts = {}) {
  const body = {
    size: PAGE_SIZE,
    from: (opts.page || 0) * PAGE_SIZE,
    _source: CARD,
    query: {
      bool: {
        must: [{
          bool: {
            should: [
              { simple_query_string: { query: text, fields: SEARCH_FIELDS, default_operator: 'and' } },
              { prefix: { sku: { value: text, case_insensitive: true } } },
            ],
            minimum_should_match: 1,
          },
        }],
        filter: [{ term: { is_visible: true } }],
        should: INVENTORY_SHOULD,
      },
    },
    aggs: { brands: facets(t).brands, categories: { terms: { field: 'categories', size: 20 } }, price: facets(t).price },
  };
  const sort = SORTS[opts.sort || (chance(0.7) ? 'relevance' : pick(SORT_NAMES))];
  if (sort) body.sort = sort;
  return body;
}

/** Product detail page: one product by its _id, with an ids query (never GET _doc: moves). */
export function productDetail(t, productId = pick(t.products)) {
  return { size: 1, query: { ids: { values: [`${t.id}:${productId}`] } } };
}

/** Autocomplete: a half-typed word against the names' edge n-grams, the seed log's shape (size 6). */
export function autocomplete(t) {
  const w = t.words.length ? pick(t.words) : 'pro';
  return { size: 6, _source: ['store_id', 'name'], query: { match: { [AUTOCOMPLETE_FIELD]: { query: typedPart(w), operator: 'and' } } } };
}

/** The body of a search, with the tenant's search stats group (the write contract asks it). */
export function withStats(body, tenantId) {
  return JSON.stringify({ ...body, stats: [statsGroupFor(tenantId)] });
}
