// The cluster as the allocator sees it, built from the state (tenants, indices, jobs) and the
// last observation of the cluster. Two views, side by side because they differ on purpose in
// one point only, where a MOVING tenant counts:
//
//   placementModel  for decisions (placing a tenant, planning a move or a rebalance): a moving
//                   tenant counts where it is going, so its room there is reserved and a
//                   concurrent placement cannot take it.
//   groupLoad       what is reported, by GET /groups AND /metrics (one function for both): a
//                   moving tenant counts where its reads come from, the SOURCE until the move
//                   reaches its switch phase and the TARGET from then on (also while a move
//                   that failed after the switch waits to be resumed).
//
// A tenant's size is max(expected products, documents observed in the index it is read from);
// during a move its documents exist twice (source and target), and counting both would double it.
import { groupLoads, isBalanced, meanLoad } from './load.js';

const READ_FROM_TARGET = new Set(['switch', 'cleanup', 'done']);

/** The index a tenant's reads come from right now (by its move's persisted phase). */
export function servingIndex(tenant, store) {
  const job = tenant.state === 'moving' ? store.jobs.get(tenant.job_id) : null;
  if (job && READ_FROM_TARGET.has(job.phase) && store.indices.has(job.to.index)) return job.to.index;
  return tenant.index;
}

/** Documents of the tenant in `index` at the last observation. */
export const observedDocuments = (snapshot, tenantId, index) => snapshot.tenantIndexDocs?.get(index)?.get(tenantId) ?? 0;

/** A tenant's size for load and placement: as announced, or more when it has grown. */
export const sizeOf = (tenant, snapshot, store) => Math.max(tenant.expected_products, observedDocuments(snapshot, tenant.id, servingIndex(tenant, store)));

/** The model the Placer and the rebalance planner work on (see placement/place.js). */
export function placementModel({ store, snapshot, groups, policy, prefix }) {
  const tenants = [];
  for (const t of store.tenants.values()) {
    const job = t.state === 'moving' ? store.jobs.get(t.job_id) : null;
    const index = job && store.indices.has(job.to.index) ? job.to.index : t.index;
    if (!store.indices.has(index)) continue;
    tenants.push({ id: t.id, documents: sizeOf(t, snapshot, store), traffic: t.traffic_weight, index });
  }
  return { groups, indices: [...store.indices.values()], tenants, policy, prefix };
}

/**
 * Load per group and where each tenant counts, for GET /groups and /metrics.
 * Returns { loads: [{ group, nodes, load, perNode }], mean, balanced,
 *           tenantsPerIndex: Map(index -> tenants), placed: Map(tenant -> { index, group, documents }) }.
 */
export function groupLoad({ store, snapshot, groups, policy }) {
  const tenantsPerIndex = new Map();
  const placed = new Map();
  const counted = [];
  for (const t of store.tenants.values()) {
    const index = servingIndex(t, store);
    const ix = store.indices.get(index);
    placed.set(t.id, { index, group: ix?.group ?? t.group, documents: observedDocuments(snapshot, t.id, index) });
    if (!ix) continue;
    tenantsPerIndex.set(index, (tenantsPerIndex.get(index) ?? 0) + 1);
    counted.push({ index, documents: sizeOf(t, snapshot, store), traffic: t.traffic_weight });
  }
  const loads = groupLoads(groups, counted, (index) => store.indices.get(index)?.group, policy);
  return { loads, mean: meanLoad(loads), balanced: isBalanced(loads, policy.balance.tolerance), tenantsPerIndex, placed };
}
