// Probe searches: one small search per index group per observation, timed from the allocator,
// so each group's latency objective is judged on what a search there really takes, queueing in
// the search pools and coordination included. (Elasticsearch's own query and fetch times are per
// shard and leave the wait out: a crawler that doubles the neighbours' response time barely moves
// them, and its many cheap queries even pull a group's average down.) A probe is a filter search
// of ten hits on one of the group's indices, request cache off, tagged with its own stats group
// so that its time is not counted as the group's searches (a tenant's share stays a share of
// what the storefront costs).
import { performance } from 'node:perf_hooks';

/** The stats group of every probe search: the cost figures leave it out of the groups' totals. */
export const PROBE_STATS_GROUP = 'tenantlab-probe';

/** Map group -> milliseconds of one probe search (null when it failed or the group has no index). */
export async function probeGroups(client, indicesByGroup) {
  const entries = await Promise.all([...indicesByGroup].map(async ([group, index]) => {
    const t0 = performance.now();
    try {
      await client.search({ index, size: 10, request_cache: false, stats: [PROBE_STATS_GROUP], query: { bool: { filter: [{ exists: { field: 'store_id' } }] } }, filter_path: 'took' });
      return [group, Math.round((performance.now() - t0) * 10) / 10];
    } catch {
      return [group, null];
    }
  }));
  return new Map(entries);
}

/** Probe timings kept over the observation window; `means()` per group. */
export class ProbeWindow {
  constructor(windowMs) {
    this.windowMs = windowMs;
    this.samples = [];
  }

  add(at, timings) {
    for (const [group, ms] of timings) if (ms !== null) this.samples.push({ at, group, ms });
    this.samples = this.samples.filter((s) => s.at > at - this.windowMs);
  }

  /** Map group -> mean probe milliseconds over the window (groups without a sample are absent). */
  means() {
    const sums = new Map();
    for (const s of this.samples) {
      const c = sums.get(s.group) ?? { n: 0, ms: 0 };
      c.n += 1;
      c.ms += s.ms;
      sums.set(s.group, c);
    }
    return new Map([...sums].map(([g, c]) => [g, Math.round((c.ms / c.n) * 10) / 10]));
  }
}
