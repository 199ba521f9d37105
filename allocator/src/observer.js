// Periodically looks at the cluster (node groups, documents per index and tenant, search
// rates) for /metrics, GET /groups and GET /tenants. One aggregation and one _stats call per
// interval, however many tenants there are.
import { discoverGroups } from './es/cluster.js';
import { groupLoad } from './placement/model.js';
import { productsPattern, STATS_GROUP_PATTERN, tenantOfStatsGroup } from '@tenantlab/contract/naming';

export class Observer {
  constructor({ client, config, store, metrics, log }) {
    Object.assign(this, { client, config, store, metrics, log });
    this.snapshot = { at: null, groups: [], indexDocs: new Map(), tenantDocs: new Map(), tenantIndexDocs: new Map(), searchRate: new Map() };
    this.prevSearch = null;
  }

  start() {
    this.stopped = false;
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
  }

  async observe() {
    const { client, config, store, metrics } = this;
    const groups = await discoverGroups(client, config.groupAttr);
    const [docs, stats] = await Promise.all([
      client.search({
        index: productsPattern(config.prefix),
        size: 0,
        allow_no_indices: true,
        ignore_unavailable: true,
        aggs: { idx: { terms: { field: '_index', size: 10000 }, aggs: { t: { terms: { field: 'store_id', size: 10000 } } } } },
      }),
      client.indices.stats({ index: productsPattern(config.prefix), metric: 'search', groups: STATS_GROUP_PATTERN, allow_no_indices: true, ignore_unavailable: true }),
    ]);
    const indexDocs = new Map();
    const tenantDocs = new Map();
    const tenantIndexDocs = new Map(); // index -> tenant -> documents (a moving tenant is in two)
    for (const b of docs.aggregations?.idx.buckets ?? []) {
      indexDocs.set(b.key, b.doc_count);
      tenantIndexDocs.set(b.key, new Map(b.t.buckets.map((t) => [t.key, t.doc_count])));
      for (const t of b.t.buckets) tenantDocs.set(t.key, (tenantDocs.get(t.key) ?? 0) + t.doc_count);
    }
    const searchTotals = new Map();
    for (const ix of Object.values(stats.indices ?? {})) {
      for (const [group, s] of Object.entries(ix.total?.search?.groups ?? {})) {
        const id = tenantOfStatsGroup(group);
        if (id !== null) searchTotals.set(id, (searchTotals.get(id) ?? 0) + s.query_total);
      }
    }
    const now = Date.now();
    const searchRate = new Map();
    if (this.prevSearch) {
      const dt = (now - this.prevSearch.at) / 1000;
      for (const [id, total] of searchTotals) {
        const before = this.prevSearch.totals.get(id) ?? 0;
        searchRate.set(id, Math.max(0, Math.round(((total - before) / dt) * 100) / 100));
      }
    }
    this.prevSearch = { at: now, totals: searchTotals };
    this.snapshot = { at: new Date(now).toISOString(), groups, indexDocs, tenantDocs, tenantIndexDocs, searchRate };
    this.#export();
    metrics.clusterUp.set(1);
  }

  /** Exports the snapshot; tenants and load as placement/model.js's groupLoad counts them, like GET /groups. */
  #export() {
    const { metrics, store } = this;
    const { groups, indexDocs, searchRate } = this.snapshot;
    const { loads, tenantsPerIndex, placed } = groupLoad({ store, snapshot: this.snapshot, groups, policy: this.config.policy });
    metrics.nodeGroup.reset();
    for (const g of groups) for (const n of g.nodes) metrics.nodeGroup.set({ node: n, index_group: g.name }, 1);
    metrics.tenants.reset();
    metrics.indexDocuments.reset();
    metrics.tenantDocuments.reset();
    metrics.tenantSearchRate.reset();
    for (const ix of store.indices.values()) {
      metrics.tenants.set({ index_group: ix.group, index: ix.name }, tenantsPerIndex.get(ix.name) ?? 0);
      metrics.indexDocuments.set({ index_group: ix.group, index: ix.name }, indexDocs.get(ix.name) ?? 0);
    }
    metrics.groupLoad.reset();
    for (const l of loads) metrics.groupLoad.set({ index_group: l.group }, l.perNode);
    for (const [id, p] of placed) {
      metrics.tenantDocuments.set({ tenant: id, index_group: p.group, index: p.index }, p.documents);
      metrics.tenantSearchRate.set({ tenant: id }, searchRate.get(id) ?? 0);
    }
  }
}
