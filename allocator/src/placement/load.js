// Load is measured in "shared indices worth": a tenant that fills half of a shared index's
// document capacity and a quarter of its traffic capacity has load 0.75. Size and traffic are
// independent, so a small but hot store weighs as much as its traffic says.

export function tenantLoad(t, policy) {
  const cap = policy.shared.capacity;
  return t.documents / cap.documents + t.traffic / cap.traffic;
}

/** Per-node load of each group, so groups with more nodes are expected to carry more. */
export function groupLoads(groups, tenants, indexGroup, policy) {
  const total = new Map(groups.map((g) => [g.name, 0]));
  for (const t of tenants) {
    const g = indexGroup(t.index);
    if (total.has(g)) total.set(g, total.get(g) + tenantLoad(t, policy));
  }
  return groups.map((g) => ({
    group: g.name,
    nodes: g.nodes.length,
    load: total.get(g.name),
    perNode: total.get(g.name) / Math.max(1, g.nodes.length),
  }));
}

/** The mean per-node load across groups, weighting each group by its nodes. */
export function meanLoad(loads) {
  const nodes = loads.reduce((s, l) => s + Math.max(1, l.nodes), 0);
  return nodes ? loads.reduce((s, l) => s + l.load, 0) / nodes : 0;
}

/** True when every group's per-node load is within `tolerance` of the mean. */
export function isBalanced(loads, tolerance) {
  const mean = meanLoad(loads);
  if (mean === 0) return true;
  return loads.every((l) => Math.abs(l.perNode - mean) <= tolerance * mean + 1e-12);
}
