// The observer's own cost (issue: "its Elasticsearch calls per interval, and its CPU, with 1,000
// tenants"): two real allocators on the lab's cluster, one holding 1,000 tenants (BENCH_TENANTS),
// the baseline 10, each tenant with one document and searched once with its stats group (so
// _stats carries a group per tenant); both observe every second for the measured span, and probe
// each group at the lab policy's rate (observe.probeIntervalMs). During the span a steady
// stand-in for shoppers (SHOPPERS_PER_S searches per second on random tenants, each tagged with
// its stats group) runs, so the probe's share of each group's search time is a share of
// something. Reported: the allocator process's CPU (from /proc) per observation, the time of one
// observation (GET /hot?fresh=true), the Elasticsearch calls per observation and per second (the
// five of an observation plus the probes, counted from what the observer reports), and the
// probe's share of each group's search time; as figures and as ratios to the baseline measured in
// the same run.
import { readFileSync } from 'node:fs';
import { AllocatorProcess, cleanup, sleep, testPolicyFile } from '../test/integration/harness.js';
import { cpuSeconds, placeTenants, shoppers } from './tenants.js';

const SHOPPERS_PER_S = 20;

async function measureOne({ prefix, tenants, seconds }) {
  const policyFile = testPolicyFile();
  const { probeIntervalMs } = JSON.parse(readFileSync(policyFile, 'utf8')).observe;
  const a = await AllocatorProcess.start({ prefix, policyFile, env: { ALLOCATOR_STATS_INTERVAL_MS: '1000' } });
  try {
    const ids = await placeTenants(a, prefix, tenants);
    await sleep(3000);
    const shop = shoppers(ids, SHOPPERS_PER_S);
    const pid = a.proc.pid;
    const cpu0 = cpuSeconds(pid);
    const t0 = Date.now();
    await sleep(seconds * 1000);
    const cpu = cpuSeconds(pid) - cpu0;
    const wall = (Date.now() - t0) / 1000;
    const hot = (await a.request('GET', '/hot')).body;
    await shop.stop();
    const groups = hot.groups.filter((g) => g.probes > 0);
    // an observation's five requests (node attributes, the documents aggregation, _stats,
    // _nodes/stats, health) and, on their own timer, one probe per group per interval (plus a
    // store's categories, read once per ten minutes)
    const probesPerS = (groups.length * 1000) / probeIntervalMs;
    const times = [];
    for (let i = 0; i < 10; i++) {
      const s = performance.now();
      await a.request('GET', '/hot?fresh=true');
      times.push(performance.now() - s);
    }
    times.sort((x, y) => x - y);
    return {
      tenants,
      cpu_percent_of_a_core: Math.round((cpu / wall) * 1000) / 10,
      cpu_ms_per_observation: Math.round((cpu / wall) * 1000),
      observation_ms_median: Math.round(times[5]),
      observation_ms_max: Math.round(times[9]),
      es_requests_per_observation: 5,
      probe_searches_per_s: probesPerS,
      es_requests_per_s: 5 + probesPerS,
      shoppers_per_s: SHOPPERS_PER_S,
      probe_share_of_search: Object.fromEntries(groups.map((g) => [g.group, g.probe_share_of_search])),
    };
  } finally {
    await a.stop();
    await cleanup(prefix);
  }
}

export async function benchObserve({ prefix, seconds = 30, tenants = 1000 }) {
  const baseline = await measureOne({ prefix: `${prefix}b-`, tenants: 10, seconds });
  const large = await measureOne({ prefix: `${prefix}k-`, tenants, seconds });
  const ratio = (k) => (baseline[k] ? Math.round((large[k] / baseline[k]) * 100) / 100 : null);
  return { baseline, large, ratio: { cpu: ratio('cpu_ms_per_observation'), observation_ms: ratio('observation_ms_median') } };
}
