// The lab's names, in one place: who a tenant is, where its documents live, how a storefront
// reaches them. Index names carry their group so `_cat/indices` is readable at a glance; the
// allocator's registry in its state index, not the name, is what the allocator trusts.
// Plain ES module with no Node APIs. The load engine (Locust, Python) ports these names in
// traffic/lib/contract.py, checked against the golden vectors bin/golden-vectors writes.

/** A tenant id: lower-case letters, digits and '-', 1 to 63 characters. */
export const TENANT_ID_PATTERN = '^[a-z0-9][a-z0-9-]{0,62}$';
const tenantIdRe = new RegExp(TENANT_ID_PATTERN);
export const isTenantId = (id) => typeof id === 'string' && tenantIdRe.test(id);

/** Every read and write of a tenant goes through its alias `tenant-<id>`. */
export const ALIAS_PREFIX = 'tenant-';
export const aliasFor = (tenantId) => `${ALIAS_PREFIX}${tenantId}`;
/** The alias pattern that matches every tenant (`_alias/tenant-*`). */
export const ALIAS_PATTERN = `${ALIAS_PREFIX}*`;
/** The tenant of an alias name, or null when the name is not a tenant alias. */
export const tenantOfAlias = (alias) => (typeof alias === 'string' && alias.startsWith(ALIAS_PREFIX) ? alias.slice(ALIAS_PREFIX.length) : null);

/**
 * The search stats group a tenant's searches carry (`"stats": [...]` in the _search body), so
 * the exporter and dashboards see per-tenant search rates. It is the alias name.
 */
export const statsGroupFor = (tenantId) => aliasFor(tenantId);
/** The stats groups of every tenant (`_stats/search?groups=tenant-*`) and the tenant of one. */
export const STATS_GROUP_PATTERN = ALIAS_PATTERN;
export const tenantOfStatsGroup = tenantOfAlias;

/** A product's document id: `<tenant>:<product>`, unique across the tenants of a shared index. */
export const documentId = (tenantId, productId) => `${tenantId}:${productId}`;

/** Every products index of the allocator with this prefix. */
export const productsPattern = (prefix) => `${prefix}products-*`;

// Group names come from node attributes and may hold characters an index name may not.
const slug = (group) => group.toLowerCase().replace(/[^a-z0-9_]+/g, '_');

export const sharedIndexName = (prefix, group, seq) => `${prefix}products-${slug(group)}-s${String(seq).padStart(4, '0')}`;

export const dedicatedIndexName = (prefix, group, tenantId) => `${prefix}products-${slug(group)}-t-${tenantId}`;

/** Sequence number of a shared index name, or 0 when the name is not one. */
export function sharedSeq(name) {
  const m = /-s(\d{4,})$/.exec(name);
  return m ? Number(m[1]) : 0;
}

/**
 * The experiment runner's names (experiments/runner): every index and alias of a run starts
 * with `exp-<run>-`, so a run's cleanup deletes exactly what it created and nothing of a tenant's.
 */
export const EXPERIMENT_PREFIX = 'exp-';
export const experimentRunPrefix = (runId) => `${EXPERIMENT_PREFIX}${runId}-`;
export const experimentIndexName = (runId, variant, i) => `${experimentRunPrefix(runId)}${variant}-${i + 1}`;
export const experimentAlias = (runId, variant, tenantId) => `${experimentRunPrefix(runId)}${variant}-t-${tenantId}`;
