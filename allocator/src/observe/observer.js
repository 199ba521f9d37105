// Periodically looks at the cluster for /metrics, GET /groups, GET /tenants and GET /hot:
// node groups, documents per index and tenant, what each tenant's searches and writes cost and
// how each group is doing over a sliding window (this folder), and which tenants are hot. Five
// requests per interval however many tenants there are: node attributes, one aggregation
// (documents and recent writes per index and tenant), one _stats (search with stats groups,
// indexing), one _nodes/stats (search pool, CPU), the cluster's health; one query to
// Prometheus (the load's p95 per group, when a run is scraped); and, on a timer of their own,
// the probe searches (probe.js, one per group every observe.probeIntervalMs). Each group is
// judged against its objectives (objective.js) with its baseline (baseline.js), learned here.
// After each observation the listeners (auto-isolation) see it.
import { discoverGroups } from '../es/cluster.js';
import { groupLoad, servingIndex } from '../placement/model.js';
import { objectiveOf } from '../policy.js';
import { Baselines } from './baseline.js';
import { ShareNormals } from './share-normal.js';
import { observedCost } from './cost.js';
import { indexCounters, nodeReadings, NODE_STATS_REQUEST, STATS_GROUPS } from './counters.js';
import { detectHot } from './hot.js';
import { whatLearns } from './learning.js';
import { loadP95ByGroup, loadRangeS } from './load-latency.js';
import { judgedSignal, judgeObjective } from './objective.js';
import { Prober } from './probe.js';
import { CounterWindow } from './window.js';
import { productsPattern, STATS_GROUP_PATTERN } from '@tenantlab/contract/naming';

const emptyCost = (windowS) => ({ window_s: windowS, span_s: 0, tenants: new Map(), groups: new Map() });

export class Observer {
  constructor({ client, config, store, metrics, log }) {
    Object.assign(this, { client, config, store, metrics, log });
    const { observe, hot } = config.policy;
    this.window = new CounterWindow(observe.windowS * 1000);
    this.prober = new Prober({ client, intervalMs: observe.probeIntervalMs, windowMs: observe.windowS * 1000, targets: () => this.#probeTargets() });
    this.baselines = new Baselines({ windowMs: hot.baselineS * 1000, readyMs: (observe.windowS * 1000) / 2 });
    // shares under hot.share - hot.shareRise pass the rise test whatever their normal: not kept
    this.shareNormals = new ShareNormals({ windowMs: hot.baselineS * 1000, readyMs: (observe.windowS * 1000) / 2, floor: Math.max(0.01, hot.share - hot.shareRise) });
    this.savedBaselinesAt = 0;
    this.hotSince = new Map();
    this.flaggedAt = new Map(); // group -> when a tenant of it was last flagged (ms)
    this.knownNodes = new Set();
    this.listeners = [];
    this.snapshot = {
      at: null,
      groups: [],
      indexDocs: new Map(),
      tenantDocs: new Map(),
      tenantIndexDocs: new Map(),
      searchRate: new Map(),
      cost: emptyCost(observe.windowS),
      hot: [],
      learns: new Map(),
      nodes: new Map(),
      health: { status: null, missing: [] },
    };
  }

  /** `fn(snapshot)` runs after every successful observation (errors are logged, not thrown). */
  onObservation(fn) {
    this.listeners.push(fn);
  }

  start() {
    this.stopped = false;
    // what the last process learned of the groups' normal (state/store.js keeps it)
    const saved = this.store.meta?.get('baselines');
    if (saved) this.baselines.restore(saved);
    this.shareNormals.restore(saved?.shares);
    this.prober.start();
    const tick = () =>
      this.observe()
        .catch((err) => {
          this.metrics.clusterUp.set(0);
          this.log.debug({ err: err.message }, 'observation failed');
        })
        .finally(() => {
          // stop() may come while an observation is in flight: then no next one.
          if (this.stopped) return;
          this.timer = setTimeout(tick, this.config.statsIntervalMs);
          this.timer.unref();
        });
    tick();
  }

  stop() {
    this.stopped = true;
    clearTimeout(this.timer);
    this.prober.stop();
  }

  /** Map group -> the active tenants served from it (sorted): the probe rotates over them. */
  #probeTargets() {
    const out = new Map();
    for (const t of [...this.store.tenants.values()].sort((a, b) => (a.id < b.id ? -1 : 1))) {
      if (t.state !== 'active') continue;
      const group = this.store.indices.get(servingIndex(t, this.store))?.group ?? t.group;
      out.set(group, [...(out.get(group) ?? []), t.id]);
    }
    return out;
  }

  async observe() {
    const { client, config, store } = this;
    const { observe } = config.policy;
    const pattern = productsPattern(config.prefix);
    const lenient = { allow_no_indices: true, ignore_unavailable: true };
    const [groups, docs, stats, nodeStats, health, loadP95] = await Promise.all([
      discoverGroups(client, config.groupAttr),
      client.search({
        index: pattern,
        size: 0,
        ...lenient,
        aggs: {
          idx: {
            terms: { field: '_index', size: 10000 },
            aggs: { t: { terms: { field: 'store_id', size: 10000 }, aggs: { recent: { filter: { range: { updated_at: { gte: `now-${observe.windowS}s` } } } } } } },
          },
        },
      }),
      client.indices.stats({ index: pattern, metric: 'search,indexing', groups: STATS_GROUPS(STATS_GROUP_PATTERN), ...lenient }),
      client.nodes.stats(NODE_STATS_REQUEST),
      client.cluster.health({ timeout: '2s' }),
      loadP95ByGroup(config.prometheusUrl, { rangeS: loadRangeS(observe.windowS) }),
    ]);
    const indexDocs = new Map();
    const tenantDocs = new Map();
    const tenantIndexDocs = new Map(); // index -> tenant -> documents (a moving tenant is in two)
    const recentWrites = new Map(); // index -> tenant -> products written inside the window
    for (const b of docs.aggregations?.idx.buckets ?? []) {
      indexDocs.set(b.key, b.doc_count);
      tenantIndexDocs.set(b.key, new Map(b.t.buckets.map((t) => [t.key, t.doc_count])));
      recentWrites.set(b.key, new Map(b.t.buckets.map((t) => [t.key, t.recent?.doc_count ?? 0])));
      for (const t of b.t.buckets) tenantDocs.set(t.key, (tenantDocs.get(t.key) ?? 0) + t.doc_count);
    }

    const now = Date.now();
    const counters = indexCounters(stats);
    const gauges = nodeReadings(nodeStats, counters);
    this.window.add(now, counters);
    const serving = new Map();
    for (const t of store.tenants.values()) {
      const index = servingIndex(t, store);
      serving.set(t.id, { index, group: store.indices.get(index)?.group ?? t.group });
    }
    const indexGroup = new Map([...store.indices.values()].map((ix) => [ix.name, ix.group]));
    // each group judged by what its shoppers feel, against its objectives
    const probes = this.prober.window.p95s();
    const signals = new Map();
    const judged = new Map();
    for (const g of groups) {
      const probe = probes.get(g.name) ?? null;
      const load = loadP95.get(g.name) ?? null;
      signals.set(g.name, { probe_p95_ms: probe?.p95_ms ?? null, probes: probe?.count ?? 0, load_p95_ms: load });
      const { signal, p95_ms: p95 } = judgedSignal({ loadP95: load, probe });
      judged.set(g.name, judgeObjective({ p95, signal, objectiveMs: objectiveOf(config.policy, g.name), baseline: this.baselines.get(g.name, signal, now), hot: config.policy.hot }));
    }
    const cost = observedCost({
      increases: this.window.increases(),
      spanS: this.window.spanS,
      serving,
      indexGroup,
      groups,
      gauges,
      recentWrites,
      observe,
      signals,
      judged,
    });
    const at = new Date(now).toISOString();
    const normalShare = (tenant, group, kind) => this.shareNormals.get(tenant, group, kind, now);
    const hot = detectHot(cost, config.policy.hot, { since: this.hotSince, now: at, normalShare });
    this.hotSince = new Map(hot.map((h) => [h.tenant, h.since]));
    // the groups' normal learns from this observation after it was judged (learning.js)
    for (const h of hot) this.flaggedAt.set(h.group, now);
    const learns = whatLearns(cost, { hot: config.policy.hot, observe, normalShare, flaggedAt: this.flaggedAt, now });
    const tenantsOf = new Map();
    for (const t of cost.tenants.values()) {
      if (!tenantsOf.has(t.group)) tenantsOf.set(t.group, []);
      tenantsOf.get(t.group).push(t);
    }
    for (const g of cost.groups.values()) {
      const learn = learns.get(g.group);
      this.baselines.add(now, g.group, g.signal, g.p95_ms, learn.baseline, g.relative_limit_ms);
      this.shareNormals.add(now, g.group, tenantsOf.get(g.group) ?? [], learn.shares);
    }
    this.shareNormals.keepOnly(new Set(store.tenants.keys()));
    await this.#saveBaselines(now);

    // A data node seen once and gone now is missing (a node that left, or one that crashed).
    const current = new Set(groups.flatMap((g) => g.nodes));
    for (const n of current) this.knownNodes.add(n);
    const missing = [...this.knownNodes].filter((n) => !current.has(n)).sort();
    const searchRate = new Map([...cost.tenants.values()].map((t) => [t.tenant, t.search_rate]));
    this.snapshot = { at, groups, indexDocs, tenantDocs, tenantIndexDocs, searchRate, cost, hot, learns, nodes: gauges, health: { status: health.status, missing } };
    this.#export();
    this.metrics.clusterUp.set(1);
    for (const fn of this.listeners) {
      try {
        await fn(this.snapshot);
      } catch (err) {
        this.log.error({ err: err.message }, 'observation listener failed');
      }
    }
  }

  /**
   * Forgets the baseline `group` learned (baseline.js forget) and saves at once, so a restart does
   * not bring it back -> { group, samples_dropped }. The tenants' normal shares stay: a load
   * test or a planned saturation scales every store alike.
   */
  async forgetBaseline(group) {
    const dropped = this.baselines.forget(group);
    this.log.info({ group, samples_dropped: dropped }, 'baseline forgotten: learned again from the next observations');
    await this.#saveBaselines(Date.now(), { force: true });
    return { group, samples_dropped: dropped };
  }

  /** Persists the baselines every 30 s (a restart keeps the groups' normal), or at once with `force`; a failure is logged only. */
  async #saveBaselines(now, { force = false } = {}) {
    if ((!force && now - this.savedBaselinesAt < 30000) || !this.store.putMeta) return;
    this.savedBaselinesAt = now;
    await this.store.putMeta('baselines', { ...this.baselines.toJSON(), shares: this.shareNormals.toJSON() }).catch((err) => this.log.debug({ err: err.message }, 'baselines not saved'));
  }

  /** Exports the snapshot; tenants and load as placement/model.js's groupLoad counts them, like GET /groups. */
  #export() {
    const { metrics, store } = this;
    const { groups, indexDocs, searchRate, cost, hot } = this.snapshot;
    const { loads, tenantsPerIndex, placed } = groupLoad({ store, snapshot: this.snapshot, groups, policy: this.config.policy });
    metrics.nodeGroup.reset();
    for (const g of groups) for (const n of g.nodes) metrics.nodeGroup.set({ node: n, index_group: g.name }, 1);
    for (const m of [metrics.tenants, metrics.indexDocuments, metrics.tenantDocuments, metrics.tenantSearchRate, metrics.tenantSearchTime, metrics.tenantSearchShare, metrics.tenantWriteRate, metrics.tenantWriteShare, metrics.tenantHot]) m.reset();
    for (const ix of store.indices.values()) {
      metrics.tenants.set({ index_group: ix.group, index: ix.name }, tenantsPerIndex.get(ix.name) ?? 0);
      metrics.indexDocuments.set({ index_group: ix.group, index: ix.name }, indexDocs.get(ix.name) ?? 0);
    }
    metrics.groupLoad.reset();
    for (const l of loads) metrics.groupLoad.set({ index_group: l.group }, l.perNode);
    for (const [id, p] of placed) {
      metrics.tenantDocuments.set({ tenant: id, index_group: p.group, index: p.index }, p.documents);
      metrics.tenantSearchRate.set({ tenant: id, index_group: p.group, index: p.index }, searchRate.get(id) ?? 0);
    }
    for (const t of cost.tenants.values()) {
      const labels = { tenant: t.tenant, index: t.index, index_group: t.group };
      metrics.tenantSearchTime.set(labels, t.search_ms_per_s);
      metrics.tenantSearchShare.set({ ...labels, of: 'index' }, t.share_of_index);
      metrics.tenantSearchShare.set({ ...labels, of: 'group' }, t.share_of_group);
      metrics.tenantWriteRate.set(labels, t.write_rate);
      metrics.tenantWriteShare.set(labels, t.write_share_of_group);
    }
    for (const h of hot) metrics.tenantHot.set({ tenant: h.tenant, index: h.index, index_group: h.group, kind: h.kind, crossed: h.crossed }, 1);
    for (const m of [metrics.groupLatency, metrics.groupProbe, metrics.groupP95, metrics.groupBaseline, metrics.groupRelativeLimit, metrics.groupMissed, metrics.groupObjective, metrics.groupSearchTime, metrics.groupIndexTime, metrics.groupQueue, metrics.groupRejected, metrics.groupCpu]) m.reset();
    for (const g of cost.groups.values()) {
      const labels = { index_group: g.group };
      if (g.latency_ms !== null) metrics.groupLatency.set(labels, g.latency_ms);
      if (g.probe_p95_ms !== null) metrics.groupProbe.set(labels, g.probe_p95_ms);
      if (g.p95_ms !== null) metrics.groupP95.set({ ...labels, signal: g.signal }, g.p95_ms);
      if (g.baseline_p95_ms !== null) metrics.groupBaseline.set(labels, g.baseline_p95_ms);
      if (g.relative_limit_ms !== null) metrics.groupRelativeLimit.set(labels, g.relative_limit_ms);
      if (g.meets_objective !== null) metrics.groupMissed.set(labels, g.missed ? 1 : 0);
      metrics.groupIndexTime.set(labels, g.index_ms_per_s ?? 0);
      metrics.groupObjective.set(labels, g.objective_ms);
      metrics.groupSearchTime.set(labels, g.search_ms_per_s);
      metrics.groupQueue.set(labels, g.queue);
      metrics.groupRejected.set(labels, g.rejected_per_s);
      if (g.cpu_percent !== null) metrics.groupCpu.set(labels, g.cpu_percent);
    }
    // one series per move in flight: the dashboards draw each as a region from start to end
    metrics.moveActive.reset();
    for (const j of store.jobs.values()) {
      if (j.type !== 'move' || (j.state !== 'queued' && j.state !== 'running')) continue;
      metrics.moveActive.set({ tenant: j.tenant, from_group: j.from.group, to_group: j.to.group, trigger: j.trigger ?? 'api' }, 1);
    }
  }
}
