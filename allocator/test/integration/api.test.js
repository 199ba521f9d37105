// Every bad input the issue lists gets a 4xx with {error, message}; a cluster that is down
// gets a 503 with the reason; nothing is ever half-created.
import { aliasFor } from '@tenantlab/contract/naming';
import { productAction } from '@tenantlab/contract/write-contract';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { allocatorForSuite, AllocatorProcess, es, freePort, uniquePrefix } from './harness.js';

const prefix = uniquePrefix();
const id = (s) => `${prefix}${s}`;

function assertError(res, status, code) {
  assert.equal(res.status, status, JSON.stringify(res.body));
  assert.equal(typeof res.body, 'object');
  assert.deepEqual(Object.keys(res.body).sort(), ['error', 'message']);
  if (code) assert.equal(res.body.error, code);
  assert.ok(res.body.message.length > 5);
  assert.ok(!/\n\s+at /.test(res.body.message), 'no stack traces');
}

describe('API', () => {
  const a = allocatorForSuite(prefix);

  it('answers health, readiness, metrics and the OpenAPI document', async () => {
    assert.equal((await a.request('GET', '/healthz')).status, 200);
    const ready = await a.request('GET', '/readyz');
    assert.equal(ready.status, 200);
    assert.equal(ready.body.status, 'ready');
    const oa = await a.request('GET', '/openapi.json');
    assert.equal(oa.status, 200);
    assert.match(oa.body.openapi, /^3\./);
    for (const p of ['/healthz', '/readyz', '/metrics', '/groups', '/groups/{group}/baseline', '/tenants', '/tenants/_bulk', '/tenants/{id}', '/tenants/{id}/move', '/jobs/{id}', '/plan/rebalance', '/rebalance', '/hot']) {
      assert.ok(oa.body.paths[p], `openapi lacks ${p}`);
    }
    assert.ok(oa.body.paths['/tenants'].post.requestBody, 'POST /tenants documents its body');
  });

  it('is idempotent on POST /tenants: same spec 200, conflicting spec 409', async () => {
    const spec = { id: id('idem'), name: 'Idem', expected_products: 10 };
    const first = await a.request('POST', '/tenants', spec);
    assert.equal(first.status, 201);
    const second = await a.request('POST', '/tenants', spec);
    assert.equal(second.status, 200);
    assert.equal(second.body.index, first.body.index);
    assert.equal((await a.request('POST', '/tenants', { ...spec, traffic_weight: 1 })).status, 200, 'defaults count as the same spec');
    assertError(await a.request('POST', '/tenants', { ...spec, expected_products: 11 }), 409, 'tenant_conflict');
  });

  it('POST /tenants/_bulk places many tenants in one request, as POST /tenants would one by one', async () => {
    const specs = Array.from({ length: 12 }, (_, i) => ({ id: id(`bulk${i}`), name: `Bulk ${i}`, expected_products: i === 11 ? 2_000_000 : 100 + i }));
    const first = await a.request('POST', '/tenants/_bulk', { tenants: specs });
    assert.equal(first.status, 201, JSON.stringify(first.body));
    assert.deepEqual(first.body.tenants.map((r) => [r.created, r.tenant.id]), specs.map((s) => [true, s.id]));
    assert.equal(first.body.tenants[11].tenant.kind, 'dedicated', 'a big store gets its own index, as alone');
    // each one is there: its alias points at the index it was placed in, its state answers
    for (const { tenant } of first.body.tenants) {
      const alias = await es.indices.getAlias({ name: aliasFor(tenant.id) });
      assert.deepEqual(Object.keys(alias), [tenant.index]);
      assert.equal((await a.request('GET', `/tenants/${tenant.id}`)).body.index, tenant.index);
    }
    // the same list again confirms them (200), nothing new; one more beside them is created
    const again = await a.request('POST', '/tenants/_bulk', { tenants: [...specs, { id: id('bulk-more'), name: 'More', expected_products: 5 }] });
    assert.equal(again.status, 201);
    assert.deepEqual(again.body.tenants.map((r) => r.created), [...specs.map(() => false), true]);
    assert.deepEqual(again.body.tenants.slice(0, 12).map((r) => r.tenant.index), first.body.tenants.map((r) => r.tenant.index));
    assert.equal((await a.request('POST', '/tenants/_bulk', { tenants: specs })).status, 200);
  });

  it('POST /tenants/_bulk is all or nothing: a conflict, a foreign alias, a duplicate or a bad spec changes nothing', async () => {
    const known = { id: id('bk-known'), name: 'Known', expected_products: 10 };
    assert.equal((await a.request('POST', '/tenants', known)).status, 201);
    const fresh = { id: id('bk-fresh'), name: 'Fresh', expected_products: 10 };
    const indicesBefore = (await es.cat.indices({ index: `${prefix}*`, format: 'json', h: 'index' })).map((r) => r.index).sort();
    assertError(await a.request('POST', '/tenants/_bulk', { tenants: [fresh, { ...known, expected_products: 11 }] }), 409, 'tenant_conflict');
    assertError(await a.request('POST', '/tenants/_bulk', { tenants: [fresh, fresh] }), 400, 'bad_request');
    assertError(await a.request('POST', '/tenants/_bulk', { tenants: [fresh, { id: 'Bad_Id', name: 'x', expected_products: 1 }] }), 400, 'bad_request');
    assertError(await a.request('POST', '/tenants/_bulk', { tenants: [] }), 400, 'bad_request');
    assertError(await a.request('POST', '/tenants/_bulk', [fresh]), 400, 'bad_request');
    assertError(await a.request('POST', '/tenants/_bulk', { tenants: [fresh, { id: id('bk-g'), name: 'G', expected_products: 1, group: 'no-such-group' }] }), 404);
    // an alias of the tenant's name that the allocator did not make: refused, the rest not created
    const foreign = id('bk-foreign');
    const host = id('bk-host');
    await es.indices.create({ index: host, aliases: { [aliasFor(foreign)]: {} } });
    try {
      assertError(await a.request('POST', '/tenants/_bulk', { tenants: [fresh, { id: foreign, name: 'F', expected_products: 1 }] }), 409, 'alias_exists');
    } finally {
      await es.indices.delete({ index: host });
    }
    assertError(await a.request('GET', `/tenants/${fresh.id}`), 404);
    assert.equal(await es.indices.existsAlias({ name: aliasFor(fresh.id) }), false);
    const indicesAfter = (await es.cat.indices({ index: `${prefix}*`, format: 'json', h: 'index' })).map((r) => r.index).sort();
    assert.deepEqual(indicesAfter, indicesBefore);
  });

  it('rejects malformed JSON, unknown fields, bad ids and negative sizes with 400, bodies not JSON with 415', async () => {
    assertError(await a.request('POST', '/tenants', undefined, { raw: '{"id": "x",' }), 400, 'malformed_json');
    assertError(await a.request('POST', '/tenants', { id: id('u'), name: 'U', expected_products: 1, colour: 'red' }), 400, 'bad_request');
    assertError(await a.request('POST', '/tenants', { id: 'Bad_Id', name: 'U', expected_products: 1 }), 400, 'bad_request');
    assertError(await a.request('POST', '/tenants', { id: '-x', name: 'U', expected_products: 1 }), 400, 'bad_request');
    assertError(await a.request('POST', '/tenants', { id: 'x'.repeat(64), name: 'U', expected_products: 1 }), 400, 'bad_request');
    assertError(await a.request('POST', '/tenants', { id: id('n'), name: 'U', expected_products: -5 }), 400, 'bad_request');
    assertError(await a.request('POST', '/tenants', { id: id('n'), name: 'U', expected_products: 1, traffic_weight: -1 }), 400, 'bad_request');
    assertError(await a.request('POST', '/tenants', { id: id('n'), name: 'U', expected_products: '12' }), 400, 'bad_request');
    assertError(await a.request('POST', '/tenants', { id: id('n'), name: 'U' }), 400, 'bad_request');
    // text/plain is what a cross-site form sends without a preflight: not parsed at all (the origin guard)
    assertError(await a.request('POST', '/tenants', undefined, { raw: 'id=x', headers: { 'content-type': 'text/plain' } }), 415, 'unsupported_media_type');
    assertError(await a.request('POST', '/tenants', undefined, { raw: '<x/>', headers: { 'content-type': 'application/xml' } }), 415, 'unsupported_media_type');
    assertError(await a.request('GET', '/tenants/NOT_AN_ID'), 400, 'bad_request');
    assertError(await a.request('GET', '/jobs/../../etc'), 404);
    assertError(await a.request('GET', '/nope'), 404, 'not_found');
  });

  it('rejects unknown groups, indices and tenants', async () => {
    assertError(await a.request('POST', '/tenants', { id: id('g'), name: 'G', expected_products: 1, group: 'nope' }), 404, 'unknown_group');
    assertError(await a.request('GET', `/tenants/${id('ghost')}`), 404, 'tenant_not_found');
    assertError(await a.request('DELETE', `/tenants/${id('ghost')}`), 404, 'tenant_not_found');
    assertError(await a.request('POST', `/tenants/${id('ghost')}/move`, { group: 'g2' }), 404, 'tenant_not_found');
    assertError(await a.request('GET', '/jobs/move-zzz-000000'), 404, 'job_not_found');
    const t = await a.request('POST', '/tenants', { id: id('mv'), name: 'Mv', expected_products: 1 });
    assert.equal(t.status, 201);
    assertError(await a.request('POST', `/tenants/${id('mv')}/move`, { group: 'nope' }), 404, 'unknown_group');
    assertError(await a.request('POST', `/tenants/${id('mv')}/move`, { index: `${prefix}products-g9-s0001` }), 404, 'unknown_index');
    assertError(await a.request('POST', `/tenants/${id('mv')}/move`, { index: t.body.index }), 409, 'already_there');
    assertError(await a.request('POST', `/tenants/${id('mv')}/move`, {}), 400, 'bad_request');
    assertError(await a.request('POST', `/tenants/${id('mv')}/move`, { index: t.body.index, group: 'g1' }), 400, 'bad_request');
    assertError(await a.request('POST', `/tenants/${id('mv')}/move`, { group: 'g1', speed: 'fast' }), 400, 'bad_request');
    assertError(await a.request('DELETE', '/groups/nope/baseline'), 404, 'unknown_group');
  });

  it("forgets a group's learned baseline on DELETE /groups/{group}/baseline, and keeps it forgotten in the saved state", async () => {
    const res = await a.request('DELETE', '/groups/g1/baseline');
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.group, 'g1');
    assert.ok(Number.isInteger(res.body.samples_dropped) && res.body.samples_dropped >= 0);
    const g1 = (await a.request('GET', '/groups')).body.groups.find((g) => g.name === 'g1');
    assert.ok(!g1.latency?.baseline?.ready, `no ready baseline right after: ${JSON.stringify(g1.latency?.baseline)}`);
  });

  it('refuses to move a tenant that is already moving, or to delete it meanwhile', async () => {
    const t = await a.request('POST', '/tenants', { id: id('busy'), name: 'Busy', expected_products: 1 });
    const target = { group: t.body.group === 'g1' ? 'g2' : 'g1' };
    const move = await a.request('POST', `/tenants/${id('busy')}/move`, target);
    assert.equal(move.status, 202);
    assertError(await a.request('POST', `/tenants/${id('busy')}/move`, target), 409, 'tenant_moving');
    assertError(await a.request('DELETE', `/tenants/${id('busy')}`), 409, 'tenant_moving');
    const job = await a.waitJob(move.body.id);
    assert.equal(job.state, 'succeeded');
  });

  it('creates nothing when a step fails: the alias name is taken by an index', async () => {
    const victim = id('clash');
    // g2 holds no index of this run's yet... make sure the placement needs a new index.
    const before = await es.cat.indices({ index: `${prefix}*`, format: 'json', h: 'index' });
    await es.indices.create({ index: aliasFor(victim) });
    try {
      const res = await a.request('POST', '/tenants', { id: victim, name: 'Clash', expected_products: 1, dedicated: true });
      assert.ok(res.status >= 400 && res.status < 600 && res.status !== 500, `status ${res.status}`);
      assert.match(res.body.message, /invalid_alias_name|alias/);
      assert.deepEqual(Object.keys(res.body).sort(), ['error', 'message']);
      const afterRows = await es.cat.indices({ index: `${prefix}*`, format: 'json', h: 'index' });
      assert.deepEqual(afterRows.map((r) => r.index).sort(), before.map((r) => r.index).sort(), 'the dedicated index was rolled back');
      assertError(await a.request('GET', `/tenants/${victim}`), 404);
    } finally {
      await es.indices.delete({ index: aliasFor(victim) });
    }
  });

  it('deletes a tenant: alias and documents gone', async () => {
    const tid = id('del');
    const t = await a.request('POST', '/tenants', { id: tid, name: 'Del', expected_products: 1 });
    await es.bulk({ refresh: true, operations: [productAction({ tenant: tid, product: 1, version: 1 }), { store_id: tid, name: 'x', updated_at: 1 }] });
    const res = await a.request('DELETE', `/tenants/${tid}`);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { deleted: tid, documents_deleted: 1 });
    assert.equal(await es.indices.existsAlias({ name: aliasFor(tid) }), false);
    await es.indices.refresh({ index: t.body.index });
    assert.equal((await es.count({ index: t.body.index, query: { term: { store_id: tid } } })).count, 0);
    assertError(await a.request('DELETE', `/tenants/${tid}`), 404);
  });

  it('answers 503 with the reason while the cluster is unreachable, and stays alive', async () => {
    const dead = await freePort();
    const b = new AllocatorProcess({ prefix, port: await freePort(), env: { ALLOCATOR_ES_URL: `http://127.0.0.1:${dead}` } });
    await b.spawn({ waitReady: false });
    try {
      assert.equal((await b.request('GET', '/healthz')).status, 200);
      const r = await b.request('GET', '/readyz');
      assertError(r, 503, 'not_ready');
      assert.match(r.body.message, new RegExp(`127.0.0.1:${dead}`));
      assertError(await b.request('GET', '/tenants'), 503, 'cluster_unavailable');
      assertError(await b.request('POST', '/tenants', { id: id('x'), name: 'X', expected_products: 1 }), 503, 'cluster_unavailable');
      assertError(await b.request('GET', '/groups'), 503, 'cluster_unavailable');
    } finally {
      await b.kill();
    }
  });
});
