// Where a moving tenant counts, and what a stopped move keeps. GET /groups and /metrics are
// both placement/model.js's groupLoad: sampled all through a move they agree on every group's
// load and every index's tenants, and the tenant counts at the source until the move's switch
// phase and at the target from then on. A move stopped by SIGTERM (or killed) mid-copy resumes
// at the next start with its counters: it reports every document of the tenant as copied.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { productDoc, VersionClock, writeBatch } from '@tenantlab/test-support/storefront';
import { allocatorForSuite, es, sleep, uniquePrefix } from './harness.js';

const prefix = uniquePrefix();
const DOCS = 3000;
const BEFORE_SWITCH = new Set(['prepare', 'split', 'copy']);

/** { group_load: {group: v}, tenants: {index: v}, tenant_index: {tenant: index} } from /metrics. */
function parseMetrics(text) {
  const out = { group_load: {}, tenants: {}, tenant_index: {} };
  for (const line of text.split('\n')) {
    let m = /^tenantlab_group_load\{index_group="([^"]+)"\} (\S+)$/.exec(line);
    if (m) out.group_load[m[1]] = Number(m[2]);
    m = /^tenantlab_tenants\{index_group="[^"]+",index="([^"]+)"\} (\S+)$/.exec(line);
    if (m) out.tenants[m[1]] = Number(m[2]);
    m = /^tenantlab_tenant_documents\{tenant="([^"]+)",index_group="[^"]+",index="([^"]+)"\}/.exec(line);
    if (m) out.tenant_index[m[1]] = m[2];
  }
  return out;
}

async function seed(tenant, n) {
  const clock = new VersionClock();
  for (let i = 0; i < n; i += 1000) {
    const ops = [];
    for (let k = i; k < Math.min(n, i + 1000); k++) {
      const version = clock.next();
      ops.push({ op: 'index', n: k, version, doc: productDoc(tenant, k, version) });
    }
    for (const r of await writeBatch(es, `tenant-${tenant}`, tenant, ops)) assert.ok(r.ok, JSON.stringify(r.error));
  }
  await es.indices.refresh({ index: `tenant-${tenant}` });
}

describe('group load and job counters during a move', () => {
  const a = allocatorForSuite(prefix);
  const tenant = `${prefix}mover`;
  let home;

  it('GET /groups and /metrics agree on every group and index all through a move', async () => {
    const created = await a.request('POST', '/tenants', { id: tenant, name: 'Mover', expected_products: DOCS, group: 'g1', dedicated: false });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    home = created.body;
    await seed(tenant, DOCS);

    const move = await a.request('POST', `/tenants/${tenant}/move`, { group: 'g2' });
    assert.equal(move.status, 202, JSON.stringify(move.body));
    const samples = [];
    for (;;) {
      const before = (await a.request('GET', `/jobs/${move.body.id}`)).body;
      if (before.state !== 'queued' && before.state !== 'running') break;
      const groups = (await a.request('GET', '/groups')).body;
      const metrics = parseMetrics((await a.request('GET', '/metrics')).body);
      const after = (await a.request('GET', `/jobs/${move.body.id}`)).body;
      // A sample is one instant of the move only if it did not change phase meanwhile.
      if (after.phase !== before.phase || after.state !== before.state) continue;
      for (const g of groups.groups) {
        assert.ok(Math.abs(g.load_per_node - metrics.group_load[g.name]) < 1e-6, `${before.phase}: group ${g.name} load ${g.load_per_node} in /groups, ${metrics.group_load[g.name]} in /metrics`);
        for (const ix of g.indices) assert.equal(ix.tenants, metrics.tenants[ix.name], `${before.phase}: tenants of ${ix.name}`);
      }
      const where = metrics.tenant_index[tenant];
      assert.equal(where, BEFORE_SWITCH.has(before.phase) ? before.from.index : before.to.index, `${before.phase}: the tenant counts in ${where}`);
      const counted = groups.groups.flatMap((g) => g.indices).find((ix) => ix.name === where);
      assert.ok(counted?.tenants >= 1, `${before.phase}: /groups counts the tenant in ${where}`);
      samples.push(before.phase);
      await sleep(50);
    }
    const job = await a.waitJob(move.body.id);
    assert.equal(job.state, 'succeeded', JSON.stringify(job.errors));
    assert.ok(samples.filter((p) => BEFORE_SWITCH.has(p)).length >= 2, `samples: ${samples.join(',')}`);
    console.log(JSON.stringify({ samples: samples.join(',') }));
    assert.equal(job.documents_copied, DOCS, 'nothing else wrote: every document copied once');

    // once over, both count it in the target
    const groups = (await a.request('GET', '/groups')).body;
    const metrics = parseMetrics((await a.request('GET', '/metrics')).body);
    assert.equal(metrics.tenant_index[tenant], job.to.index);
    for (const g of groups.groups) assert.ok(Math.abs(g.load_per_node - metrics.group_load[g.name]) < 1e-6);
  });

  it('a move stopped by SIGTERM mid-copy resumes at the next start with its counters', async () => {
    const move = await a.request('POST', `/tenants/${tenant}/move`, { group: home.group });
    assert.equal(move.status, 202, JSON.stringify(move.body));
    let seen;
    for (let i = 0; i < 1000; i++) {
      seen = (await a.request('GET', `/jobs/${move.body.id}`)).body;
      if ((seen.phase === 'copy' && seen.documents_copied > 0) || !['queued', 'running'].includes(seen.state) || ['switch', 'cleanup'].includes(seen.phase)) break;
      await sleep(10);
    }
    const t0 = Date.now();
    await a.stop();
    assert.equal(a.proc.exitCode, 0, 'a clean exit');
    assert.ok(Date.now() - t0 < 5000, `stopping took ${Date.now() - t0} ms`);
    await a.spawn();
    const job = await a.waitJob(move.body.id);
    assert.equal(job.state, 'succeeded', JSON.stringify(job.errors));
    console.log(JSON.stringify({ stoppedAt: { phase: seen.phase, copied: seen.documents_copied }, copied: job.documents_copied, phase_ms: job.phase_ms }));
    assert.equal(job.documents_copied, DOCS, `every document copied and counted once (stopped at ${seen.phase}, ${seen.documents_copied} copied)`);
    assert.equal((await a.request('GET', `/tenants/${tenant}`)).body.documents, DOCS);
  });
});
