import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { tenantLoad } from '../../src/placement/load.js';
import { PlacementError } from '../../src/errors.js';
import { dedicatedShards, needsDedicated, planPlacement, Placer } from '../../src/placement/place.js';
import { parsePolicy } from '../../src/policy.js';
import { rng, tenantMix, twoGroups } from '@tenantlab/test-support/random';

const policy = parsePolicy(JSON.parse(readFileSync(new URL('../../policy.json', import.meta.url))));
const prefix = 'tl-';
const empty = { groups: twoGroups, indices: [], tenants: [], policy, prefix };

function assertWithinCapacity(placer) {
  const cap = policy.shared.capacity;
  for (const ix of placer.indices.values()) {
    if (ix.kind !== 'shared') {
      assert.ok(ix.tenants <= 1, `dedicated ${ix.name} holds ${ix.tenants} tenants`);
      continue;
    }
    assert.ok(ix.tenants <= cap.tenants, `${ix.name}: ${ix.tenants} tenants`);
    assert.ok(ix.documents <= cap.documents, `${ix.name}: ${ix.documents} documents`);
    assert.ok(ix.traffic <= cap.traffic + 1e-9, `${ix.name}: traffic ${ix.traffic}`);
  }
}

describe('placement', () => {
  it('puts a small tenant into a new shared index of the first group', () => {
    const { decisions } = planPlacement(empty, [{ id: 'acme', documents: 100, traffic: 1 }]);
    assert.deepEqual(decisions[0], {
      id: 'acme',
      group: 'g1',
      index: 'tl-products-g1-s0001',
      kind: 'shared',
      create: { name: 'tl-products-g1-s0001', group: 'g1', kind: 'shared', shards: 2, replicas: 1 },
    });
  });

  it('alternates groups and reuses shared indices with room', () => {
    const { decisions } = planPlacement(empty, ['a', 'b', 'c', 'd'].map((id) => ({ id, documents: 100, traffic: 1 })));
    assert.deepEqual(decisions.map((d) => d.index), ['tl-products-g1-s0001', 'tl-products-g2-s0001', 'tl-products-g1-s0001', 'tl-products-g2-s0001']);
    assert.deepEqual(decisions.map((d) => Boolean(d.create)), [true, true, false, false]);
  });

  it('gives large tenants a dedicated index with shards following size', () => {
    const { decisions } = planPlacement(empty, [{ id: 'big', documents: 250000, traffic: 1 }]);
    assert.equal(decisions[0].kind, 'dedicated');
    assert.equal(decisions[0].index, 'tl-products-g1-t-big');
    assert.equal(decisions[0].create.shards, 3);
    assert.equal(dedicatedShards(10, policy), 1);
    assert.equal(dedicatedShards(10_000_000, policy), policy.dedicated.maxShards);
  });

  it('sends a tenant too hot for any shared index to a dedicated one', () => {
    assert.equal(needsDedicated({ documents: 10, traffic: policy.shared.capacity.traffic + 1 }, policy), true);
    assert.equal(needsDedicated({ documents: 10, traffic: 1, dedicated: true }, policy), true);
    assert.equal(needsDedicated({ documents: policy.dedicated.minProducts, traffic: 0, dedicated: false }, policy), false);
  });

  it('honours an explicit group and rejects unknown ones', () => {
    const p = new Placer(empty);
    assert.equal(p.place({ id: 'x', documents: 1, traffic: 1, group: 'g2' }).group, 'g2');
    assert.throws(() => p.place({ id: 'y', documents: 1, traffic: 1, group: 'nope' }), (e) => e instanceof PlacementError && e.code === 'unknown_group');
  });

  it('rejects an explicit index that is full, dedicated or unknown', () => {
    const p = new Placer(empty);
    const first = p.place({ id: 'a', documents: policy.shared.capacity.documents - 10, traffic: 1, dedicated: false });
    assert.throws(() => p.place({ id: 'b', documents: 100, traffic: 1, index: first.index }), { code: 'index_full' });
    const ded = p.place({ id: 'c', documents: 10, traffic: 1, dedicated: true });
    assert.throws(() => p.place({ id: 'd', documents: 1, traffic: 1, index: ded.index }), { code: 'not_shared' });
    assert.throws(() => p.place({ id: 'e', documents: 1, traffic: 1, index: 'nope' }), { code: 'unknown_index' });
  });

  it('fails with no groups', () => {
    assert.throws(() => new Placer({ ...empty, groups: [] }), { code: 'no_groups' });
  });

  it('never overfills a shared index, over thousands of random mixes', () => {
    for (let seed = 1; seed <= 2000; seed++) {
      const rand = rng(seed);
      const mix = tenantMix(rand, 5 + Math.floor(rand() * 60));
      const { placer } = planPlacement(empty, mix);
      assertWithinCapacity(placer);
      assert.equal(placer.tenants.size, mix.length, `seed ${seed}`);
    }
  });

  it('is deterministic: the same inputs give the same decisions', () => {
    for (let seed = 1; seed <= 200; seed++) {
      const mix = tenantMix(rng(seed), 200);
      const a = planPlacement(empty, mix).decisions;
      const b = planPlacement(empty, structuredClone(mix)).decisions;
      assert.deepEqual(a, b, `seed ${seed}`);
    }
  });

  it('keeps groups balanced: spread never exceeds the largest single tenant (greedy bound)', () => {
    for (let seed = 1; seed <= 500; seed++) {
      const rand = rng(seed);
      const mix = tenantMix(rand, 20 + Math.floor(rand() * 300));
      const { placer } = planPlacement(empty, mix);
      const loads = placer.groupLoads().map((l) => l.perNode);
      const maxTenant = Math.max(...mix.map((t) => tenantLoad(t, policy))) / 2;
      assert.ok(Math.max(...loads) - Math.min(...loads) <= maxTenant + 1e-9, `seed ${seed}: ${loads}`);
    }
  });

  it('keeps every group within 15% of the mean for many-tenant mixes', () => {
    for (let seed = 1; seed <= 300; seed++) {
      const mix = tenantMix(rng(seed), 2000, { bigShare: 0.005 });
      const { placer } = planPlacement(empty, mix);
      const loads = placer.groupLoads();
      const mean = loads.reduce((s, l) => s + l.perNode, 0) / loads.length;
      for (const l of loads) assert.ok(Math.abs(l.perNode - mean) <= 0.15 * mean, `seed ${seed}: ${l.group} ${l.perNode} vs mean ${mean}`);
    }
  });

  it('continues from an existing model: a placement in a loaded cluster goes where the headroom is', () => {
    const indices = [
      { name: 'tl-products-g1-s0001', group: 'g1', kind: 'shared', shards: 2, replicas: 1 },
      { name: 'tl-products-g1-s0002', group: 'g1', kind: 'shared', shards: 2, replicas: 1 },
      { name: 'tl-products-g2-s0001', group: 'g2', kind: 'shared', shards: 2, replicas: 1 },
    ];
    const tenants = [
      { id: 'a', documents: 150000, traffic: 1, index: 'tl-products-g1-s0001' },
      { id: 'b', documents: 10000, traffic: 1, index: 'tl-products-g1-s0002' },
      { id: 'c', documents: 190000, traffic: 1, index: 'tl-products-g2-s0001' },
    ];
    const p = new Placer({ ...empty, indices, tenants });
    const d = p.place({ id: 'n', documents: 5000, traffic: 1 });
    assert.equal(d.group, 'g1');
    assert.equal(d.index, 'tl-products-g1-s0002');
    // g2 pinned: its only index lacks document room, so a new one is made.
    const e = p.place({ id: 'm', documents: 20000, traffic: 1, group: 'g2' });
    assert.equal(e.index, 'tl-products-g2-s0002');
  });
});
