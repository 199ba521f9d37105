// Hot-tenant detection: a tenant is hot when its share of its group's search time is at least
// the policy's `hot.share` while the group misses its latency objective, over a window with
// enough searches to judge (policy.observe). The objective is judged on the group's probe
// searches (probe.js: what a search there takes, queueing included); without a probe, on the
// shard-level latency of the group's other searches (the tenant's own left out: a crawler's
// many cheap queries pull the group's average down while they slow everyone else). A tenant
// alone in its group has no neighbour to hurt and is never flagged. Pure; `since` (when each tenant was first seen hot, continuously)
// is kept by the caller and passed back in.

/**
 * cost: observedCost()'s result; hot: policy.hot; since: Map tenant -> ISO time first flagged.
 * Returns the flagged tenants, hottest share first, each with its evidence.
 */
export function detectHot(cost, hot, { since = new Map(), now = new Date().toISOString() } = {}) {
  const flagged = [];
  for (const t of cost.tenants.values()) {
    const g = cost.groups.get(t.group);
    if (!g || !g.enough || g.tenants < 2) continue;
    if (t.share_of_group < hot.share) continue;
    const judged = g.probe_ms ?? t.neighbours_latency_ms;
    if (judged === null || judged === undefined || judged <= g.objective_ms) continue;
    flagged.push({
      tenant: t.tenant,
      group: t.group,
      index: t.index,
      share_of_group: t.share_of_group,
      share_threshold: hot.share,
      search_ms_per_s: t.search_ms_per_s,
      search_rate: t.search_rate,
      group_search_ms_per_s: g.search_ms_per_s,
      group_latency_ms: g.latency_ms,
      neighbours_latency_ms: t.neighbours_latency_ms,
      probe_ms: g.probe_ms ?? null,
      objective_ms: g.objective_ms,
      window_s: cost.window_s,
      since: since.get(t.tenant) ?? now,
      why: `${t.tenant} uses ${pct(t.share_of_group)} of ${t.group}'s search time (${t.search_ms_per_s} of ${g.search_ms_per_s} ms/s, threshold ${pct(hot.share)}) while ${g.probe_ms !== null && g.probe_ms !== undefined ? `a probe search on ${t.group} takes ${g.probe_ms} ms` : `the rest of ${t.group} answers in ${t.neighbours_latency_ms} ms per shard query`} against an objective of ${g.objective_ms} ms (last ${cost.span_s} s; the rest of ${t.group}'s searches: ${t.neighbours_latency_ms ?? '-'} ms per shard query)`,
    });
  }
  return flagged.sort((a, b) => b.share_of_group - a.share_of_group || (a.tenant < b.tenant ? -1 : 1));
}

export const pct = (x) => `${Math.round(x * 1000) / 10}%`;

/**
 * Where a hot tenant should go ("a lesser utilised index", in BigCommerce's words): the other
 * group with the lowest search time per node, when that is below its own group's. Returns
 * { group, expected: [{ group, search_ms_per_s_per_node: { before, after } }] }, or null when no
 * group is less utilised. The expected figures say plainly when a move only shifts the cost
 * (a crawled store makes its new group as busy as its old one was).
 */
export function headroomTarget(cost, tenantId) {
  const t = cost.tenants.get(tenantId);
  const own = t && cost.groups.get(t.group);
  if (!own) return null;
  const load = (g) => g.search_ms_per_s / Math.max(1, g.nodes);
  let best = null;
  for (const g of cost.groups.values()) {
    if (g.group === t.group) continue;
    if (!best || load(g) < load(best) - 1e-9) best = g;
  }
  if (!best || load(best) >= load(own) - 1e-9) return null;
  const expected = [...cost.groups.values()].map((g) => {
    let after = g.search_ms_per_s;
    if (g.group === t.group) after -= t.search_ms_per_s;
    if (g.group === best.group) after += t.search_ms_per_s;
    return { group: g.group, search_ms_per_s_per_node: { before: r1(load(g)), after: r1(Math.max(0, after) / Math.max(1, g.nodes)) } };
  });
  return { group: best.group, expected };
}

const r1 = (x) => Math.round(x * 10) / 10;
