// What the API shows: tenants (GET /tenants, /tenants/{id}), groups (GET /groups) and jobs
// (GET /jobs, /jobs/{id}). Read-only: every figure comes from the state and the observer's last
// look at the cluster; the load of a group is placement/model.js's groupLoad, the same function
// /metrics exports, so the two always agree.
import { notFound } from '../errors.js';
import { jobView } from '../jobs/job.js';
import { groupLoad, observedDocuments, servingIndex } from '../placement/model.js';
import { aliasFor } from '@tenantlab/contract/naming';

const round = (x) => Math.round(x * 1e6) / 1e6;

/** The tenant `id`, or a 404 naming it. */
export function findTenant(store, id) {
  const t = store.tenants.get(id);
  if (!t) throw notFound('tenant', `no tenant '${id}'`);
  return t;
}

/** A tenant's observed cost without its placement fields (the tenant view has them). */
function costView(c) {
  if (!c) return null;
  const { tenant, index, group, ...rest } = c;
  return rest;
}

export class Views {
  constructor({ client, store, observer, policy, config = {} }) {
    Object.assign(this, { client, store, observer, policy, config });
    this.countCache = new Map();
  }

  tenantView(t, documents) {
    const { snapshot } = this.observer;
    return {
      id: t.id,
      name: t.name,
      expected_products: t.expected_products,
      traffic_weight: t.traffic_weight,
      group: t.group,
      index: t.index,
      kind: t.kind,
      alias: aliasFor(t.id),
      state: t.state,
      job_id: t.job_id ?? null,
      documents: documents ?? observedDocuments(snapshot, t.id, servingIndex(t, this.store)),
      search_rate: snapshot.searchRate.get(t.id) ?? 0,
      cost: costView(snapshot.cost.tenants.get(t.id)),
      hot: snapshot.hot.find((h) => h.tenant === t.id) ?? null,
      requested: t.requested,
      created_at: t.created_at,
      updated_at: t.updated_at,
    };
  }

  listTenants() {
    return [...this.store.tenants.values()].sort((a, b) => (a.id < b.id ? -1 : 1)).map((t) => this.tenantView(t));
  }

  async getTenant(id) {
    const t = findTenant(this.store, id);
    return this.tenantView(t, await this.#liveCount(id));
  }

  /** Drops the cached count of a tenant whose documents moved or went. */
  forget(id) {
    this.countCache.delete(id);
  }

  /**
   * Documents visible through the alias: exactly what a storefront search sees. Searches only
   * see changes after a refresh (1 s), so a count younger than that is as fresh as a new one;
   * reusing it (and sharing one in-flight request) keeps GET /tenants/{id} cheap under load.
   */
  #liveCount(id) {
    const hit = this.countCache.get(id);
    if (hit && Date.now() - hit.at < 1000) return hit.promise;
    const promise = this.client.count({ index: aliasFor(id) }).then((r) => r.count);
    this.countCache.set(id, { at: Date.now(), promise });
    promise.catch(() => this.countCache.delete(id));
    if (this.countCache.size > 10000) this.countCache.clear();
    return promise;
  }

  /** GET /groups, from a fresh observation (which also refreshes /metrics). */
  async groups() {
    await this.observer.observe();
    const { snapshot } = this.observer;
    const { groups, indexDocs } = snapshot;
    const { loads, mean, balanced, tenantsPerIndex } = groupLoad({ store: this.store, snapshot, groups, policy: this.policy });
    return {
      observed_at: snapshot.at,
      mean_load_per_node: round(mean),
      tolerance: this.policy.balance.tolerance,
      balanced,
      groups: groups.map((g) => {
        const indices = [...this.store.indices.values()]
          .filter((ix) => ix.group === g.name)
          .sort((a, b) => (a.name < b.name ? -1 : 1))
          .map((ix) => ({ name: ix.name, kind: ix.kind, shards: ix.shards, replicas: ix.replicas, tenants: tenantsPerIndex.get(ix.name) ?? 0, documents: indexDocs.get(ix.name) ?? 0 }));
        const l = loads.find((x) => x.group === g.name);
        const c = snapshot.cost.groups.get(g.name);
        return {
          name: g.name,
          nodes: g.nodes,
          indices,
          tenants: indices.reduce((s, i) => s + i.tenants, 0),
          documents: indices.reduce((s, i) => s + i.documents, 0),
          load: round(l.load),
          load_per_node: round(l.perNode),
          latency: c ? this.#latency(g.name, c) : null,
        };
      }),
    };
  }

  /** Whether the group's baseline learned from the last observation, and if not why (learning.js). */
  #learning(group) {
    const l = this.observer.snapshot.learns.get(group);
    return l ? { baseline: l.baseline, shares: l.shares, why: l.why } : null;
  }

  /** A group's p95 against its two objectives, with the baseline it learned (GET /groups). */
  #latency(group, c) {
    const { hot } = this.policy;
    return {
      signal: c.signal,
      p95_ms: c.p95_ms,
      probe_p95_ms: c.probe_p95_ms,
      load_p95_ms: c.load_p95_ms,
      objective_ms: c.objective_ms,
      relative: hot.relative,
      min_rise_ms: hot.minRiseMs,
      share_rise: hot.shareRise,
      share_rise_sd: hot.shareRiseSd,
      relative_limit_ms: c.relative_limit_ms,
      meets_objective: c.meets_objective,
      missed: c.missed,
      baseline: this.observer.baselines.get(group, c.signal),
      learning: this.#learning(group),
    };
  }

  /**
   * GET /hot: the flagged tenants with their evidence, every group's health over the window,
   * and what auto-isolation is doing (`auto()`, read after the observation it considered).
   * `fresh` observes first (make hot asks for that).
   */
  async hot({ fresh = false, auto = () => null } = {}) {
    if (fresh) await this.observer.observe();
    const { snapshot } = this.observer;
    const { cost } = snapshot;
    return {
      observed_at: snapshot.at,
      window_s: cost.window_s,
      span_s: cost.span_s,
      cluster: snapshot.health,
      groups: [...cost.groups.values()].map(({ queries, ...g }) => ({ ...g, shard_queries: queries, baseline: this.observer.baselines.get(g.group, g.signal), learning: this.#learning(g.group) })),
      hot: snapshot.hot,
      // the busiest by search and indexing time: a noisy writer shows among them too
      top: [...cost.tenants.values()].sort((a, b) => b.search_ms_per_s + (b.write_ms_per_s ?? 0) - a.search_ms_per_s - (a.write_ms_per_s ?? 0) || (a.tenant < b.tenant ? -1 : 1)).slice(0, 10),
      auto: auto(),
    };
  }

  /**
   * GET /console/state: the cluster map and health as the last observation saw them, without a
   * call to Elasticsearch (the console refreshes every few seconds and must not add load to what
   * it shows). Per group: its data nodes (size, CPU, heap, search queue, rejections), its indices
   * and the tenants inside each (documents, observed share, the hot evidence); the master and any
   * other node apart; the last jobs; auto-isolation.
   */
  consoleState({ auto = () => null, jobs = 20 } = {}) {
    const { snapshot } = this.observer;
    const { cost } = snapshot;
    const sizes = this.config.nodeSizes ?? new Map();
    const nodeView = (name) => {
      const g = snapshot.nodes?.get(name) ?? {};
      const size = sizes.get(name) ?? null;
      return {
        name,
        cpus: size?.cpus ?? null,
        cpuset: size?.cpuset ?? null,
        mem: size?.mem ?? null,
        heap: size?.heap ?? null,
        cpu_percent: g.cpu_percent ?? null,
        heap_percent: g.heap_percent ?? null,
        queue: g.queue ?? null,
        active: g.active ?? null,
        rejected: g.rejected ?? null,
      };
    };
    const tenantsByIndex = new Map();
    for (const t of this.store.tenants.values()) {
      const index = servingIndex(t, this.store);
      if (!tenantsByIndex.has(index)) tenantsByIndex.set(index, []);
      const c = cost.tenants.get(t.id);
      const hot = snapshot.hot.find((h) => h.tenant === t.id) ?? null;
      tenantsByIndex.get(index).push({
        id: t.id,
        name: t.name,
        state: t.state,
        documents: observedDocuments(snapshot, t.id, index),
        search_rate: c?.search_rate ?? 0,
        share_of_group: c?.share_of_group ?? 0,
        write_share_of_group: c?.write_share_of_group ?? 0,
        hot: hot ? { signal: hot.signal ?? null, kind: hot.kind ?? null, since: hot.since ?? null, why: hot.why ?? null, share: hot.share ?? null } : null,
      });
    }
    for (const list of tenantsByIndex.values()) list.sort((a, b) => b.documents - a.documents || (a.id < b.id ? -1 : 1));
    const dataNodes = new Set(snapshot.groups.flatMap((g) => g.nodes));
    return {
      observed_at: snapshot.at,
      window_s: cost.window_s,
      shape: this.config.shape ?? null,
      cluster: snapshot.health,
      groups: snapshot.groups.map((g) => {
        const c = cost.groups.get(g.name);
        return {
          name: g.name,
          nodes: g.nodes.map(nodeView),
          latency: c ? { signal: c.signal, p95_ms: c.p95_ms, objective_ms: c.objective_ms, relative_limit_ms: c.relative_limit_ms, meets_objective: c.meets_objective, missed: c.missed, baseline: this.observer.baselines.get(g.name, c.signal) } : null,
          search_rate: c?.search_rate ?? null,
          rejected_per_s: c?.rejected_per_s ?? null,
          cpu_percent: c?.cpu_percent ?? null,
          indices: [...this.store.indices.values()]
            .filter((ix) => ix.group === g.name)
            .sort((a, b) => (a.name < b.name ? -1 : 1))
            .map((ix) => ({ name: ix.name, kind: ix.kind, shards: ix.shards, replicas: ix.replicas, documents: snapshot.indexDocs.get(ix.name) ?? 0, tenants: tenantsByIndex.get(ix.name) ?? [] })),
        };
      }),
      // the master and any node of no group, shown apart from the groups
      other_nodes: [...(snapshot.nodes?.keys() ?? [])].filter((n) => !dataNodes.has(n)).sort().map(nodeView),
      jobs: this.listJobs().slice(0, jobs),
      auto: auto(),
    };
  }

  getJob(id) {
    const job = this.store.jobs.get(id);
    if (!job) throw notFound('job', `no job '${id}'`);
    return jobView(job);
  }

  listJobs() {
    return [...this.store.jobs.values()].sort((a, b) => (a.created_at < b.created_at ? 1 : -1)).map(jobView);
  }
}
