// Nothing is lost: each tenant's count, as a storefront search through its alias sees it,
// must equal what the generator's manifest says. One _msearch per 100 tenants.
import { aliasFor } from '@tenantlab/contract/naming';

export async function countTenants(client, tenantIds, { batch = 100 } = {}) {
  const counts = new Map();
  for (let i = 0; i < tenantIds.length; i += batch) {
    const ids = tenantIds.slice(i, i + batch);
    const searches = ids.flatMap((id) => [{ index: aliasFor(id) }, { size: 0, track_total_hits: true, query: { match_all: {} } }]);
    const res = await client.msearch({ searches });
    res.responses.forEach((r, k) => counts.set(ids[k], r.error ? null : r.hits.total.value));
  }
  return counts;
}

/** Tenants whose count differs from the manifest: [{ id, expected, actual, diff }]. */
export function compareCounts(tenants, counts) {
  const out = [];
  for (const t of tenants) {
    const actual = counts.get(t.id);
    if (actual !== t.expected_products) out.push({ id: t.id, expected: t.expected_products, actual, diff: actual === null || actual === undefined ? null : actual - t.expected_products });
  }
  return out;
}

export function describeMismatch(m) {
  if (m.diff === null) return `tenant ${m.id}: alias ${aliasFor(m.id)} is missing (manifest: ${m.expected} documents)`;
  const what = m.diff < 0 ? `${-m.diff} missing` : `${m.diff} too many`;
  return `tenant ${m.id}: ${m.actual} documents, manifest says ${m.expected} (${what})`;
}
