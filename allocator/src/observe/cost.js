// What each tenant really costs and how each index group is doing, over the observation window,
// from the counters' increases (window.js). Pure: the observer feeds it, the unit tests too.
//
// Units. Elasticsearch counts searches per shard copy searched (a search on a 2-shard index is 2
// "queries"), and times the query and fetch phases per shard. So a tenant's search time
// (ms of shard work per second) is what it costs the nodes, and a group's latency is the average
// shard-level query + fetch time: it excludes the wait in the search queue, which is reported
// next to it (queue, rejections), with the CPU of the group's nodes.

const round = (x, d = 3) => (x === null || !Number.isFinite(x) ? null : Math.round(x * 10 ** d) / 10 ** d);

/**
 * increases: Map of counter increases over the window (counters.js keys); spanS: seconds they
 * cover; serving: Map tenant -> { index, group } (where its reads come from); indexGroup: Map
 * index -> group of every managed index;
 * groups: [{ name, nodes }]; gauges: Map node -> { queue, active, cpu_percent };
 * recentWrites: Map index -> Map tenant -> products whose updated_at is inside the window (how a
 * shared index's indexing time is split between its tenants);
 * observe: policy.observe ({ windowS, minQueries }); signals: Map group -> { probe_p95_ms,
 * probes, load_p95_ms } (probe.js, load-latency.js); judged: Map group -> objective.js's
 * judgeObjective() (the p95 the group is judged by, its objectives and whether it misses one).
 */
export function observedCost({ increases, spanS, serving, indexGroup, groups, gauges = new Map(), recentWrites = new Map(), observe, signals = new Map(), judged = new Map() }) {
  const per = spanS > 0 ? 1 / spanS : 0;

  // tenant -> index -> { queries, ms }
  const byTenant = new Map();
  const indexTotals = new Map();
  for (const [key, inc] of increases) {
    const [kind, index, tenant] = key.split('|');
    if (kind === 'q' || kind === 't') {
      const t = byTenant.get(tenant) ?? new Map();
      byTenant.set(tenant, t);
      const cell = t.get(index) ?? { queries: 0, ms: 0 };
      t.set(index, cell);
      if (kind === 'q') cell.queries += inc;
      else cell.ms += inc;
    } else if (kind === 'Q' || kind === 'T' || kind === 'W' || kind === 'I' || kind === 'P') {
      const cell = indexTotals.get(index) ?? { queries: 0, ms: 0, writes: 0, indexMs: 0, probeMs: 0 };
      indexTotals.set(index, cell);
      if (kind === 'Q') cell.queries += inc;
      else if (kind === 'T') cell.ms += inc;
      else if (kind === 'W') cell.writes += inc;
      else if (kind === 'I') cell.indexMs += inc;
      else cell.probeMs += inc;
    }
  }

  // a tenant's indexing time: each index's, split by the tenant's share of its recent writes
  const tenantIndexMs = new Map(); // tenant -> index -> ms
  for (const [index, c] of indexTotals) {
    const writers = recentWrites.get(index);
    const total = writers ? [...writers.values()].reduce((a, b) => a + b, 0) : 0;
    if (!total || !c.indexMs) continue;
    for (const [tenant, n] of writers) {
      const m = tenantIndexMs.get(tenant) ?? new Map();
      m.set(index, (c.indexMs * n) / total);
      tenantIndexMs.set(tenant, m);
    }
  }

  const groupCost = new Map();
  const groupMs = new Map();
  const groupIndexMs = new Map();
  const groupQueries = new Map();
  for (const g of groups) {
    let queries = 0;
    let ms = 0;
    let writes = 0;
    let indexMs = 0;
    let probeMs = 0;
    for (const [index, c] of indexTotals) {
      if (indexGroup.get(index) !== g.name) continue;
      queries += c.queries;
      ms += c.ms;
      writes += c.writes;
      indexMs += c.indexMs;
      probeMs += c.probeMs;
    }
    // the tenants' own searches (their stats groups; never the probe's): a group is judged, and its
    // baseline learned, only while its own stores have shoppers. Counted with the probe, an idle
    // group's probes alone were "enough", and its baseline learned whatever latency other traffic
    // on the same nodes caused (make demo: the isolated variant's allocator learned the left-alone
    // variant's crawl as its normal, and missed the next burst)
    let tenantQueries = 0;
    for (const cells of byTenant.values()) {
      for (const [index, c] of cells) if (indexGroup.get(index) === g.name) tenantQueries += c.queries;
    }
    const readings = g.nodes.map((n) => gauges.get(n)).filter(Boolean);
    const cpus = readings.map((r) => r.cpu_percent).filter((x) => x !== null);
    const rejected = g.nodes.reduce((s, n) => s + (increases.get(`R|${n}`) ?? 0), 0);
    groupMs.set(g.name, ms);
    groupIndexMs.set(g.name, indexMs);
    groupQueries.set(g.name, queries);
    const latency = queries > 0 ? ms / queries : null;
    const sig = signals.get(g.name) ?? {};
    const j = judged.get(g.name) ?? { p95_ms: null, signal: null, objective_ms: null, baseline_p95_ms: null, relative: null, relative_limit_ms: null, meets_objective: null, missed: null };
    groupCost.set(g.name, {
      group: g.name,
      nodes: g.nodes.length,
      tenants: [...serving.values()].filter((s) => s.group === g.name).length,
      search_rate: round(queries * per, 2),
      search_ms_per_s: round(ms * per, 1),
      search_ms_per_s_per_node: round((ms * per) / Math.max(1, g.nodes.length), 1),
      write_rate: round(writes * per, 1),
      index_ms_per_s: round(indexMs * per, 1),
      latency_ms: round(latency),
      // what the objective is judged on (objective.js): the shoppers' p95 or the probe's
      ...j,
      probe_p95_ms: sig.probe_p95_ms ?? null,
      probes: sig.probes ?? 0,
      // what the probe itself costs: its shard time and its share of all search time on the group
      probe_ms_per_s: round(probeMs * per, 1),
      probe_share_of_search: ms + probeMs > 0 ? round(probeMs / (ms + probeMs)) : 0,
      load_p95_ms: sig.load_p95_ms ?? null,
      queue: readings.reduce((s, r) => s + r.queue, 0),
      rejected_per_s: round(rejected * per, 2),
      cpu_percent: cpus.length ? round(cpus.reduce((a, b) => a + b, 0) / cpus.length, 1) : null,
      queries,
      tenant_queries: tenantQueries,
      enough: spanS >= observe.windowS / 2 && tenantQueries >= observe.minQueries,
    });
  }

  const tenantCost = new Map();
  for (const [id, where] of serving) {
    const cells = byTenant.get(id) ?? new Map();
    let queries = 0;
    let ms = 0;
    let msInGroup = 0;
    let queriesInGroup = 0;
    for (const [index, c] of cells) {
      queries += c.queries;
      ms += c.ms;
      if (indexGroup.get(index) === where.group) {
        msInGroup += c.ms;
        queriesInGroup += c.queries;
      }
    }
    // what the rest of the group sees: its latency without this tenant's own searches (a
    // crawler's cheap queries would otherwise pull the group's average down while it hurts)
    const othersQueries = (groupQueries.get(where.group) ?? 0) - queriesInGroup;
    const othersMs = (groupMs.get(where.group) ?? 0) - msInGroup;
    const indexMs = indexTotals.get(where.index)?.ms ?? 0;
    const inGroup = groupMs.get(where.group) ?? 0;
    let writeMs = 0;
    let writeMsInGroup = 0;
    for (const [index, m] of tenantIndexMs.get(id) ?? []) {
      writeMs += m;
      if (indexGroup.get(index) === where.group) writeMsInGroup += m;
    }
    const groupWriteMs = groupIndexMs.get(where.group) ?? 0;
    tenantCost.set(id, {
      tenant: id,
      index: where.index,
      group: where.group,
      search_rate: round(queries * per, 2),
      search_ms_per_s: round(ms * per, 1),
      share_of_index: indexMs > 0 ? round((cells.get(where.index)?.ms ?? 0) / indexMs) : 0,
      share_of_group: inGroup > 0 ? round(Math.min(1, msInGroup / inGroup)) : 0,
      neighbours_latency_ms: othersQueries > 0 ? round(Math.max(0, othersMs) / othersQueries) : null,
      write_rate: round(recentOf(recentWrites, id) / observe.windowS, 2),
      // indexing time, the write side's cost: its share of the group's is what a noisy writer takes
      write_ms_per_s: round(writeMs * per, 1),
      write_share_of_group: groupWriteMs > 0 ? round(Math.min(1, writeMsInGroup / groupWriteMs)) : 0,
    });
  }
  return { window_s: observe.windowS, span_s: round(spanS, 1), tenants: tenantCost, groups: groupCost };
}

/** A tenant's recent writes over every index (a moving tenant writes to two). */
const recentOf = (recentWrites, tenant) => [...recentWrites.values()].reduce((s, m) => s + (m.get(tenant) ?? 0), 0);
