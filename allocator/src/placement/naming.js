// Index names carry their group so `_cat/indices` is readable at a glance; the registry in
// the state index, not the name, is what the allocator trusts.

export const ALIAS_PREFIX = 'tenant-';
export const TENANT_ID_PATTERN = '^[a-z0-9][a-z0-9-]{0,62}$';
const tenantIdRe = new RegExp(TENANT_ID_PATTERN);

export const isTenantId = (id) => typeof id === 'string' && tenantIdRe.test(id);
export const aliasFor = (tenantId) => `${ALIAS_PREFIX}${tenantId}`;
export const productsPattern = (prefix) => `${prefix}products-*`;

// Group names come from node attributes and may hold characters an index name may not.
const slug = (group) => group.toLowerCase().replace(/[^a-z0-9_]+/g, '_');

export const sharedIndexName = (prefix, group, seq) =>
  `${prefix}products-${slug(group)}-s${String(seq).padStart(4, '0')}`;

export const dedicatedIndexName = (prefix, group, tenantId) =>
  `${prefix}products-${slug(group)}-t-${tenantId}`;

/** Sequence number of a shared index name, or 0 when the name is not one. */
export function sharedSeq(name) {
  const m = /-s(\d{4,})$/.exec(name);
  return m ? Number(m[1]) : 0;
}
