// Rebalance by what is observed (GET /plan/rebalance?by=observed). Two cases:
//   - tenants are hot: each goes to the group with the most headroom (hot.js), in a dedicated
//     or a shared index there as the policy says; the move says why, with the numbers the
//     detection saw, and what the plan expects the groups' search time per node to become;
//   - none is hot: the static planner (static-plan.js) runs with each tenant's traffic
//     taken from its measured search time instead of its declared traffic_weight.
// `by=static` is the declared weights; without `by` it is observed once the window holds
// enough searches (observedEnough) and static before that.
import { headroomTarget, pct } from '../observe/hot.js';
import { Placer } from '../placement/place.js';
import { planRebalance } from './static-plan.js';

/** True when the window is at least half full and holds the policy's minimum of searches. */
export function observedEnough(cost, observe) {
  const queries = [...cost.groups.values()].reduce((s, g) => s + g.queries, 0);
  return cost.span_s >= observe.windowS / 2 && queries >= observe.minQueries;
}

/**
 * The model with each tenant's traffic replaced by its measured search time, scaled so the
 * measured total equals the declared total: the document term of the load keeps its weight.
 */
export function observedModel(model, cost) {
  const declared = model.tenants.reduce((s, t) => s + t.traffic, 0);
  const measured = model.tenants.reduce((s, t) => s + (cost.tenants.get(t.id)?.search_ms_per_s ?? 0), 0);
  if (measured <= 0) return model;
  const scale = (declared || model.tenants.length) / measured;
  return { ...model, tenants: model.tenants.map((t) => ({ ...t, traffic: (cost.tenants.get(t.id)?.search_ms_per_s ?? 0) * scale })) };
}

/** One hot tenant's move, or null when no group has more headroom than its own. */
export function hotMove({ model, cost, hot, policy }) {
  const target = headroomTarget(cost, hot.tenant);
  if (!target) return null;
  const placer = new Placer(model);
  const from = placer.tenants.get(hot.tenant);
  if (!from) return null;
  const fromIndex = placer.indices.get(from.index);
  placer.remove(hot.tenant);
  const dedicated = policy.hot.dedicated || fromIndex.kind === 'dedicated' ? true : undefined;
  const to = placer.place({ id: hot.tenant, documents: from.documents, traffic: from.traffic, group: target.group, dedicated });
  const own = target.expected.find((e) => e.group === hot.group).busy_ms_per_s_per_node;
  const there = target.expected.find((e) => e.group === target.group).busy_ms_per_s_per_node;
  return {
    tenant: hot.tenant,
    from: { group: fromIndex.group, index: fromIndex.name },
    to: { group: to.group, index: to.index, new_index: Boolean(to.create), dedicated: to.kind === 'dedicated' },
    why:
      `hot: ${hot.why}; ${target.group} is the least busy group (${there.before} ms/s of search and indexing per node against ${hot.group}'s ${own.before}); ` +
      `expected after the move: ${hot.group} ${own.after}, ${target.group} ${there.after} ms/s per node`,
    evidence: hot,
    expected: target.expected,
  };
}

/** The observed plan (see the header). `exclude`: tenants that must not move. */
export function planObserved({ model, cost, hot, policy, exclude = new Set() }) {
  const base = { by: 'observed', window_s: cost.window_s, span_s: cost.span_s, hot: hot.map((h) => h.tenant) };
  const moves = [];
  let c = cost;
  for (const h of hot) {
    if (moves.length >= policy.balance.maxMoves || exclude.has(h.tenant)) continue;
    const m = hotMove({ model, cost: c, hot: h, policy });
    if (!m) continue;
    moves.push(m);
    c = shifted(c, h.tenant, m.from.group, m.to.group);
  }
  if (hot.length) {
    const before = groupsView(cost);
    return { ...base, tolerance: policy.balance.tolerance, mean: null, balanced: moves.length === 0, before, after: groupsView(c, { latency: false }), moves };
  }
  const plan = planRebalance(observedModel(model, cost), { exclude });
  for (const m of plan.moves) {
    const t = cost.tenants.get(m.tenant);
    m.why = `balance by observed search time: ${m.tenant} costs ${t?.search_ms_per_s ?? 0} ms/s (${pct(t?.share_of_group ?? 0)} of ${m.from.group}); load per node ${describe(plan.before)} -> ${describe(plan.after)}`;
  }
  return { ...base, ...plan };
}

/** The cost with one tenant's search time moved from one group to another (for the next pick). */
function shifted(cost, tenant, from, to) {
  const t = cost.tenants.get(tenant);
  const groups = new Map([...cost.groups].map(([k, g]) => [k, { ...g }]));
  groups.get(from).search_ms_per_s -= t.search_ms_per_s;
  groups.get(to).search_ms_per_s += t.search_ms_per_s;
  groups.get(from).index_ms_per_s = (groups.get(from).index_ms_per_s ?? 0) - (t.write_ms_per_s ?? 0);
  groups.get(to).index_ms_per_s = (groups.get(to).index_ms_per_s ?? 0) + (t.write_ms_per_s ?? 0);
  const tenants = new Map(cost.tenants);
  tenants.set(tenant, { ...t, group: to });
  return { ...cost, groups, tenants };
}

// `after` is an estimate of search time only: the plan cannot predict latency.
const groupsView = (cost, { latency = true } = {}) =>
  [...cost.groups.values()].map((g) => ({
    group: g.group,
    nodes: g.nodes,
    search_ms_per_s: Math.round(g.search_ms_per_s * 10) / 10,
    search_ms_per_s_per_node: Math.round((g.search_ms_per_s / Math.max(1, g.nodes)) * 10) / 10,
    index_ms_per_s: Math.round((g.index_ms_per_s ?? 0) * 10) / 10,
    ...(latency ? { p95_ms: g.p95_ms, signal: g.signal, objective_ms: g.objective_ms, baseline_p95_ms: g.baseline_p95_ms, relative_limit_ms: g.relative_limit_ms, missed: g.missed } : {}),
  }));

const describe = (loads) => loads.map((l) => `${l.group} ${Math.round(l.load_per_node * 1000) / 1000}`).join(', ');
