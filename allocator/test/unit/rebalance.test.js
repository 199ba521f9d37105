import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { isBalanced } from '../../src/placement/load.js';
import { Placer } from '../../src/placement/place.js';
import { planRebalance } from '../../src/rebalance/static-plan.js';
import { parsePolicy } from '../../src/policy.js';
import { rng, tenantMix, twoGroups } from '@tenantlab/test-support/random';

const raw = JSON.parse(readFileSync(new URL('../../policy.json', import.meta.url)));
const policy = parsePolicy({ ...raw, balance: { tolerance: 0.15, maxMoves: 10000 } });
const prefix = 'tl-';

/** Everything placed into g1 only: the worst imbalance a cluster can start from. */
function skewed(mix) {
  const p = new Placer({ groups: twoGroups, policy, prefix });
  for (const t of mix) p.place({ ...t, group: 'g1' });
  return {
    groups: twoGroups,
    indices: [...p.indices.values()].map(({ name, group, kind, shards, replicas }) => ({ name, group, kind, shards, replicas })),
    tenants: [...p.tenants.values()].map(({ id, documents, traffic, index }) => ({ id, documents, traffic, index })),
    policy,
    prefix,
  };
}

function apply(model, plan) {
  const placer = new Placer(model);
  for (const m of plan.moves) {
    const t = placer.remove(m.tenant);
    const d = placer.place({ id: t.id, documents: t.documents, traffic: t.traffic, group: m.to.group, dedicated: m.to.dedicated ? true : undefined });
    assert.equal(d.group, m.to.group);
  }
  return placer;
}

describe('rebalance planning', () => {
  it('does nothing for a balanced cluster', () => {
    const plan = planRebalance({ groups: twoGroups, indices: [], tenants: [], policy, prefix });
    assert.deepEqual(plan.moves, []);
    assert.equal(plan.balanced, true);
  });

  it('brings every group within 15% of the mean, over thousands of random mixes', () => {
    for (let seed = 1; seed <= 1000; seed++) {
      const rand = rng(seed);
      const mix = tenantMix(rand, 40 + Math.floor(rand() * 200), { bigShare: 0.01 });
      const model = skewed(mix);
      const plan = planRebalance(model);
      const after = apply(model, plan).groupLoads();
      // Balance is reachable whenever no single tenant outweighs the tolerance band.
      const total = after.reduce((s, l) => s + l.load, 0);
      const biggest = Math.max(...model.tenants.map((t) => t.documents / policy.shared.capacity.documents + t.traffic / policy.shared.capacity.traffic));
      if (biggest <= 0.15 * total / 2) {
        assert.ok(isBalanced(after, 0.15), `seed ${seed}: ${JSON.stringify(plan.after)}`);
        assert.equal(plan.balanced, true);
      }
      assert.deepEqual(plan.after.map((l) => l.load_per_node), after.map((l) => Math.round(l.perNode * 1e6) / 1e6), `seed ${seed}`);
    }
  });

  it('never plans a move into an over-capacity shared index', () => {
    for (let seed = 1; seed <= 300; seed++) {
      const model = skewed(tenantMix(rng(seed), 150));
      const placer = apply(model, planRebalance(model));
      for (const ix of placer.indices.values()) {
        if (ix.kind !== 'shared') continue;
        assert.ok(ix.tenants <= policy.shared.capacity.tenants && ix.documents <= policy.shared.capacity.documents && ix.traffic <= policy.shared.capacity.traffic + 1e-9, `seed ${seed} ${ix.name}`);
      }
    }
  });

  it('is deterministic and respects excluded tenants and the move budget', () => {
    const model = skewed(tenantMix(rng(7), 100));
    assert.deepEqual(planRebalance(model), planRebalance(structuredClone(model)));
    const exclude = new Set(model.tenants.map((t) => t.id).filter((_, i) => i % 2 === 0));
    for (const m of planRebalance(model, { exclude }).moves) assert.ok(!exclude.has(m.tenant));
    const tight = planRebalance({ ...model, policy: { ...policy, balance: { tolerance: 0.15, maxMoves: 2 } } });
    assert.ok(tight.moves.length <= 2);
  });

  it('keeps a dedicated tenant dedicated when it moves', () => {
    const model = skewed([{ id: 'big', documents: 120000, traffic: 1 }, { id: 'big2', documents: 90000, traffic: 1 }]);
    const plan = planRebalance(model);
    assert.equal(plan.moves.length, 1);
    assert.equal(plan.moves[0].to.dedicated, true);
    assert.equal(plan.moves[0].to.index, 'tl-products-g2-t-big2');
  });
});
