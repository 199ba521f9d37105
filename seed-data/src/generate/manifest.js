// What a seed run promises: every tenant with its exact document count. `verify` holds the
// cluster to it, and it is printable (tenantlab-seed manifest) for anyone who wants to check.
export function buildManifest({ profile, seed, scale, prefix, tenants }) {
  return {
    profile: profile.name,
    seed,
    scale,
    tenant_prefix: prefix,
    stores: tenants.length,
    products: tenants.reduce((a, t) => a + t.expected_products, 0),
    tenants: tenants.map((t) => ({
      id: t.id,
      name: t.name,
      expected_products: t.expected_products,
      traffic_weight: t.traffic_weight,
      department: t.department,
    })),
  };
}
