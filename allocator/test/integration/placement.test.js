// Placement against the real cluster: indices land only on their group's nodes, aliases carry
// the tenant filter and write index, state survives a restart and can be rebuilt from aliases,
// and a skewed cluster is rebalanced.
import { aliasFor, documentId } from '@tenantlab/contract/naming';
import { VERSION_TYPE } from '@tenantlab/contract/write-contract';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { allocatorForSuite, es, labConfig, sleep, uniquePrefix } from './harness.js';

const prefix = uniquePrefix();
const id = (s) => `${prefix}${s}`;

async function groupNodes() {
  const rows = await es.cat.nodeattrs({ format: 'json', h: 'node,attr,value' });
  const out = {};
  for (const r of rows) if (r.attr === labConfig.groupAttr) (out[r.value] ??= []).push(r.node);
  return out;
}

describe('placement on the real cluster', () => {
  const a = allocatorForSuite(prefix);

  it('puts every shard copy of a new index on its group\'s nodes only', async () => {
    const nodes = await groupNodes();
    const placed = [];
    for (const [name, spec] of [['s1', {}], ['s2', {}], ['pinned', { group: 'g2' }], ['big', { expected_products: 120000 }]]) {
      const res = await a.request('POST', '/tenants', { id: id(name), name, expected_products: 100, ...spec });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      placed.push(res.body);
    }
    assert.equal(placed[3].kind, 'dedicated');
    assert.notEqual(placed[0].group, placed[1].group, 'two small tenants go to different groups');
    assert.equal(placed[2].group, 'g2');
    const indices = [...new Set(placed.map((p) => p.index))];
    await es.cluster.health({ index: indices.join(','), wait_for_status: 'green', timeout: '60s' });
    const shards = await es.cat.shards({ index: indices.join(','), format: 'json', h: 'index,shard,prirep,state,node' });
    for (const s of shards) {
      const group = placed.find((p) => p.index === s.index).group;
      assert.equal(s.state, 'STARTED');
      assert.ok(nodes[group].includes(s.node), `${s.index} shard ${s.shard} on ${s.node}, not in ${group}`);
    }
    const big = await es.indices.getSettings({ index: placed[3].index, flat_settings: true });
    assert.equal(big[placed[3].index].settings['index.number_of_shards'], '2', 'dedicated shards follow expected size');
  });

  it('gives each tenant a filtered alias that is its write index', async () => {
    const t = (await a.request('GET', `/tenants/${id('s1')}`)).body;
    const aliases = await es.indices.getAlias({ name: aliasFor(t.id) });
    const def = aliases[t.index].aliases[aliasFor(t.id)];
    assert.deepEqual(def.filter, { term: { store_id: t.id } });
    assert.equal(def.is_write_index, true);
    // Writes through the alias, reads through the alias see only this tenant.
    await es.index({ index: aliasFor(t.id), id: documentId(t.id, 1), version: 5, version_type: VERSION_TYPE, document: { store_id: t.id, name: 'one', updated_at: 5 }, refresh: true });
    await es.index({ index: t.index, id: 'someone-else:1', document: { store_id: 'someone-else', name: 'x' }, refresh: true });
    assert.equal((await es.count({ index: aliasFor(t.id) })).count, 1);
    await sleep(1100); // GET /tenants/{id} may reuse a count for one refresh interval
    assert.equal((await a.request('GET', `/tenants/${t.id}`)).body.documents, 1);
    await es.delete({ index: t.index, id: 'someone-else:1', refresh: true });
    // The strict mapping rejects fields the lab does not know.
    await assert.rejects(es.index({ index: aliasFor(t.id), id: `${t.id}:2`, document: { store_id: t.id, colour: 'red' } }), /strict_dynamic_mapping_exception/);
  });

  it('reports groups and exports the node -> group info metric', async () => {
    const g = (await a.request('GET', '/groups')).body;
    assert.deepEqual(g.groups.map((x) => x.name), ['g1', 'g2']);
    assert.ok(g.groups.every((x) => x.nodes.length === 2 && x.tenants >= 1));
    await sleep(2500);
    const m = (await a.request('GET', '/metrics')).body;
    const nodes = await groupNodes();
    for (const [group, ns] of Object.entries(nodes)) {
      for (const n of ns) assert.match(m, new RegExp(`tenantlab_node_index_group_info\\{node="${n}",index_group="${group}"\\} 1`));
    }
    assert.match(m, new RegExp(`tenantlab_tenants\\{index_group="g\\d",index="${prefix}products-`));
    assert.match(m, /tenantlab_http_request_duration_seconds_bucket/);
    assert.match(m, /tenantlab_group_load\{index_group="g1"\} [0-9.]+/);
  });

  it('keeps its state across a restart, and rebuilds it from aliases when the state index is lost', async () => {
    const before = (await a.request('GET', '/tenants')).body.tenants;
    await a.kill('SIGKILL');
    await a.spawn();
    const afterRestart = (await a.request('GET', '/tenants')).body.tenants;
    const pick = (ts) => ts.map(({ id, name, index, group, kind, expected_products, state }) => ({ id, name, index, group, kind, expected_products, state }));
    assert.deepEqual(pick(afterRestart), pick(before));

    await a.kill('SIGKILL');
    await es.indices.delete({ index: `${prefix}allocator-state` });
    await a.spawn();
    const rebuilt = (await a.request('GET', '/tenants')).body.tenants;
    assert.deepEqual(rebuilt.map(({ id, index, group, kind }) => ({ id, index, group, kind })), before.map(({ id, index, group, kind }) => ({ id, index, group, kind })));
  });

  it('plans and runs a rebalance that brings the groups within tolerance', async () => {
    // Skew: several busy tenants pinned to g1.
    for (let i = 0; i < 4; i++) {
      const res = await a.request('POST', '/tenants', { id: id(`skew${i}`), name: 'skew', expected_products: 30000, traffic_weight: 10, group: 'g1' });
      assert.equal(res.status, 201, JSON.stringify(res.body));
    }
    const plan = (await a.request('GET', '/plan/rebalance')).body;
    assert.ok(plan.moves.length >= 1, JSON.stringify(plan));
    assert.equal(plan.balanced, true);
    const run = await a.request('POST', '/rebalance');
    assert.equal(run.status, 202);
    const job = await a.waitJob(run.body.job.id);
    assert.equal(job.state, 'succeeded', JSON.stringify(job));
    const again = (await a.request('GET', '/plan/rebalance')).body;
    assert.deepEqual(again.moves, []);
    const g = (await a.request('GET', '/groups')).body;
    assert.equal(g.balanced, true, JSON.stringify(g.groups.map((x) => [x.name, x.load_per_node])));
  });
});
