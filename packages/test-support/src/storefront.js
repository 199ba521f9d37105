// A storefront catalog writer that follows the allocator's write contract: whole documents
// through the tenant alias, _id "<tenant>:<product>", version = updated_at (epoch ms) with
// version_type external_gte; deletes carry the deletion time as their version.
import { documentId } from '@tenantlab/contract/naming';
import { bulkAction } from '@tenantlab/contract/write-contract';

const colors = ['red', 'blue', 'green', 'black', 'white'];
const sizes = ['s', 'm', 'l', 'xl'];

export function productDoc(tenant, n, updatedAt, extra = {}) {
  return {
    store_id: tenant,
    product_id: String(n),
    name: `Product ${n} of ${tenant}`,
    description: `A fine product number ${n}, updated at ${updatedAt}`,
    sku: `${tenant}-sku-${n}`,
    keywords: ['lab', `k${n % 7}`],
    brand_name: `Brand ${n % 11}`,
    categories: [`c${n % 5}`, `c${n % 3}`],
    price: 10 + (n % 100),
    sale_price: 9 + (n % 100),
    inventory_level: n % 50,
    inventory_tracking: 'product',
    is_visible: n % 13 !== 0,
    rating: (n % 5) + 0.5,
    attributes: { color: colors[n % 5], size: sizes[n % 4], material: 'cotton' },
    variants: [{ variant_id: `${n}-1`, sku: `${tenant}-sku-${n}-1`, price: 10 + (n % 100), inventory_level: 3, color: colors[n % 5], size: sizes[n % 4] }],
    created_at: 1700000000000,
    updated_at: updatedAt,
    ...extra,
  };
}

export const docId = documentId;

/** Keeps strictly increasing versions per document even within one millisecond. */
export class VersionClock {
  #last = 0;
  next() {
    this.#last = Math.max(Date.now(), this.#last + 1);
    return this.#last;
  }
}

/**
 * Sends index/delete operations through the alias in one bulk and returns the items that the
 * cluster acknowledged, in order: [{ op, n, doc?, version, ok, status }].
 */
export async function writeBatch(es, alias, tenant, ops) {
  const operations = [];
  for (const o of ops) {
    const action = bulkAction({ op: o.op === 'delete' ? 'delete' : 'index', index: alias, id: documentId(tenant, o.n), version: o.version });
    if (o.op === 'delete') operations.push(action);
    else operations.push(action, o.doc);
  }
  const res = await es.bulk({ operations });
  return res.items.map((item, i) => {
    const r = Object.values(item)[0];
    const ok = r.status < 300 || (ops[i].op === 'delete' && r.status === 404);
    return { ...ops[i], ok, status: r.status, error: r.error };
  });
}
