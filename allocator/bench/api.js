// API latency at a steady 200 requests/s on loopback (target p99 < 20 ms), against a real
// allocator process and the real cluster.
//
// The load is loadtest's: each of its 10 clients sends at a fixed interval (an open model,
// 200 arrivals a second spread over the second), and a request's latency is its own. The
// benchmark used autocannon before 2026-11-28: its `overallRate` lets each connection send its
// second's quota back to back and then idle until the next second, and corrects for coordinated
// omission at a 1 ms interval, so its "p99 at 200 req/s" was the tail of a 10-connection burst
// at the start of every second (each slow answer also counted once per millisecond it took).
// Each endpoint gets a few seconds of the same load first, unmeasured: the allocator process
// has just started and compiles its paths then (a long-running allocator has done so already).
import { nearestRank } from '@tenantlab/contract/percentile';
import { loadTest } from 'loadtest';
import { AllocatorProcess } from '../src/process.js';

const RATE = 200;
const CLIENTS = 10;

/**
 * The latencies loadtest keeps (a count per whole millisecond) -> nearest-rank percentiles, the
 * lab's one way of reading one (its own reading skips a bucket at 0 ms).
 */
export function histogramPercentiles(histogramMs, qs = [0.5, 0.95, 0.99]) {
  const xs = Object.entries(histogramMs).flatMap(([ms, n]) => Array(n).fill(Number(ms)));
  return Object.fromEntries(qs.map((q) => [`p${Math.round(q * 100)}_ms`, nearestRank(xs, q)]));
}

function run(url, { seconds, method = 'GET', body }) {
  return loadTest({
    url,
    method,
    ...(body ? { body, contentType: 'application/json' } : {}),
    requestsPerSecond: RATE,
    concurrency: CLIENTS,
    maxSeconds: seconds,
    agentKeepAlive: true,
    quiet: true,
  });
}

export async function benchApi({ prefix, policyFile, duration = 10, warmup = 3 }) {
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
    const cases = [
      ['GET /tenants/{id}', { path: `/tenants/${ids[3]}` }],
      ['GET /tenants', { path: '/tenants' }],
      ['GET /healthz', { path: '/healthz' }],
      ['POST /tenants (idempotent repeat)', { path: '/tenants', method: 'POST', body: { id: ids[0], name: ids[0], expected_products: 100 } }],
    ];
    for (const [name, { path, method, body }] of cases) {
      if (warmup > 0) await run(`${a.url}${path}`, { seconds: warmup, method, body });
      const res = await run(`${a.url}${path}`, { seconds: duration, method, body });
      // no answer at all is a broken load or allocator, not a latency of 0 ms
      if (!(res.totalRequests > res.totalErrors)) throw new Error(`loadtest: ${name}: ${res.totalErrors} of ${res.totalRequests} requests failed (${a.url}${path})`);
      out[name] = {
        rate: RATE,
        seconds: duration,
        requests: res.totalRequests,
        rps: res.effectiveRps,
        mean_ms: res.meanLatencyMs,
        ...histogramPercentiles(res.histogramMs),
        max_ms: res.maxLatencyMs,
        errors: res.totalErrors,
      };
    }
    return { tool: 'loadtest', rate: RATE, clients: CLIENTS, warmup_s: warmup, endpoints: out };
  } finally {
    await a.kill();
  }
}
