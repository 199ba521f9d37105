// One group-load function behind GET /groups and /metrics: where a moving tenant counts (the
// source until its move's switch phase, the target from then on), its size (documents in the
// index it is read from, never both copies), and the placement model that reserves the target.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { groupLoad, placementModel, servingIndex, sizeOf } from '../../src/placement/model.js';
import { parsePolicy } from '../../src/policy.js';

const policy = parsePolicy({
  shared: { shards: 1, replicas: 0, capacity: { tenants: 10, documents: 1000, traffic: 10 } },
  dedicated: { minProducts: 5000, replicas: 0, productsPerShard: 1000, maxShards: 2 },
});
const groups = [{ name: 'g1', nodes: ['n1', 'n2'] }, { name: 'g2', nodes: ['n3'] }];

function world(phase) {
  const indices = new Map([
    ['a', { name: 'a', group: 'g1', kind: 'shared' }],
    ['b', { name: 'b', group: 'g2', kind: 'shared' }],
  ]);
  const tenants = new Map([
    ['mover', { id: 'mover', expected_products: 100, traffic_weight: 1, index: 'a', group: 'g1', state: phase ? 'moving' : 'active', job_id: phase ? 'move-1' : undefined }],
    ['stay', { id: 'stay', expected_products: 200, traffic_weight: 0, index: 'b', group: 'g2', state: 'active' }],
  ]);
  const jobs = new Map(phase ? [['move-1', { id: 'move-1', type: 'move', phase, to: { index: 'b', group: 'g2' } }]] : []);
  // mid-move the tenant's documents exist in both indices
  const snapshot = { tenantIndexDocs: new Map([['a', new Map([['mover', 400]])], ['b', new Map([['mover', phase ? 400 : 0], ['stay', 50]])]]) };
  return { store: { indices, tenants, jobs }, snapshot };
}

const perNode = (r, g) => r.loads.find((l) => l.group === g).perNode;

describe('group load', () => {
  for (const [phase, where] of [[null, 'a'], ['prepare', 'a'], ['split', 'a'], ['copy', 'a'], ['switch', 'b'], ['cleanup', 'b'], ['done', 'b']]) {
    it(`a tenant ${phase ? `in a move's ${phase} phase` : 'not moving'} counts in index ${where}`, () => {
      const { store, snapshot } = world(phase);
      assert.equal(servingIndex(store.tenants.get('mover'), store), where);
      const r = groupLoad({ store, snapshot, groups, policy });
      const mover = 400 / 1000 + 1 / 10; // its documents once, not twice
      const stay = 200 / 1000;
      assert.equal(r.placed.get('mover').index, where);
      assert.equal(r.placed.get('mover').documents, 400);
      assert.equal(r.tenantsPerIndex.get(where), where === 'b' ? 2 : 1);
      assert.ok(Math.abs(perNode(r, 'g1') - (where === 'a' ? mover / 2 : 0)) < 1e-12);
      assert.ok(Math.abs(perNode(r, 'g2') - (where === 'b' ? mover + stay : stay)) < 1e-12);
    });
  }

  it('a tenant counts at its announced size until it holds more documents', () => {
    const { store, snapshot } = world(null);
    assert.equal(sizeOf(store.tenants.get('stay'), snapshot, store), 200);
    assert.equal(sizeOf(store.tenants.get('mover'), snapshot, store), 400);
  });

  it('the placement model reserves a moving tenant where it is going, at its size once', () => {
    for (const phase of ['prepare', 'copy', 'cleanup']) {
      const { store, snapshot } = world(phase);
      const m = placementModel({ store, snapshot, groups, policy, prefix: 'x-' });
      assert.deepEqual(m.tenants.find((t) => t.id === 'mover'), { id: 'mover', documents: 400, traffic: 1, index: 'b' });
    }
  });

  it('reports balance from the same loads', () => {
    const { store, snapshot } = world(null);
    const r = groupLoad({ store, snapshot, groups, policy });
    assert.equal(r.loads.length, 2);
    assert.ok(Math.abs(r.mean - (0.5 + 0.2) / 3) < 1e-12);
    assert.equal(r.balanced, true, 'g1 0.25/node, g2 0.2/node: within 15% of 0.2333');
    const during = groupLoad({ ...world('cleanup'), groups, policy });
    assert.equal(during.balanced, false, 'g1 empty, g2 0.7/node');
  });
});
