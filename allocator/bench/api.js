// API latency at a fixed 200 requests/s on loopback (target p99 < 20 ms), against a real
// allocator process and the real cluster.
import autocannon from 'autocannon';
import { AllocatorProcess } from '../src/process.js';

function run(url, { rate = 200, duration = 10, requests }) {
  return new Promise((resolve, reject) => {
    autocannon({ url, connections: 10, overallRate: rate, duration, requests }, (err, res) => (err ? reject(err) : resolve(res)));
  });
}

export async function benchApi({ prefix, policyFile, duration = 10 }) {
  // Production observation interval (the test harness polls faster).
  const a = await AllocatorProcess.start({ prefix, policyFile, env: { ALLOCATOR_LOG_LEVEL: 'error', ALLOCATOR_STATS_INTERVAL_MS: '10000' } });
  try {
    const ids = [];
    for (let i = 0; i < 20; i++) {
      const id = `${prefix}api${i}`;
      const r = await a.request('POST', '/tenants', { id, name: id, expected_products: 100 + i });
      if (r.status !== 201) throw new Error(`setup: ${JSON.stringify(r.body)}`);
      ids.push(id);
    }
    const out = {};
    for (const [name, path] of [['GET /tenants/{id}', `/tenants/${ids[3]}`], ['GET /tenants', '/tenants'], ['GET /healthz', '/healthz'], ['POST /tenants (idempotent repeat)', null]]) {
      const requests = path ? [{ method: 'GET', path }] : [{ method: 'POST', path: '/tenants', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ id: ids[0], name: ids[0], expected_products: 100 }) }];
      const res = await run(a.url, { duration, requests });
      out[name] = { rps: Math.round(res.requests.average), p50_ms: res.latency.p50, p99_ms: res.latency.p99, max_ms: res.latency.max, non2xx: res.non2xx, errors: res.errors };
    }
    return out;
  } finally {
    await a.kill();
  }
}
