// A storefront query log in the replay format (packages/contract/src/querylog.js). Every query is built
// from one real product of its store (regenerated from the seed), so it finds at least that
// product; stores are picked by traffic weight, not by size.
import { Random } from '@tenantlab/dataset/random';
import { formatLine } from '@tenantlab/contract/querylog';
import { AUTOCOMPLETE_FIELD, SEARCH_FIELDS, typedPart } from '@tenantlab/contract/storefront';
import { CATALOG_EPOCH_MS, makeProduct } from '@tenantlab/dataset/products';

export { SEARCH_FIELDS };
const TYPE_MIX = [['product', 0.5], ['aggregated', 0.2], ['category', 0.15], ['autocomplete', 0.15]];

const storeFilter = (id) => ({ term: { store_id: id } });
const textQuery = (text) => ({ simple_query_string: { query: text, fields: SEARCH_FIELDS, default_operator: 'and' } });

/** The seed article's storefront search: in-stock products ranked first, six hits, ids only. */
export function productQuery(storeId, text) {
  return {
    size: 6,
    _source: ['store_id'],
    query: {
      bool: {
        filter: [storeFilter(storeId)],
        must: [textQuery(text)],
        should: [{ term: { inventory_tracking: 'none' } }, { range: { inventory_level: { gt: 0 } } }],
      },
    },
  };
}

export function aggregatedQuery(storeId, text, visibleOnly) {
  return {
    size: 20,
    query: { bool: { filter: [storeFilter(storeId), ...(visibleOnly ? [{ term: { is_visible: true } }] : [])], must: [textQuery(text)] } },
    aggs: {
      brands: { terms: { field: 'brand_name.raw', size: 10 } },
      categories: { terms: { field: 'categories', size: 20 } },
      colors: { terms: { field: 'attributes.color', size: 20 } },
      sizes: { terms: { field: 'attributes.size', size: 20 } },
      price: { range: { field: 'price', ranges: [{ to: 25 }, { from: 25, to: 50 }, { from: 50, to: 100 }, { from: 100, to: 250 }, { from: 250 }] } },
      rating: { stats: { field: 'rating' } },
      variants: { nested: { path: 'variants' }, aggs: { sizes: { terms: { field: 'variants.size', size: 20 } } } },
    },
  };
}

export function categoryQuery(storeId, category, visibleOnly) {
  return {
    size: 24,
    query: { bool: { filter: [storeFilter(storeId), { term: { categories: category } }, ...(visibleOnly ? [{ term: { is_visible: true } }] : [])] } },
    sort: [{ rating: 'desc' }, { price: 'asc' }],
    aggs: { brands: { terms: { field: 'brand_name.raw', size: 10 } } },
  };
}

export function autocompleteQuery(storeId, prefix) {
  return {
    size: 8,
    _source: ['name', 'product_id'],
    query: { bool: { filter: [storeFilter(storeId)], must: [{ match: { [AUTOCOMPLETE_FIELD]: { query: prefix, operator: 'and' } } }] } },
  };
}

// What a shopper would type about a product: its noun (whole, or its words half-typed), brand +
// noun, adjective + noun, its sku (whole, or its first part: a SKU prefix).
function searchText(rng, p, noun) {
  const r = rng.float();
  const lastNounWord = noun.split(' ').at(-1).toLowerCase();
  if (r < 0.3) return noun.toLowerCase();
  if (r < 0.4) return noun.toLowerCase().split(' ').map(typedPart).join(' ');
  if (r < 0.65) return `${p.brand_name.toLowerCase()} ${lastNounWord}`;
  if (r < 0.85) return `${p.name.split(' ')[p.brand_name.split(' ').length].toLowerCase()} ${lastNounWord}`;
  if (r < 0.93) return p.sku;
  return p.sku.slice(0, p.sku.lastIndexOf('-') + 3);
}

// The first words of the name, the last one cut short, as typed into a search box.
function typedPrefix(rng, name) {
  const words = name.split(' ');
  const n = 1 + rng.int(Math.min(3, words.length));
  const last = words[n - 1];
  const cut = Math.min(last.length, 2 + rng.int(Math.max(1, last.length - 1)));
  return [...words.slice(0, n - 1), last.slice(0, cut)].join(' ');
}

function pickType(rng) {
  let r = rng.float();
  for (const [type, p] of TYPE_MIX) if ((r -= p) < 0) return type;
  return TYPE_MIX[0][0];
}

/**
 * Yields `lines` log lines. Arrivals are Poisson at `qps`, starting at `startMs`.
 */
export function* queryLogLines({ seed, tenants, lines, qps = 50, startMs = CATALOG_EPOCH_MS }) {
  const cumulative = [];
  let sum = 0;
  for (const t of tenants) cumulative.push((sum += t.traffic_weight));
  const rng = new Random(seed, 'querylog');
  let ts = startMs;
  for (let n = 0; n < lines; n++) {
    ts += Math.round(rng.exponential(1000 / qps));
    const x = rng.float() * sum;
    let lo = 0;
    let hi = cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid] > x) hi = mid;
      else lo = mid + 1;
    }
    const t = tenants[lo];
    const type = pickType(rng);
    // Popular products are searched more: skew towards the head of the catalog.
    let i = Math.floor(rng.float() ** 2 * t.expected_products);
    let p = makeProduct(seed, t, i);
    let visibleOnly = true;
    for (let tries = 0; !p.is_visible && tries < 10; tries++) {
      i = rng.int(t.expected_products);
      p = makeProduct(seed, t, i);
    }
    if (!p.is_visible) visibleOnly = false;
    const noun = p.keywords[0];
    let query;
    if (type === 'product') query = productQuery(t.id, searchText(rng, p, noun));
    else if (type === 'aggregated') query = aggregatedQuery(t.id, noun.split(' ').at(-1), visibleOnly);
    else if (type === 'category') query = categoryQuery(t.id, rng.pick(p.categories), visibleOnly);
    else query = autocompleteQuery(t.id, typedPrefix(rng, p.name));
    yield formatLine({ timestampMs: ts, type, query });
  }
}
