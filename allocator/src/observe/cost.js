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
 * recentWrites: Map tenant -> products whose updated_at is inside the window;
 * observe: policy.observe ({ windowS, minQueries }); objectiveOf(group) -> ms; probes: Map group
 * -> mean probe search ms over the window (probe.js); loadP95: Map group -> the load's p95 ms
 * (load-latency.js). A group's objective is judged on its probe when it has one, else on its
 * shard-level latency.
 */
export function observedCost({ increases, spanS, serving, indexGroup, groups, gauges = new Map(), recentWrites = new Map(), observe, objectiveOf, probes = new Map(), loadP95 = new Map() }) {
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
    } else if (kind === 'Q' || kind === 'T' || kind === 'W') {
      const cell = indexTotals.get(index) ?? { queries: 0, ms: 0, writes: 0 };
      indexTotals.set(index, cell);
      if (kind === 'Q') cell.queries += inc;
      else if (kind === 'T') cell.ms += inc;
      else cell.writes += inc;
    }
  }

  const groupCost = new Map();
  const groupMs = new Map();
  const groupQueries = new Map();
  for (const g of groups) {
    let queries = 0;
    let ms = 0;
    let writes = 0;
    for (const [index, c] of indexTotals) {
      if (indexGroup.get(index) !== g.name) continue;
      queries += c.queries;
      ms += c.ms;
      writes += c.writes;
    }
    const readings = g.nodes.map((n) => gauges.get(n)).filter(Boolean);
    const cpus = readings.map((r) => r.cpu_percent).filter((x) => x !== null);
    const rejected = g.nodes.reduce((s, n) => s + (increases.get(`R|${n}`) ?? 0), 0);
    groupMs.set(g.name, ms);
    groupQueries.set(g.name, queries);
    const latency = queries > 0 ? ms / queries : null;
    const objective = objectiveOf(g.name);
    const probe = probes.get(g.name) ?? null;
    const judged = probe ?? latency;
    groupCost.set(g.name, {
      group: g.name,
      nodes: g.nodes.length,
      tenants: [...serving.values()].filter((s) => s.group === g.name).length,
      search_rate: round(queries * per, 2),
      search_ms_per_s: round(ms * per, 1),
      search_ms_per_s_per_node: round((ms * per) / Math.max(1, g.nodes.length), 1),
      write_rate: round(writes * per, 1),
      latency_ms: round(latency),
      probe_ms: probe,
      // the shoppers' side while a load run is scraped by Prometheus: shown, not judged on
      load_p95_ms: loadP95.get(g.name) ?? null,
      objective_ms: objective,
      meets_objective: judged === null ? null : judged <= objective,
      queue: readings.reduce((s, r) => s + r.queue, 0),
      rejected_per_s: round(rejected * per, 2),
      cpu_percent: cpus.length ? round(cpus.reduce((a, b) => a + b, 0) / cpus.length, 1) : null,
      queries,
      enough: spanS >= observe.windowS / 2 && queries >= observe.minQueries,
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
    tenantCost.set(id, {
      tenant: id,
      index: where.index,
      group: where.group,
      search_rate: round(queries * per, 2),
      search_ms_per_s: round(ms * per, 1),
      share_of_index: indexMs > 0 ? round((cells.get(where.index)?.ms ?? 0) / indexMs) : 0,
      share_of_group: inGroup > 0 ? round(Math.min(1, msInGroup / inGroup)) : 0,
      neighbours_latency_ms: othersQueries > 0 ? round(Math.max(0, othersMs) / othersQueries) : null,
      write_rate: round((recentWrites.get(id) ?? 0) / observe.windowS, 2),
    });
  }
  return { window_s: observe.windowS, span_s: round(spanS, 1), tenants: tenantCost, groups: groupCost };
}
