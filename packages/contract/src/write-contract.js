// The write contract every writer of products follows (the seeder, the load engine, the tests, the
// allocator's move): whole documents only, through the tenant's alias, `_id` `<tenant>:<product>`,
// `version` = the product's updated_at in epoch ms with `version_type: external_gte`. A re-sent
// or late write can then never duplicate or roll back a document, which is what lets the
// allocator move a tenant while it is written to. Plain ES module, no Node APIs (the load engine,
// Locust, writes by the same rules: ported in traffic/lib/contract.py, checked against the
// golden vectors bin/golden-vectors writes).
import { aliasFor, documentId } from './naming.js';

export const VERSION_TYPE = 'external_gte';

/** A document's version: its updated_at (epoch ms, or an ISO date string) as epoch ms. */
export function versionOf(updatedAt) {
  const ms = typeof updatedAt === 'number' ? updatedAt : Date.parse(updatedAt);
  if (!Number.isSafeInteger(ms) || ms < 0) throw new Error(`updated_at '${updatedAt}' is not a time (epoch ms or ISO date)`);
  return ms;
}

/**
 * The bulk action of one versioned write: `{ index: {...} }` (or `{ delete: {...} }` with op
 * 'delete'). `index` is where it goes: the tenant's alias for every writer of the lab, a concrete
 * index only for the allocator's move; omit it when the bulk request names the alias in its path.
 */
export function bulkAction({ index, id, version, routing, op = 'index' }) {
  const meta = {};
  if (index !== undefined) meta._index = index;
  meta._id = id;
  meta.version = version;
  meta.version_type = VERSION_TYPE;
  if (routing) meta.routing = routing;
  return { [op]: meta };
}

/** The action of a product's write through its tenant's alias. */
export function productAction({ tenant, product, version, alias = true }) {
  return bulkAction({ index: alias ? aliasFor(tenant) : undefined, id: documentId(tenant, product), version });
}

/**
 * The action line of a product write as NDJSON text: the same bytes as
 * JSON.stringify(productAction(...)), built without an object per document because the seeder
 * writes millions of them. `id` is the full document id (`<tenant>:<product>`). `alias` is the
 * tenant's alias unless the writer keeps the tenant under another one (the experiment runner
 * builds one layout per variant, each with its own aliases).
 */
export function actionLine({ tenant, id, version, alias = aliasFor(tenant) }) {
  return `{"index":{"_index":${JSON.stringify(alias)},"_id":${JSON.stringify(id)},"version":${version},"version_type":"${VERSION_TYPE}"}}`;
}

/** The two NDJSON lines (action + source, each ending in a newline) of a product write. */
export function bulkLines({ tenant, id, version, source, alias }) {
  return `${actionLine({ tenant, id, version, alias })}\n${typeof source === 'string' ? source : JSON.stringify(source)}\n`;
}

/** A product's two bulk lines from the document itself (store_id, product_id, updated_at). */
export function productLines(doc, { alias = true } = {}) {
  const action = productAction({ tenant: doc.store_id, product: doc.product_id, version: versionOf(doc.updated_at), alias });
  return `${JSON.stringify(action)}\n${JSON.stringify(doc)}\n`;
}
