// Elasticsearch's answers turned into the counters and gauges the observer windows. Pure, so
// the shapes of the answers are pinned by unit tests on recorded responses.
//
// Counter keys (one flat map per observation, see window.js):
//   q|<index>|<tenant>  searches tagged with the tenant's stats group (shard-level query_total)
//   t|<index>|<tenant>  their time: query + fetch milliseconds
//   Q|<index>, T|<index> the same for every search on the index (tagged or not), the
//                       allocator's own probe searches (probe.js) left out
//   W|<index>           documents indexed (indexing.index_total, primaries and replicas)
//   I|<index>           milliseconds spent indexing them (indexing.index_time_in_millis)
//   P|<index>           the probe searches' own query + fetch time (their cost, stated apart)
//   R|<node>            searches the node's search thread pool rejected
import { tenantOfStatsGroup } from '@tenantlab/contract/naming';
import { PROBE_STATS_GROUP } from './probe.js';

const ms = (s) => (s?.query_time_in_millis ?? 0) + (s?.fetch_time_in_millis ?? 0);

/** The stats groups the observer asks `_stats` for: every tenant's and the probe's. */
export const STATS_GROUPS = (tenantPattern) => `${tenantPattern},${PROBE_STATS_GROUP}`;

/** Counters from `_stats/search,indexing?groups=<pattern>` (its `indices` part). */
export function indexCounters(stats, into = new Map()) {
  for (const [index, ix] of Object.entries(stats.indices ?? {})) {
    const search = ix.total?.search;
    const probe = search?.groups?.[PROBE_STATS_GROUP];
    into.set(`Q|${index}`, (search?.query_total ?? 0) - (probe?.query_total ?? 0));
    into.set(`T|${index}`, ms(search) - ms(probe));
    into.set(`W|${index}`, ix.total?.indexing?.index_total ?? 0);
    into.set(`I|${index}`, ix.total?.indexing?.index_time_in_millis ?? 0);
    into.set(`P|${index}`, ms(probe));
    for (const [group, s] of Object.entries(search?.groups ?? {})) {
      const tenant = tenantOfStatsGroup(group);
      if (tenant === null) continue;
      into.set(`q|${index}|${tenant}`, s.query_total ?? 0);
      into.set(`t|${index}|${tenant}`, ms(s));
    }
  }
  return into;
}

/**
 * From `_nodes/stats/thread_pool,process,jvm` (search pool, CPU, heap): rejections as counters
 * (R|<node>) into `counters`, and a Map node name -> { queue, active, cpu_percent, heap_percent,
 * rejected } of gauges (rejected: the node's count since it started, for the console).
 */
export function nodeReadings(nodeStats, counters = new Map()) {
  const gauges = new Map();
  for (const n of Object.values(nodeStats.nodes ?? {})) {
    const pool = n.thread_pool?.search ?? {};
    counters.set(`R|${n.name}`, pool.rejected ?? 0);
    gauges.set(n.name, { queue: pool.queue ?? 0, active: pool.active ?? 0, cpu_percent: n.process?.cpu?.percent ?? null, heap_percent: n.jvm?.mem?.heap_used_percent ?? null, rejected: pool.rejected ?? 0 });
  }
  return gauges;
}

/** Request options of the two calls above, small answers (filter_path) for 1,000s of tenants. */
export const NODE_STATS_REQUEST = {
  metric: 'thread_pool,process,jvm',
  filter_path: 'nodes.*.name,nodes.*.thread_pool.search,nodes.*.process.cpu.percent,nodes.*.jvm.mem.heap_used_percent',
};
