// What Elasticsearch says about a repetition: node stats before and after the measured window
// (query vs fetch time per request, search and write rejections, GC time, CPU per node) and,
// sampled every second while it runs, the deepest search and write thread pool queues.
const STATS_PATH = '/_nodes/stats/indices,thread_pool,jvm,process,indexing_pressure';
const STATS_FILTER = [
  'nodes.*.name', 'nodes.*.indices.search.query_total', 'nodes.*.indices.search.query_time_in_millis',
  'nodes.*.indices.search.fetch_total', 'nodes.*.indices.search.fetch_time_in_millis',
  'nodes.*.thread_pool.search.rejected', 'nodes.*.thread_pool.search.queue', 'nodes.*.thread_pool.write.rejected',
  'nodes.*.indexing_pressure.memory.total.coordinating_rejections', 'nodes.*.indexing_pressure.memory.total.primary_rejections',
  'nodes.*.indexing_pressure.memory.total.replica_rejections',
  'nodes.*.jvm.gc.collectors.*.collection_time_in_millis', 'nodes.*.process.cpu.total_in_millis',
].join(',');

const get = (client, path, querystring = {}) => client.transport.request({ method: 'GET', path, querystring });

/** One snapshot: { at, nodes: { name: { query, queryMs, fetch, fetchMs, rejected, writeRejected, pressureRejected, gcMs, cpuMs } } } */
export async function snapshot(client) {
  const body = await get(client, STATS_PATH, { filter_path: STATS_FILTER });
  const nodes = {};
  for (const n of Object.values(body.nodes ?? {})) {
    const s = n.indices?.search ?? {};
    const p = n.indexing_pressure?.memory?.total ?? {};
    const gc = Object.values(n.jvm?.gc?.collectors ?? {}).reduce((a, c) => a + (c.collection_time_in_millis ?? 0), 0);
    nodes[n.name] = {
      query: s.query_total ?? 0, queryMs: s.query_time_in_millis ?? 0,
      fetch: s.fetch_total ?? 0, fetchMs: s.fetch_time_in_millis ?? 0,
      rejected: n.thread_pool?.search?.rejected ?? 0, writeRejected: n.thread_pool?.write?.rejected ?? 0,
      // indexing pressure: a node refuses a bulk whose bytes in flight pass its limit (429, as a full queue)
      pressureRejected: (p.coordinating_rejections ?? 0) + (p.primary_rejections ?? 0) + (p.replica_rejections ?? 0), gcMs: gc, cpuMs: n.process?.cpu?.total_in_millis ?? 0,
    };
  }
  return { at: Date.now(), nodes };
}

const round = (v, d = 2) => (Number.isFinite(v) ? Math.round(v * 10 ** d) / 10 ** d : null);

/**
 * The figures of the window between two snapshots (nodes present in both); `queues`: the
 * deepest queues the sampler saw ({ search, write }).
 */
export function windowFigures(before, after, queues = null) {
  const q = queues ?? {};
  let query = 0, queryMs = 0, fetch = 0, fetchMs = 0, rejected = 0, gcMs = 0, writeRejected = 0, pressureRejected = 0;
  const cpu = {};
  const wallMs = Math.max(1, after.at - before.at);
  for (const [name, b] of Object.entries(before.nodes)) {
    const a = after.nodes[name];
    if (!a) continue;
    query += a.query - b.query; queryMs += a.queryMs - b.queryMs;
    fetch += a.fetch - b.fetch; fetchMs += a.fetchMs - b.fetchMs;
    rejected += a.rejected - b.rejected; gcMs += a.gcMs - b.gcMs;
    writeRejected += (a.writeRejected ?? 0) - (b.writeRejected ?? 0);
    pressureRejected += (a.pressureRejected ?? 0) - (b.pressureRejected ?? 0);
    cpu[name] = round(((a.cpuMs - b.cpuMs) / wallMs) * 100, 1);
  }
  return {
    // per shard-level query phase and per fetch phase, as _nodes/stats counts them
    query_ms_per_query: query ? round(queryMs / query, 3) : null,
    fetch_ms_per_fetch: fetch ? round(fetchMs / fetch, 3) : null,
    shard_queries: query,
    search_queue_max: q.search ?? null,
    search_rejected: rejected,
    write_queue_max: q.write ?? null,
    write_rejected: writeRejected,
    indexing_pressure_rejected: pressureRejected,
    cpu_percent_by_node: cpu,
    gc_ms: gcMs,
  };
}

/** Polls the search and write queues every `everyMs` until stop(); stop() resolves to the deepest seen: { search, write }. */
export function queueSampler(client, everyMs = 1000) {
  const max = { search: 0, write: 0 };
  let stopped = false;
  const tick = async () => {
    while (!stopped) {
      try {
        const body = await get(client, '/_nodes/stats/thread_pool', { filter_path: 'nodes.*.thread_pool.search.queue,nodes.*.thread_pool.write.queue' });
        for (const n of Object.values(body.nodes ?? {})) {
          max.search = Math.max(max.search, n.thread_pool?.search?.queue ?? 0);
          max.write = Math.max(max.write, n.thread_pool?.write?.queue ?? 0);
        }
      } catch { /* a missed sample is not a failed repetition */ }
      await new Promise((r) => setTimeout(r, everyMs));
    }
  };
  const loop = tick();
  return { stop: async () => { stopped = true; await loop; return max; } };
}
