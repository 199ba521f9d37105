// writes: catalog writes through tenant aliases, following the allocator's write contract
// (allocator/README.md), so they stay safe while the allocator moves a tenant:
//   - whole documents only (no _update), _id "<tenant>:<product>", version = updated_at in epoch
//     ms with version_type=external_gte; current documents are read with an ids query (never
//     GET <alias>/_doc/<id>), searches carry the tenant's stats group;
//   - partial price/inventory updates: WRITE_RATE bulks/s of BULK_SIZE products of tenants picked
//     by traffic weight (read, change price / sale price / inventory, bump updated_at, rewrite);
//   - full catalog re-submission of RESUBMIT= tenants (default: TENANT=, else the smallest
//     selected tenant; RESUBMIT=none for none): every product, page by page, re-sent whole.
//
//   make load-writes TENANTS='k6dev-*' BULK_SIZE=200 WRITE_RATE=2 DURATION=1m

// ---- Thresholds (besides failed < 1%, checks > 99%, no cross-tenant hit: lib/options.js) ------
// p95 of the writes' requests (ids reads, scans and bulks of BULK_SIZE). Override: P95_WRITES_MS=
import { env, envNumber, envList, DURATION, TENANT, ES_URL, ES_NDJSON_HEADERS } from './lib/config.js';

export const P95_WRITES_MS = envNumber('P95_WRITES_MS', 2000);
export const BULK_SIZE = envNumber('BULK_SIZE', 100, { min: 1, integer: true });
export const WRITE_RATE = envNumber('WRITE_RATE', 1, { min: 0.01 });

import http from 'k6/http';
import { fail } from 'k6';
import { Counter } from 'k6/metrics';
import { options as baseOptions, vuPool } from './lib/options.js';
import { loadTenants, weightedPicker } from './lib/tenants.js';
import { pick } from './lib/queries.js';
import { search } from './lib/search.js';
import { tags, checkBulk } from './lib/checks.js';
// The write contract: the same file the seeder, the tests and the allocator's move import
import { documentId } from '../packages/contract/src/naming.js';
import { bulkAction } from '../packages/contract/src/write-contract.js';

export { handleSummary } from './lib/summary.js';

const written = new Counter('products_written');
const superseded = new Counter('products_superseded');

const fractionPerSecond = WRITE_RATE;
export function writesScenarios(extra = {}) {
  const rate = Math.max(1, Math.round(fractionPerSecond * 100));
  return {
    writes: { executor: 'constant-arrival-rate', rate, timeUnit: '100s', duration: DURATION, ...vuPool(WRITE_RATE * 2), exec: 'writes', gracefulStop: '10s', ...extra },
    resubmit: { executor: 'per-vu-iterations', vus: 1, iterations: 1, maxDuration: DURATION, exec: 'resubmit', gracefulStop: '10s', ...extra },
  };
}

const resubmitWanted = envList('RESUBMIT');
const scenarios = writesScenarios();
if (resubmitWanted.length === 1 && resubmitWanted[0] === 'none') delete scenarios.resubmit;
export const options = baseOptions(scenarios, { writes: P95_WRITES_MS, resubmit: P95_WRITES_MS });

/** The tenants whose whole catalog is re-sent. */
export function resubmitPlan(data) {
  if (resubmitWanted.length === 1 && resubmitWanted[0] === 'none') return [];
  if (resubmitWanted.length) {
    return resubmitWanted.map((id) => data.tenants.find((t) => t.id === id) || fail(`RESUBMIT: tenant '${id}' is not among the selected tenants with documents`));
  }
  if (TENANT) return data.tenants.filter((t) => t.id === TENANT);
  return [...data.tenants].sort((a, b) => a.documents - b.documents).slice(0, 1);
}

export function setup() {
  const data = loadTenants();
  return { ...data, resubmit: resubmitPlan(data) };
}

// ---- The write contract ------------------------------------------------------------------------

const epochMs = (v) => (typeof v === 'number' ? v : Date.parse(v) || 0);

/** The document with a new updated_at (never older than what is stored) in the same format. */
function touched(doc) {
  const old = epochMs(doc.updated_at);
  const now = Math.max(Date.now(), old + 1);
  return { doc: { ...doc, updated_at: typeof doc.updated_at === 'number' ? now : new Date(now).toISOString() }, version: now };
}

/** bulk(tenant, [{id, doc, version}], queryType): one _bulk through the alias; checked. */
function bulk(t, items, queryType) {
  if (!items.length) return;
  const lines = [];
  for (const it of items) {
    lines.push(JSON.stringify(bulkAction({ id: it.id, version: it.version })));
    lines.push(JSON.stringify(it.doc));
  }
  const tg = tags(t, queryType);
  const res = http.post(`${ES_URL}/${t.alias}/_bulk`, `${lines.join('\n')}\n`, { headers: ES_NDJSON_HEADERS, tags: tg, timeout: '60s' });
  const { body } = checkBulk(res, items.length, tg);
  if (body && body.items) {
    const conflicts = body.items.filter((x) => x.index && x.index.status === 409).length;
    written.add(body.items.length - conflicts, tg);
    if (conflicts) superseded.add(conflicts, tg);
  }
}

const round2 = (x) => Math.round(x * 100) / 100;

/** A price/inventory change, as a store's back office makes it. */
function priceInventoryUpdate(src) {
  const d = { ...src };
  if (typeof d.price === 'number') {
    const f = 0.9 + Math.random() * 0.2;
    d.price = round2(Math.max(0.01, d.price * f));
    if (typeof d.sale_price === 'number' && d.sale_price > 0) d.sale_price = round2(Math.min(d.price * 0.95, d.sale_price * f));
  }
  if (d.inventory_tracking !== 'none' && typeof d.inventory_level === 'number') d.inventory_level = Math.floor(Math.random() * 200);
  if (Array.isArray(d.variants)) {
    d.variants = d.variants.map((v) => ({ ...v, inventory_level: typeof v.inventory_level === 'number' ? Math.floor(Math.random() * 50) : v.inventory_level }));
  }
  return d;
}

let pickTenant;
/** Partial update: BULK_SIZE products of one tenant read by ids, changed, rewritten whole. */
export function writes(data) {
  if (!pickTenant) pickTenant = weightedPicker(data.tenants);
  const t = pickTenant();
  if (!t.products.length) return;
  const ids = new Set();
  const want = Math.min(BULK_SIZE, t.products.length);
  while (ids.size < want) ids.add(documentId(t.id, pick(t.products)));
  const body = search(t, { size: want, query: { ids: { values: [...ids] } } }, 'read_ids', { expectHits: 1 });
  if (!body) return;
  bulk(t, body.hits.hits.map((h) => { const { doc, version } = touched(priceInventoryUpdate(h._source)); return { id: h._id, doc, version }; }), 'bulk_update');
}

/** Full re-submission: every product of each RESUBMIT tenant, page by page (search_after). */
export function resubmit(data) {
  for (const t of data.resubmit) {
    let after = null;
    let pages = 0;
    for (;;) {
      const q = { size: BULK_SIZE, sort: [{ product_id: 'asc' }], query: { match_all: {} } };
      if (after) q.search_after = after;
      const body = search(t, q, 'scan');
      const hits = (body && body.hits.hits) || [];
      if (!hits.length) break;
      bulk(t, hits.map((h) => { const { doc, version } = touched(h._source); return { id: h._id, doc, version }; }), 'bulk_resubmit');
      after = hits[hits.length - 1].sort;
      pages += 1;
      if (hits.length < BULK_SIZE) break;
    }
    console.log(`writes: re-submitted the catalog of ${t.id} (${pages} bulks of up to ${BULK_SIZE})`);
  }
}

export default writes;
