// The allocator's central promise: a tenant moves between index groups while its storefront
// keeps searching and writing, and afterwards the target holds exactly the tenant's latest
// documents (same ids, same content) and the source holds none.
import { aliasFor } from '@tenantlab/contract/naming';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { scanPages } from '../../src/es/scan.js';
import { docId, productDoc, VersionClock, writeBatch } from '@tenantlab/test-support/storefront';
import { allocatorForSuite, es, sleep, uniquePrefix } from './harness.js';

const prefix = uniquePrefix();
const STABLE = 500;
const INITIAL = 3000;

async function targetDocs(index, tenant) {
  await es.indices.refresh({ index });
  const out = new Map();
  for await (const page of scanPages(es, { index, query: { term: { store_id: tenant } }, size: 1000 })) {
    for (const h of page) out.set(h._id, h._source);
  }
  return out;
}

/** Seeds a tenant, then runs writer and searcher loops until stop() is called. */
async function storefront(allocator, tenant) {
  const alias = aliasFor(tenant);
  const clock = new VersionClock();
  const model = new Map(); // id -> latest acknowledged document
  const ops = [];
  for (let n = 0; n < INITIAL; n++) ops.push({ op: 'index', n, version: clock.next() });
  for (let i = 0; i < ops.length; i += 500) {
    const batch = ops.slice(i, i + 500).map((o) => ({ ...o, doc: productDoc(tenant, o.n, o.version, o.n < STABLE ? { keywords: ['lab', 'stable'] } : {}) }));
    for (const r of await writeBatch(es, alias, tenant, batch)) {
      assert.ok(r.ok, `seed write failed: ${JSON.stringify(r.error)}`);
      model.set(docId(tenant, r.n), r.doc);
    }
  }
  await es.indices.refresh({ index: alias });

  let stop = false;
  const stats = { writes: 0, deletes: 0, creates: 0, searches: 0, searchFailures: [] };
  let next = INITIAL;
  const live = () => [...model.keys()].map((id) => Number(id.split(':')[1])).filter((n) => n >= STABLE);

  const writer = (async () => {
    let rand = 1;
    const r = () => ((rand = (rand * 48271) % 2147483647) / 2147483647);
    while (!stop) {
      const ids = live();
      const batch = [];
      for (let i = 0; i < 20; i++) {
        const p = r();
        const version = clock.next();
        if (p < 0.5 && ids.length) {
          const n = ids[Math.floor(r() * ids.length)];
          batch.push({ op: 'index', n, version, doc: productDoc(tenant, n, version, { price: Math.round(r() * 1000) }) });
        } else if (p < 0.8) {
          const n = next++;
          batch.push({ op: 'index', n, version, doc: productDoc(tenant, n, version) });
        } else if (ids.length) {
          batch.push({ op: 'delete', n: ids[Math.floor(r() * ids.length)], version });
        }
      }
      // One op per doc per batch keeps "last acknowledged" unambiguous.
      const seen = new Set();
      const unique = batch.filter((o) => !seen.has(o.n) && seen.add(o.n));
      for (const res of await writeBatch(es, alias, tenant, unique)) {
        assert.ok(res.ok, `write ${res.op} ${res.n} failed: ${res.status} ${JSON.stringify(res.error)}`);
        const id = docId(tenant, res.n);
        if (res.op === 'delete') {
          model.delete(id);
          stats.deletes++;
        } else {
          if (!model.has(id)) stats.creates++;
          model.set(id, res.doc);
          stats.writes++;
        }
      }
      await sleep(20);
    }
  })();

  const searcher = (async () => {
    while (!stop) {
      try {
        const res = await es.search({ index: alias, size: 10, track_total_hits: true, query: { match: { keywords: 'stable' } }, stats: [alias] });
        stats.searches++;
        if (res.hits.total.value !== STABLE) stats.searchFailures.push(`stable total ${res.hits.total.value}`);
        if (res.hits.hits.length !== 10) stats.searchFailures.push(`page of ${res.hits.hits.length}`);
        const all = await es.count({ index: alias });
        if (all.count < STABLE) stats.searchFailures.push(`total count ${all.count}`);
      } catch (err) {
        stats.searchFailures.push(`search error: ${err.message}`);
      }
      await sleep(10);
    }
  })();

  return {
    model,
    stats,
    async stop() {
      stop = true;
      await Promise.all([writer, searcher]);
    },
  };
}

describe('moving a tenant under load', () => {
  const allocator = allocatorForSuite(prefix);

  for (const scenario of [
    { name: 'between groups (shared -> shared)', tenant: `${prefix}shop`, spec: {}, target: (t) => ({ group: t.group === 'g1' ? 'g2' : 'g1' }) },
    { name: 'into a dedicated index, with an allocator crash mid-move', tenant: `${prefix}hot`, spec: { group: 'g1' }, target: () => ({ dedicated: true, group: 'g2' }), crash: true },
  ]) {
    it(`moves ${scenario.name}: searches never fail, no write is lost`, async () => {
      const created = await allocator.request('POST', '/tenants', { id: scenario.tenant, name: 'Load test', expected_products: INITIAL, ...scenario.spec });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const shop = await storefront(allocator, scenario.tenant);
      await sleep(500);

      // What the tenant holds when the move is asked for; a document no write touches from now
      // on can reach the target only by being copied, so the job must count it as copied.
      const atRequest = new Map(shop.model);
      const move = await allocator.request('POST', `/tenants/${scenario.tenant}/move`, scenario.target(created.body));
      assert.equal(move.status, 202, JSON.stringify(move.body));
      assert.equal(move.headers.get('location'), `/jobs/${move.body.id}`);
      const again = await allocator.request('POST', `/tenants/${scenario.tenant}/move`, scenario.target(created.body));
      assert.equal(again.status, 409);
      assert.equal(again.body.error, 'tenant_moving');

      let killedAt;
      if (scenario.crash) {
        // Kill the allocator while writes already go to the target, then start it again: in
        // the middle of the copy once pages were written (its counters must survive), else at
        // the split.
        let split = false;
        for (let i = 0; i < 400; i++) {
          const j = (await allocator.request('GET', `/jobs/${move.body.id}`)).body;
          killedAt = { state: j.state, phase: j.phase, copied: j.documents_copied };
          if (j.phase === 'copy' && j.documents_copied > 0) break;
          split ||= j.phase === 'split' || j.phase === 'copy';
          if (split && !['split', 'copy'].includes(j.phase)) break;
          await sleep(10);
        }
        await allocator.kill('SIGKILL');
        // the drill proves the resume only if the job was still moving at the kill (as
        // 60-move-faults.bats asserts of its node kill): not before its split, not after its end
        assert.ok(killedAt.state === 'running' && ['split', 'copy', 'switch', 'cleanup'].includes(killedAt.phase),
          `the allocator was killed with the job ${JSON.stringify(killedAt)}, not mid-move`);
        await sleep(1500);
        await allocator.spawn();
      }

      const job = await allocator.waitJob(move.body.id);
      console.log(JSON.stringify({ killedAt, job: { created: job.created_at, started: job.started_at, finished: job.finished_at, copied: job.documents_copied, skipped: job.documents_skipped, passes: job.passes, rate: job.rate_docs_per_s, phase_ms: job.phase_ms } , stats: { ...shop.stats, searchFailures: shop.stats.searchFailures.length } }));
      assert.equal(job.state, 'succeeded', JSON.stringify(job.errors));
      await sleep(1000); // writes after the switch land on the target too
      await shop.stop();

      // The counters survive the crash and the resume: every document of the tenant that no
      // write touched during the move was copied, and counted, exactly as without a crash.
      const untouched = [...shop.model].filter(([id, doc]) => atRequest.get(id) === doc).length;
      assert.ok(untouched >= STABLE, `${untouched} untouched documents`);
      assert.ok(job.documents_copied >= untouched, `job reports ${job.documents_copied} documents copied, but ${untouched} of the tenant's documents can only have reached the target by a copy (killed at ${JSON.stringify(killedAt)})`);
      assert.equal('checkpoint' in job, false, 'the API does not show the internal checkpoint');

      assert.deepEqual(shop.stats.searchFailures, [], 'searches during the move');
      assert.ok(shop.stats.searches > 20, `only ${shop.stats.searches} searches ran`);
      assert.ok(shop.stats.deletes > 0 && shop.stats.creates > 0 && shop.stats.writes > 0, JSON.stringify(shop.stats));

      const docs = await targetDocs(job.to.index, scenario.tenant);
      const missing = [...shop.model.keys()].filter((id) => !docs.has(id));
      const extra = [...docs.keys()].filter((id) => !shop.model.has(id));
      assert.deepEqual({ missing: missing.slice(0, 5), extra: extra.slice(0, 5) }, { missing: [], extra: [] }, `${missing.length} missing, ${extra.length} resurrected`);
      const stale = [...shop.model].filter(([id, doc]) => JSON.stringify(docs.get(id)) !== JSON.stringify(doc));
      assert.equal(stale.length, 0, `stale content for ${stale.slice(0, 3).map(([id]) => id)}`);

      const sourceLeft = await es.count({ index: job.from.index, query: { term: { store_id: scenario.tenant } } }).catch((e) => (e.meta?.statusCode === 404 ? { count: 0 } : Promise.reject(e)));
      assert.equal(sourceLeft.count, 0, 'source still holds documents');

      const t = (await allocator.request('GET', `/tenants/${scenario.tenant}`)).body;
      assert.equal(t.index, job.to.index);
      assert.equal(t.state, 'active');
      assert.equal(t.documents, shop.model.size);
      const alias = await es.indices.getAlias({ name: aliasFor(scenario.tenant) });
      assert.deepEqual(Object.keys(alias), [job.to.index]);
      assert.equal(alias[job.to.index].aliases[aliasFor(scenario.tenant)].is_write_index, true);
      const settings = await es.indices.getSettings({ index: job.to.index, flat_settings: true });
      assert.equal(settings[job.to.index].settings['index.gc_deletes'], undefined, 'gc_deletes restored');
    });
  }
});
