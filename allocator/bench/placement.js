// Placement plan for 100k synthetic tenants on the lab's two groups (target < 1 s).
import { performance } from 'node:perf_hooks';
import { planPlacement } from '../src/placement/place.js';
import { planRebalance } from '../src/rebalance/static-plan.js';
import { loadConfig } from '../src/config.js';
import { rng, tenantMix, twoGroups } from '@tenantlab/test-support/random';

export function benchPlacement({ n = 100000 } = {}) {
  const { policy } = loadConfig();
  const mix = tenantMix(rng(42), n);
  const model = { groups: twoGroups, indices: [], tenants: [], policy, prefix: 'bench-' };
  planPlacement(model, mix.slice(0, 2000)); // warm the JIT
  const t0 = performance.now();
  const { decisions, placer } = planPlacement(model, mix);
  const ms = performance.now() - t0;
  const indices = [...placer.indices.values()];
  const loads = placer.groupLoads();

  // Rebalance planning over the same population skewed onto one group.
  const skewed = { ...model, indices: indices.map(({ name, group, kind, shards, replicas }) => ({ name, group, kind, shards, replicas })), tenants: decisions.map((d, i) => ({ id: d.id, documents: mix[i].documents, traffic: mix[i].traffic, index: d.index })) };
  const t1 = performance.now();
  const plan = planRebalance(skewed);
  const planMs = performance.now() - t1;
  return {
    tenants: n,
    placement_ms: Math.round(ms),
    shared_indices: indices.filter((i) => i.kind === 'shared').length,
    dedicated_indices: indices.filter((i) => i.kind === 'dedicated').length,
    load_per_node: Object.fromEntries(loads.map((l) => [l.group, Math.round(l.perNode * 100) / 100])),
    rebalance_plan_ms: Math.round(planMs),
    rebalance_moves: plan.moves.length,
  };
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(JSON.stringify(benchPlacement(), null, 2));
