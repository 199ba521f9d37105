// Periodically looks at the cluster (node groups, documents per index and tenant, search
// rates) for /metrics, GET /groups and GET /tenants. One aggregation and one _stats call per
// interval, however many tenants there are.
import { discoverGroups } from './es/cluster.js';
import { tenantLoad } from './placement/load.js';
import { ALIAS_PREFIX, productsPattern } from './placement/naming.js';

export class Observer {
  constructor({ client, config, store, metrics, log }) {
    Object.assign(this, { client, config, store, metrics, log });
    this.snapshot = { at: null, groups: [], indexDocs: new Map(), tenantDocs: new Map(), searchRate: new Map() };
    this.prevSearch = null;
  }

  start() {
    const tick = () =>
      this.observe()
        .catch((err) => {
          this.metrics.clusterUp.set(0);
          this.log.debug({ err: err.message }, 'observation failed');
        })
        .finally(() => {
          this.timer = setTimeout(tick, this.config.statsIntervalMs);
          this.timer.unref();
        });
    tick();
  }

  stop() {
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
      client.indices.stats({ index: productsPattern(config.prefix), metric: 'search', groups: `${ALIAS_PREFIX}*`, allow_no_indices: true, ignore_unavailable: true }),
    ]);
    const indexDocs = new Map();
    const tenantDocs = new Map();
    for (const b of docs.aggregations?.idx.buckets ?? []) {
      indexDocs.set(b.key, b.doc_count);
      for (const t of b.t.buckets) tenantDocs.set(t.key, (tenantDocs.get(t.key) ?? 0) + t.doc_count);
    }
    const searchTotals = new Map();
    for (const ix of Object.values(stats.indices ?? {})) {
      for (const [group, s] of Object.entries(ix.total?.search?.groups ?? {})) {
        const id = group.slice(ALIAS_PREFIX.length);
        searchTotals.set(id, (searchTotals.get(id) ?? 0) + s.query_total);
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
    this.snapshot = { at: new Date(now).toISOString(), groups, indexDocs, tenantDocs, searchRate };
    this.#export();
    metrics.clusterUp.set(1);
  }

  #export() {
    const { metrics, store } = this;
    const { groups, indexDocs, tenantDocs, searchRate } = this.snapshot;
    metrics.nodeGroup.reset();
    for (const g of groups) for (const n of g.nodes) metrics.nodeGroup.set({ node: n, index_group: g.name }, 1);
    metrics.tenants.reset();
    metrics.indexDocuments.reset();
    metrics.tenantDocuments.reset();
    metrics.tenantSearchRate.reset();
    const perIndex = new Map();
    for (const t of store.tenants.values()) perIndex.set(t.index, (perIndex.get(t.index) ?? 0) + 1);
    for (const ix of store.indices.values()) {
      metrics.tenants.set({ index_group: ix.group, index: ix.name }, perIndex.get(ix.name) ?? 0);
      metrics.indexDocuments.set({ index_group: ix.group, index: ix.name }, indexDocs.get(ix.name) ?? 0);
    }
    metrics.groupLoad.reset();
    const load = new Map(groups.map((g) => [g.name, 0]));
    for (const t of store.tenants.values()) {
      const documents = Math.max(t.expected_products, tenantDocs.get(t.id) ?? 0);
      if (load.has(t.group)) load.set(t.group, load.get(t.group) + tenantLoad({ documents, traffic: t.traffic_weight }, this.config.policy));
    }
    for (const g of groups) metrics.groupLoad.set({ index_group: g.name }, load.get(g.name) / Math.max(1, g.nodes.length));
    for (const t of store.tenants.values()) {
      metrics.tenantDocuments.set({ tenant: t.id, index_group: t.group, index: t.index }, tenantDocs.get(t.id) ?? 0);
      metrics.tenantSearchRate.set({ tenant: t.id }, searchRate.get(t.id) ?? 0);
    }
  }
}
