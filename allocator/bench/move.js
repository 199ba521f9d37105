// Move throughput: a tenant with N documents moves to the other group; documents/s of the copy
// phase and of the whole move (alias switches, drain wait, cleanup included).
import { aliasFor } from '@tenantlab/contract/naming';
import { productDoc, VersionClock, writeBatch } from '@tenantlab/test-support/storefront';
import { AllocatorProcess } from '../src/process.js';
import { es } from '../test/integration/harness.js';

export async function benchMove({ prefix, policyFile, documents = 20000 }) {
  const a = await AllocatorProcess.start({ prefix, policyFile, env: { ALLOCATOR_LOG_LEVEL: 'error' } });
  try {
    const tenant = `${prefix}mover`;
    const t = await a.request('POST', '/tenants', { id: tenant, name: 'mover', expected_products: documents, dedicated: false });
    if (t.status !== 201) throw new Error(`setup: ${JSON.stringify(t.body)}`);
    const clock = new VersionClock();
    const t0 = Date.now();
    for (let i = 0; i < documents; i += 1000) {
      const ops = [];
      for (let n = i; n < Math.min(documents, i + 1000); n++) {
        const version = clock.next();
        ops.push({ op: 'index', n, version, doc: productDoc(tenant, n, version) });
      }
      const res = await writeBatch(es, aliasFor(tenant), tenant, ops);
      if (res.some((r) => !r.ok)) throw new Error('seed failed');
    }
    const seedSeconds = (Date.now() - t0) / 1000;
    await es.indices.refresh({ index: aliasFor(tenant) });
    const move = await a.request('POST', `/tenants/${tenant}/move`, { group: t.body.group === 'g1' ? 'g2' : 'g1' });
    const job = await a.waitJob(move.body.id, { timeoutMs: 600000 });
    if (job.state !== 'succeeded') throw new Error(`move failed: ${JSON.stringify(job.errors)}`);
    const total = (Date.parse(job.finished_at) - Date.parse(job.started_at)) / 1000;
    return {
      documents,
      seed_docs_per_s: Math.round(documents / seedSeconds),
      copy_docs_per_s: job.rate_docs_per_s,
      move_total_s: total,
      move_docs_per_s: Math.round(documents / total),
      passes: job.passes,
      phase_ms: job.phase_ms,
    };
  } finally {
    await a.kill();
  }
}
