// Rebalancing plan: repeatedly move one tenant from the most loaded group (per node) to the
// least loaded one, choosing the tenant that brings the pair closest to the mean, until every
// group is within the policy's tolerance of the mean, no move helps, or the move budget is
// spent. Pure and deterministic, so a dry run shows exactly what POST /rebalance will try.
import { isBalanced, meanLoad, tenantLoad } from '../placement/load.js';
import { Placer } from '../placement/place.js';

const EPS = 1e-9;

function byPerNodeDesc(a, b) {
  return b.perNode - a.perNode || (a.group < b.group ? -1 : a.group > b.group ? 1 : 0);
}

/**
 * model: { groups, indices, tenants, policy, prefix } (tenants: { id, documents, traffic, index })
 * options.exclude: tenant ids that must not move (e.g. already moving).
 */
export function planRebalance(model, { exclude = new Set() } = {}) {
  const { policy } = model;
  const tolerance = policy.balance.tolerance;
  const placer = new Placer(model);
  const before = placer.groupLoads();
  const moves = [];
  const moved = new Set();

  while (moves.length < policy.balance.maxMoves) {
    const loads = placer.groupLoads();
    if (loads.length < 2 || isBalanced(loads, tolerance)) break;
    const mean = meanLoad(loads);
    const sorted = [...loads].sort(byPerNodeDesc);
    const hi = sorted[0];
    const lo = sorted[sorted.length - 1];
    const current = Math.max(Math.abs(hi.perNode - mean), Math.abs(lo.perNode - mean));

    let best;
    for (const t of placer.tenants.values()) {
      if (exclude.has(t.id) || moved.has(t.id)) continue;
      if (placer.indices.get(t.index).group !== hi.group) continue;
      const l = tenantLoad(t, policy);
      const score = Math.max(Math.abs((hi.load - l) / hi.nodes - mean), Math.abs((lo.load + l) / lo.nodes - mean));
      if (score >= current - EPS) continue;
      if (!best || score < best.score - EPS || (Math.abs(score - best.score) <= EPS && (l < best.l || (l === best.l && t.id < best.t.id)))) {
        best = { t, l, score };
      }
    }
    if (!best) break;

    const from = placer.indices.get(best.t.index);
    const t = placer.remove(best.t.id);
    const to = placer.place({ id: t.id, documents: t.documents, traffic: t.traffic, group: lo.group, dedicated: from.kind === 'dedicated' ? true : undefined });
    moved.add(t.id);
    moves.push({
      tenant: t.id,
      load: round(best.l),
      from: { group: from.group, index: from.name },
      to: { group: to.group, index: to.index, new_index: Boolean(to.create), dedicated: to.kind === 'dedicated' },
    });
  }

  const after = placer.groupLoads();
  return {
    tolerance,
    mean: round(meanLoad(after)),
    balanced: isBalanced(after, tolerance),
    before: before.map(present),
    after: after.map(present),
    moves,
  };
}

const round = (x) => Math.round(x * 1e6) / 1e6;
const present = (l) => ({ group: l.group, nodes: l.nodes, load: round(l.load), load_per_node: round(l.perNode) });
