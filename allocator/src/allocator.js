// The allocator's operations, as the API exposes them. Decisions (placement, the start and
// end of a move, deletes) run under one mutex against the in-memory state; every change is
// persisted before it is acknowledged, and every multi-step change undoes its earlier steps
// when a later one fails, so nothing is left half-created.
import { randomBytes } from 'node:crypto';
import { createIndex, deleteIndex, discoverGroups, pointAlias, removeAlias } from './es/cluster.js';
import { ensureTemplate } from './es/template.js';
import { conflict, esReason, HttpError, notFound, unavailable } from './errors.js';
import { Mutex } from './lock.js';
import { deleteAll } from './moves/copy.js';
import { failedBeforeSplit, runMove } from './moves/procedure.js';
import { SerialRunner } from './moves/runner.js';
import { Observer } from './observer.js';
import { isBalanced, meanLoad } from './placement/load.js';
import { aliasFor } from './placement/naming.js';
import { Placer } from './placement/place.js';
import { planRebalance } from './placement/rebalance.js';
import { rebuildFromCluster } from './state/rebuild.js';
import { StateStore } from './state/store.js';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const now = () => new Date().toISOString();
const newId = (kind) => `${kind}-${Date.now().toString(36)}-${randomBytes(3).toString('hex')}`;
const ACTIVE_JOB = new Set(['queued', 'running']);

function specOf(body) {
  return {
    name: body.name,
    expected_products: body.expected_products,
    traffic_weight: body.traffic_weight ?? 1,
    requested: { group: body.group ?? null, dedicated: body.dedicated ?? null },
  };
}

function specDiff(stored, wanted) {
  const diffs = [];
  for (const k of ['name', 'expected_products', 'traffic_weight']) {
    if (stored[k] !== wanted[k]) diffs.push(`${k} is ${JSON.stringify(stored[k])}, not ${JSON.stringify(wanted[k])}`);
  }
  for (const k of ['group', 'dedicated']) {
    const a = stored.requested?.[k] ?? null;
    if (a !== wanted.requested[k]) diffs.push(`${k} was requested as ${JSON.stringify(a)}, not ${JSON.stringify(wanted.requested[k])}`);
  }
  return diffs;
}

export class Allocator {
  constructor({ config, client, log, metrics }) {
    this.config = config;
    this.policy = config.policy;
    this.client = client;
    this.log = log;
    this.metrics = metrics;
    this.lock = new Mutex();
    this.countCache = new Map();
    this.store = new StateStore(client, config.prefix);
    this.observer = new Observer({ client, config, store: this.store, metrics, log });
    this.runner = new SerialRunner((id) => this.#runJob(id), log);
    this.ready = false;
    this.notReadyReason = `connecting to Elasticsearch at ${config.esUrl}`;
    this.stopped = false;
    this.moveCtx = { client, store: this.store, config, policy: this.policy, log, metrics, retries: 8 };
  }

  // ---- lifecycle -----------------------------------------------------------------------------

  /** Waits for the cluster (never crashes on it), then loads state and resumes jobs. */
  async start() {
    let lastLogged = 0;
    for (let attempt = 1; !this.stopped; attempt++) {
      try {
        await this.client.cluster.health({ wait_for_status: 'yellow', timeout: '5s' });
        await ensureTemplate(this.client, this.config.prefix);
        const existed = await this.store.ensureIndex();
        if (!existed) {
          const rebuilt = await rebuildFromCluster(this.client, this.store, this.config.prefix, this.config.groupAttr);
          if (rebuilt.tenants) this.log.warn(rebuilt, 'state index was missing: state rebuilt from aliases');
        }
        await this.store.load();
        this.ready = true;
        this.observer.start();
        this.#resumeJobs();
        this.log.info({ tenants: this.store.tenants.size, indices: this.store.indices.size, es: this.config.esUrl }, 'allocator ready');
        return;
      } catch (err) {
        this.notReadyReason = `waiting for Elasticsearch at ${this.config.esUrl}: ${esReason(err)}`;
        if (Date.now() - lastLogged > 30000) {
          this.log.warn({ err: esReason(err) }, 'cluster not ready; retrying');
          lastLogged = Date.now();
        }
        await sleep(Math.min(5000, 250 * attempt));
      }
    }
  }

  async stop() {
    this.stopped = true;
    this.observer.stop();
  }

  requireReady() {
    if (!this.ready) throw unavailable(this.notReadyReason);
  }

  async readiness() {
    if (!this.ready) return { ready: false, reason: this.notReadyReason };
    try {
      const h = await this.client.cluster.health({ timeout: '2s' }, { requestTimeout: 3000 });
      return { ready: true, cluster_status: h.status, tenants: this.store.tenants.size };
    } catch (err) {
      return { ready: false, reason: `Elasticsearch unreachable at ${this.config.esUrl}: ${esReason(err)}` };
    }
  }

  // ---- views -------------------------------------------------------------------------------

  #documentsOf(t) {
    return Math.max(t.expected_products, this.observer.snapshot.tenantDocs.get(t.id) ?? 0);
  }

  /** The cluster as the placement policy sees it. Moving tenants count where they are going. */
  /** Creates a placed index and records it; pushes the steps that undo both onto `undo`. */
  async #createIndex(spec, undo) {
    await createIndex(this.client, spec, { attr: this.config.groupAttr });
    undo.push(() => deleteIndex(this.client, spec.name));
    await this.store.putIndex({ ...spec, created_at: now() });
    undo.push(() => this.store.deleteIndex(spec.name));
  }

  #model(groups) {
    const tenants = [];
    for (const t of this.store.tenants.values()) {
      const job = t.state === 'moving' ? this.store.jobs.get(t.job_id) : null;
      const index = job && this.store.indices.has(job.to.index) ? job.to.index : t.index;
      if (!this.store.indices.has(index)) continue;
      tenants.push({ id: t.id, documents: this.#documentsOf(t), traffic: t.traffic_weight, index });
    }
    return { groups, indices: [...this.store.indices.values()], tenants, policy: this.policy, prefix: this.config.prefix };
  }

  tenantView(t, documents) {
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
      documents: documents ?? this.observer.snapshot.tenantDocs.get(t.id) ?? 0,
      search_rate: this.observer.snapshot.searchRate.get(t.id) ?? 0,
      requested: t.requested,
      created_at: t.created_at,
      updated_at: t.updated_at,
    };
  }

  listTenants() {
    this.requireReady();
    return [...this.store.tenants.values()].sort((a, b) => (a.id < b.id ? -1 : 1)).map((t) => this.tenantView(t));
  }

  #tenant(id) {
    const t = this.store.tenants.get(id);
    if (!t) throw notFound('tenant', `no tenant '${id}'`);
    return t;
  }

  async getTenant(id) {
    this.requireReady();
    const t = this.#tenant(id);
    return this.tenantView(t, await this.#liveCount(id));
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

  async groups() {
    this.requireReady();
    await this.observer.observe();
    const { groups, indexDocs } = this.observer.snapshot;
    const model = this.#model(groups);
    const loads = new Placer(model).groupLoads();
    const tenantsPerIndex = new Map();
    for (const t of model.tenants) tenantsPerIndex.set(t.index, (tenantsPerIndex.get(t.index) ?? 0) + 1);
    const mean = meanLoad(loads);
    return {
      observed_at: this.observer.snapshot.at,
      mean_load_per_node: round(mean),
      tolerance: this.policy.balance.tolerance,
      balanced: isBalanced(loads, this.policy.balance.tolerance),
      groups: groups.map((g) => {
        const indices = [...this.store.indices.values()]
          .filter((ix) => ix.group === g.name)
          .sort((a, b) => (a.name < b.name ? -1 : 1))
          .map((ix) => ({ name: ix.name, kind: ix.kind, shards: ix.shards, replicas: ix.replicas, tenants: tenantsPerIndex.get(ix.name) ?? 0, documents: indexDocs.get(ix.name) ?? 0 }));
        const l = loads.find((x) => x.group === g.name);
        return {
          name: g.name,
          nodes: g.nodes,
          indices,
          tenants: indices.reduce((s, i) => s + i.tenants, 0),
          documents: indices.reduce((s, i) => s + i.documents, 0),
          load: round(l.load),
          load_per_node: round(l.perNode),
        };
      }),
    };
  }

  // ---- tenants -----------------------------------------------------------------------------

  async addTenant(body) {
    this.requireReady();
    const wanted = specOf(body);
    return this.lock.run(async () => {
      const existing = this.store.tenants.get(body.id);
      if (existing) {
        if (existing.state === 'deleting') throw conflict('tenant_deleting', `tenant '${body.id}' is being deleted`);
        const diffs = specDiff(existing, wanted);
        if (diffs.length) throw conflict('tenant_conflict', `tenant '${body.id}' exists with a different spec: ${diffs.join('; ')}`);
        return { created: false, tenant: this.tenantView(existing) };
      }
      if (await this.client.indices.existsAlias({ name: aliasFor(body.id) })) {
        throw conflict('alias_exists', `alias ${aliasFor(body.id)} already exists in the cluster but is not managed by this allocator`);
      }
      const groups = await discoverGroups(this.client, this.config.groupAttr);
      const decision = new Placer(this.#model(groups)).place({
        id: body.id,
        documents: wanted.expected_products,
        traffic: wanted.traffic_weight,
        group: body.group,
        dedicated: body.dedicated,
      });
      const undo = [];
      try {
        if (decision.create) await this.#createIndex(decision.create, undo);
        await pointAlias(this.client, body.id, decision.index, { routing: this.policy.routing.byTenant });
        undo.push(() => removeAlias(this.client, body.id));
        const t = await this.store.putTenant({
          id: body.id,
          ...wanted,
          index: decision.index,
          group: decision.group,
          kind: decision.kind,
          state: 'active',
          created_at: now(),
        });
        this.log.info({ tenant: t.id, index: t.index, group: t.group, kind: t.kind }, 'tenant placed');
        return { created: true, tenant: this.tenantView(t, 0) };
      } catch (err) {
        for (const step of undo.reverse()) await step().catch((e) => this.log.error({ err: e.message }, 'rollback step failed'));
        throw err;
      }
    });
  }

  async deleteTenant(id) {
    this.requireReady();
    const t = await this.lock.run(async () => {
      const t = this.#tenant(id);
      if (t.state === 'moving') throw conflict('tenant_moving', `tenant '${id}' is moving (job ${t.job_id}); delete it when the move is over`);
      if (t.state !== 'deleting') await this.store.putTenant({ ...t, state: 'deleting' });
      return this.store.tenants.get(id);
    });
    // Storefront access ends first; documents follow. A failure here leaves the tenant in
    // state "deleting", and repeating the DELETE finishes the job.
    await removeAlias(this.client, id);
    const ix = this.store.indices.get(t.index);
    let deleted;
    if (ix?.kind === 'dedicated') {
      deleted = (await this.client.count({ index: t.index, ignore_unavailable: true }).catch(() => ({ count: 0 }))).count;
      await deleteIndex(this.client, t.index);
      await this.store.deleteIndex(t.index);
    } else {
      const { batchSize, keepAlive } = this.policy.move;
      deleted = await deleteAll(this.client, { index: t.index, tenantId: id, batchSize, keepAlive });
    }
    await this.lock.run(() => this.store.deleteTenant(id));
    this.countCache.delete(id);
    this.log.info({ tenant: id, documents: deleted }, 'tenant deleted');
    return { deleted: id, documents_deleted: deleted };
  }

  // ---- moves -------------------------------------------------------------------------------

  /**
   * Validates a move, decides its target and records the job. The target index, when new, is
   * created here (under the lock) so that concurrent placements see it.
   */
  async requestMove(id, body, { enqueue = true, parent = null } = {}) {
    this.requireReady();
    return this.lock.run(async () => {
      const t = this.#tenant(id);
      if (t.state === 'deleting') throw conflict('tenant_deleting', `tenant '${id}' is being deleted`);
      if (t.state === 'moving') {
        const job = this.store.jobs.get(t.job_id);
        if (job && job.state === 'failed' && job.resumable && (!body.group || body.group === job.to.group) && (!body.index || body.index === job.to.index)) {
          // The alias is split (writes already go to the target): the only safe way is forward.
          job.state = 'queued';
          job.resumed_at = now();
          await this.store.putJob(job);
          if (enqueue) this.runner.enqueue(job.id);
          return job;
        }
        throw conflict('tenant_moving', `tenant '${id}' is already moving (job ${t.job_id}, ${job?.state ?? 'unknown'})`);
      }
      const groups = await discoverGroups(this.client, this.config.groupAttr);
      const placer = new Placer(this.#model(groups));
      placer.remove(id);
      const group = body.group ?? (body.index ? undefined : t.group);
      const dedicated = body.dedicated ?? (t.kind === 'dedicated' ? true : undefined);
      if (!body.index && group === t.group && t.kind === 'dedicated' && dedicated === true) {
        throw conflict('already_there', `tenant '${id}' already has a dedicated index in group ${t.group}`);
      }
      const decision = placer.place({
        id,
        documents: this.#documentsOf(t),
        traffic: t.traffic_weight,
        group,
        dedicated,
        index: body.index,
        avoidIndex: t.index,
      });
      if (decision.index === t.index) throw conflict('already_there', `tenant '${id}' is already in index ${t.index}`);
      const undo = [];
      try {
        if (decision.create) await this.#createIndex(decision.create, undo);
        const job = {
          id: newId('move'),
          type: 'move',
          state: 'queued',
          phase: 'prepare',
          tenant: id,
          parent,
          from: { index: t.index, group: t.group, kind: t.kind },
          to: { index: decision.index, group: decision.group, kind: decision.kind, create: decision.create },
          passes: 0,
          documents_copied: 0,
          documents_skipped: 0,
          documents_deleted: 0,
          rate_docs_per_s: 0,
          errors: [],
          created_at: now(),
          started_at: null,
          finished_at: null,
        };
        await this.store.putJob(job);
        await this.store.putTenant({ ...t, state: 'moving', job_id: job.id });
        this.metrics.movesInProgress.inc();
        if (enqueue) this.runner.enqueue(job.id);
        return job;
      } catch (err) {
        for (const step of undo.reverse()) await step().catch(() => {});
        throw err;
      }
    });
  }

  getJob(id) {
    this.requireReady();
    const job = this.store.jobs.get(id);
    if (!job) throw notFound('job', `no job '${id}'`);
    return job;
  }

  listJobs() {
    this.requireReady();
    return [...this.store.jobs.values()].sort((a, b) => (a.created_at < b.created_at ? 1 : -1));
  }

  #resumeJobs() {
    const jobs = [...this.store.jobs.values()].filter((j) => ACTIVE_JOB.has(j.state));
    jobs.sort((a, b) => (a.type === b.type ? (a.created_at < b.created_at ? -1 : 1) : a.type === 'move' ? -1 : 1));
    for (const j of jobs) {
      if (j.type === 'move') this.metrics.movesInProgress.inc();
      this.runner.enqueue(j.id);
    }
  }

  async #runJob(id) {
    const job = this.store.jobs.get(id);
    if (!job || !ACTIVE_JOB.has(job.state)) return;
    if (job.type === 'rebalance') return this.#runRebalance(job);
    return this.#runMoveJob(job);
  }

  async #runMoveJob(job) {
    const save = (j) => this.store.putJob(j);
    job.state = 'running';
    job.started_at ??= now();
    await save(job);
    this.log.info({ job: job.id, tenant: job.tenant, from: job.from.index, to: job.to.index, phase: job.phase }, 'move started');
    try {
      await runMove(this.moveCtx, job, save);
      await this.lock.run(async () => {
        const t = this.store.tenants.get(job.tenant);
        const { job_id, ...rest } = t;
        await this.store.putTenant({ ...rest, index: job.to.index, group: job.to.group, kind: job.to.kind, state: 'active' });
        Object.assign(job, { state: 'succeeded', finished_at: now() });
        this.countCache.delete(job.tenant);
        await save(job);
      });
      this.metrics.moves.inc({ result: 'succeeded' });
      this.log.info({ job: job.id, tenant: job.tenant, copied: job.documents_copied, rate: job.rate_docs_per_s }, 'move succeeded');
    } catch (err) {
      job.errors.push({ at: now(), phase: err.phase ?? job.phase, message: err.message });
      Object.assign(job, { state: 'failed', finished_at: now() });
      this.metrics.moves.inc({ result: 'failed' });
      this.log.error({ job: job.id, tenant: job.tenant, phase: job.phase, err: err.message }, 'move failed');
      await this.#afterFailedMove(job).catch((e) => this.log.error({ job: job.id, err: e.message }, 'could not settle failed move'));
    } finally {
      this.metrics.movesInProgress.dec();
    }
  }

  /** Rolls a failed move back when no write can have reached the target; else keeps it resumable. */
  async #afterFailedMove(job) {
    let split = !failedBeforeSplit(job.phase);
    if (!split) {
      const aliases = await this.client.indices.getAlias({ name: aliasFor(job.tenant) }).catch(() => ({}));
      split = Boolean(aliases[job.to.index]);
    }
    await this.lock.run(async () => {
      if (split) {
        job.resumable = true;
        job.errors.push({ at: now(), message: 'writes already go to the target: the move must finish; POST the same move again to resume it' });
        await this.store.putJob(job);
        return;
      }
      if (job.to.create) {
        const { count } = await this.client.count({ index: job.to.index }).catch(() => ({ count: 0 }));
        if (count === 0) {
          await deleteIndex(this.client, job.to.index);
          await this.store.deleteIndex(job.to.index);
        }
      }
      const t = this.store.tenants.get(job.tenant);
      const { job_id, ...rest } = t;
      await this.store.putTenant({ ...rest, state: 'active' });
      job.rolled_back = true;
      await this.store.putJob(job);
    });
  }

  // ---- rebalancing ---------------------------------------------------------------------------

  async plan() {
    this.requireReady();
    const groups = await discoverGroups(this.client, this.config.groupAttr);
    const exclude = new Set([...this.store.tenants.values()].filter((t) => t.state !== 'active').map((t) => t.id));
    return planRebalance(this.#model(groups), { exclude });
  }

  async rebalance() {
    const plan = await this.plan();
    if (!plan.moves.length) return { job: null, plan };
    const job = {
      id: newId('rebalance'),
      type: 'rebalance',
      state: 'queued',
      moves: plan.moves.map((m) => ({ ...m, state: 'pending', job_id: null })),
      errors: [],
      created_at: now(),
      started_at: null,
      finished_at: null,
    };
    await this.store.putJob(job);
    this.runner.enqueue(job.id);
    return { job, plan };
  }

  async #runRebalance(job) {
    job.state = 'running';
    job.started_at ??= now();
    await this.store.putJob(job);
    for (const m of job.moves) {
      if (m.state !== 'pending' && m.state !== 'running') continue;
      try {
        let child = m.job_id ? this.store.jobs.get(m.job_id) : null;
        if (!child) {
          child = await this.requestMove(m.tenant, { group: m.to.group, ...(m.to.dedicated ? { dedicated: true } : {}) }, { enqueue: false, parent: job.id });
          m.job_id = child.id;
          m.state = 'running';
          await this.store.putJob(job);
        }
        if (ACTIVE_JOB.has(child.state)) await this.#runMoveJob(child);
        m.state = child.state;
      } catch (err) {
        m.state = 'skipped';
        m.reason = err instanceof HttpError ? err.message : esReason(err);
      }
      await this.store.putJob(job);
    }
    Object.assign(job, { state: job.moves.some((m) => m.state === 'failed') ? 'failed' : 'succeeded', finished_at: now() });
    await this.store.putJob(job);
  }
}

const round = (x) => Math.round(x * 1e6) / 1e6;
