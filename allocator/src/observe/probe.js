// Probe searches: what a shopper's page takes on each index group, timed from the allocator, so
// a group's objective is judged on a request like the storefront's, queueing in the search pools
// and coordination included. (Elasticsearch's own query and fetch times are per shard and leave
// the wait out: a crawler that doubles the neighbours' response time barely moves them.)
//
// Shape: every probe is a storefront request on one tenant of the group, through its alias,
// rotating over the group's tenants so no store's cache carries the figure: by turns a faceted
// category page (one of the store's own categories, visible products, in stock first, brand/
// colour/size/price/rating facets, a page of 24 cards, sorted) and a text search of a half-typed
// catalogue word on the storefront's fields (`.partial` subfields included,
// packages/contract/src/storefront.js), with its facets. A store's categories are read once
// (a terms aggregation, untimed) and kept for ten minutes. The request cache is off; each probe
// is tagged with its own stats group, so the cost figures leave it out (a tenant's share stays a
// share of what the shoppers cost) and the probe's own cost is stated apart (probe_ms_per_s).
//
// Rate: one probe per group every observe.probeIntervalMs (default 1 s), so a 60 s window holds
// about 60 of them per group and its p95 is the third slowest; an experiment's 15 s window at
// 250 ms holds 60 too. Cost: that many storefront pages per second per group, stated by
// `make bench-allocator` (its observe part) as the probe's share of the group's search time.
import { performance } from 'node:perf_hooks';
import { vocab } from '@tenantlab/dataset/vocab';
import { aliasFor } from '@tenantlab/contract/naming';
import { SEARCH_FIELDS, typedPart } from '@tenantlab/contract/storefront';
import { nearestRank } from '@tenantlab/contract/percentile';

/** The stats group of every probe search: the cost figures leave it out of the groups' totals. */
export const PROBE_STATS_GROUP = 'tenantlab-probe';

const CARD = ['store_id', 'product_id', 'name', 'sku', 'brand_name', 'price', 'sale_price', 'rating', 'inventory_level'];
const IN_STOCK_FIRST = [{ term: { inventory_tracking: 'none' } }, { range: { inventory_level: { gt: 0 } } }];
const FACETS = {
  brands: { terms: { field: 'brand_name.raw', size: 20 } },
  colors: { terms: { field: 'attributes.color', size: 20 } },
  sizes: { terms: { field: 'attributes.size', size: 20 } },
  price: { range: { field: 'price', ranges: [{ to: 25 }, { from: 25, to: 100 }, { from: 100, to: 500 }, { from: 500 }] } },
  rating: { range: { field: 'rating', ranges: [{ from: 4 }, { from: 3 }, { from: 2 }] } },
};
// the catalogue's own nouns (every generated product name holds one), so text probes find hits
const WORDS = [...new Set(vocab.departments.flatMap((d) => d.leaves.flatMap((l) => l.nouns.flatMap((n) => n.toLowerCase().split(/\s+/)))))]
  .filter((w) => /^[a-z]{4,}$/.test(w))
  .sort();

const SORTS = [null, [{ price: 'asc' }], [{ rating: 'desc' }, { price: 'asc' }]];

/**
 * The n-th probe's body (deterministic: n picks the shape, the word, the category and the sort);
 * `categories`: the store's category keys (a page of the whole store without them).
 */
export function probeBody(n, categories = []) {
  if (n % 2 === 0) {
    const k = n / 2;
    const filter = [{ term: { is_visible: true } }];
    if (categories.length) filter.unshift({ term: { categories: categories[k % categories.length] } });
    const sort = SORTS[k % SORTS.length];
    return {
      size: 24,
      _source: CARD,
      track_total_hits: 10000,
      query: { bool: { filter, should: IN_STOCK_FIRST } },
      aggs: FACETS,
      ...(sort ? { sort } : {}),
    };
  }
  const word = WORDS.length ? typedPart(WORDS[Math.floor(n / 2) % WORDS.length]) : 'pro';
  return {
    size: 24,
    _source: CARD,
    query: {
      bool: {
        must: [{ simple_query_string: { query: word, fields: SEARCH_FIELDS, default_operator: 'and' } }],
        filter: [{ term: { is_visible: true } }],
        should: IN_STOCK_FIRST,
      },
    },
    aggs: { brands: FACETS.brands, categories: { terms: { field: 'categories', size: 20 } }, price: FACETS.price },
  };
}

const CATEGORIES_TTL_MS = 600000;

/** A store's category keys (most products first), read once and kept ten minutes; [] when unknown. */
async function categoriesOf(client, tenant, cache) {
  const hit = cache.get(tenant);
  if (hit && Date.now() - hit.at < CATEGORIES_TTL_MS) return hit.keys;
  let keys = [];
  try {
    const r = await client.search({ index: aliasFor(tenant), size: 0, stats: [PROBE_STATS_GROUP], aggs: { c: { terms: { field: 'categories', size: 50 } } }, filter_path: 'aggregations.c.buckets.key' });
    keys = (r.aggregations?.c?.buckets ?? []).map((b) => b.key);
  } catch {
    // an unknown store is probed with a page of the whole store
  }
  if (cache.size > 10000) cache.clear();
  cache.set(tenant, { at: Date.now(), keys });
  return keys;
}

/**
 * Probes each group once: `targets` Map group -> tenant ids (active, serving from that group).
 * Returns Map group -> { ms, tenant } (ms null when the search failed); `turn` rotates tenants.
 */
export async function probeGroups(client, targets, turn = 0, cache = new Map()) {
  const entries = await Promise.all([...targets].filter(([, ids]) => ids.length).map(async ([group, ids]) => {
    const tenant = ids[turn % ids.length];
    const categories = turn % 2 === 0 ? await categoriesOf(client, tenant, cache) : [];
    const t0 = performance.now();
    try {
      await client.search({ index: aliasFor(tenant), request_cache: false, stats: [PROBE_STATS_GROUP], ...probeBody(turn, categories), filter_path: 'took' });
      return [group, { ms: Math.round((performance.now() - t0) * 10) / 10, tenant }];
    } catch {
      return [group, { ms: null, tenant }];
    }
  }));
  return new Map(entries);
}

/** Nearest-rank percentile of numbers (null for none): the lab's one (packages/contract). */
export const percentile = nearestRank;

/** Probe timings kept over the observation window; `p95s()` per group. */
export class ProbeWindow {
  constructor(windowMs) {
    this.windowMs = windowMs;
    this.samples = [];
    this.sent = 0;
    this.failed = 0;
  }

  add(at, timings) {
    for (const [group, { ms }] of timings) {
      this.sent += 1;
      if (ms === null) this.failed += 1;
      else this.samples.push({ at, group, ms });
    }
    this.samples = this.samples.filter((s) => s.at > at - this.windowMs);
  }

  /** Map group -> { p95_ms, count } over the window (groups without a sample are absent). */
  p95s() {
    const by = new Map();
    for (const s of this.samples) by.set(s.group, [...(by.get(s.group) ?? []), s.ms]);
    return new Map([...by].map(([g, xs]) => [g, { p95_ms: percentile(xs, 0.95), count: xs.length }]));
  }
}

/**
 * Sends the probes on a timer of their own (observe.probeIntervalMs), independent of the
 * observation interval: `targets()` is read at each tick (the tenants move).
 */
export class Prober {
  constructor({ client, intervalMs, windowMs, targets }) {
    Object.assign(this, { client, intervalMs, targets });
    this.window = new ProbeWindow(windowMs);
    this.turn = 0;
    this.categories = new Map();
  }

  start() {
    this.stopped = false;
    const tick = async () => {
      const t = this.targets();
      const got = await probeGroups(this.client, t, this.turn, this.categories).catch(() => new Map());
      this.turn += 1;
      this.window.add(Date.now(), got);
      if (!this.stopped) {
        this.timer = setTimeout(tick, this.intervalMs);
        this.timer.unref();
      }
    };
    this.timer = setTimeout(tick, 0);
    this.timer.unref();
  }

  stop() {
    this.stopped = true;
    clearTimeout(this.timer);
  }
}
