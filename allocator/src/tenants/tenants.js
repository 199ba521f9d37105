// Creating and deleting tenants. Decisions run under the allocator's one mutex against the
// in-memory state; every change is persisted before it is acknowledged, and a failure of a
// later step undoes the earlier ones, so nothing is left half-created.
import { deleteIndex, discoverGroups, pointAliases, removeAlias, removeAliases, tenantAliases } from '../es/cluster.js';
import { badRequest, conflict } from '../errors.js';
import { deleteAll } from '../moves/copy.js';
import { placementModel } from '../placement/model.js';
import { aliasFor } from '@tenantlab/contract/naming';
import { Placer } from '../placement/place.js';
import { createManagedIndex, undoAll } from '../state/indices.js';
import { findTenant } from '../views/views.js';

const now = () => new Date().toISOString();

/** The stored part of a POST /tenants body: what "the same spec" is compared on. */
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

/** Throws the conflicts found ([code, message]): one as it is, several in one line under the first's code. */
function refuse(conflicts) {
  if (!conflicts.length) return;
  const [code, message] = conflicts[0];
  if (conflicts.length === 1) throw conflict(code, message);
  throw conflict(code, `${conflicts.length} tenants cannot be created: ${conflicts.slice(0, 3).map(([, m]) => m).join(' | ')}${conflicts.length > 3 ? ' | ...' : ''}`);
}

export class Tenants {
  constructor(ctx, views) {
    this.ctx = ctx;
    this.views = views;
  }

  /** POST /tenants: { created, tenant }; the same spec again is not an error, another one is. */
  async add(body) {
    return (await this.addMany([body]))[0];
  }

  /**
   * POST /tenants/_bulk: many tenants in one decision, all or nothing, with add()'s rules for
   * each (the same spec again is confirmed, another spec or an alias the allocator does not
   * manage is a conflict), all checked before anything changes. Then each new one placed in
   * order on one model (each sees those before it), the indices they need created, every alias
   * in one request, every tenant in one bulk write of the state. Why: placed one request each,
   * a platform's worth of stores cost a cluster-state update per store (the demo profile's 150
   * in 33 s, 2026-11-29). Returns [{ created, tenant }] in the order given.
   */
  async addMany(bodies) {
    const { client, config, store, lock, log, observer, policy } = this.ctx;
    const ids = new Set();
    for (const b of bodies) {
      if (ids.has(b.id)) throw badRequest(`tenant '${b.id}' is listed twice: list each tenant once`);
      ids.add(b.id);
    }
    return lock.run(async () => {
      const results = new Array(bodies.length);
      const fresh = [];
      const conflicts = [];
      bodies.forEach((body, i) => {
        const existing = store.tenants.get(body.id);
        const wanted = specOf(body);
        if (!existing) return fresh.push({ i, body, wanted });
        if (existing.state === 'deleting') return conflicts.push(['tenant_deleting', `tenant '${body.id}' is being deleted`]);
        const diffs = specDiff(existing, wanted);
        if (diffs.length) return conflicts.push(['tenant_conflict', `tenant '${body.id}' exists with a different spec: ${diffs.join('; ')}`]);
        results[i] = { created: false, tenant: this.views.tenantView(existing) };
      });
      refuse(conflicts);
      if (!fresh.length) return results;
      const aliases = fresh.length === 1 ? null : await tenantAliases(client);
      for (const { body } of fresh) {
        const alias = aliasFor(body.id);
        if (aliases ? aliases.has(alias) : await client.indices.existsAlias({ name: alias })) {
          conflicts.push(['alias_exists', `alias ${alias} already exists in the cluster but is not managed by this allocator`]);
        }
      }
      refuse(conflicts);
      const groups = await discoverGroups(client, config.groupAttr);
      const placer = new Placer(placementModel({ store, snapshot: observer.snapshot, groups, policy, prefix: config.prefix }));
      const decisions = fresh.map(({ body, wanted }) => placer.place({
        id: body.id, documents: wanted.expected_products, traffic: wanted.traffic_weight, group: body.group, dedicated: body.dedicated,
      }));
      const undo = [];
      try {
        // the indices they need side by side (each waits for its primaries: one after the other,
        // each took 0.5-1.1 s here)
        const made = await Promise.allSettled(decisions.filter((d) => d.create).map((d) => createManagedIndex(this.ctx, d.create, undo)));
        const failed = made.find((m) => m.status === 'rejected');
        if (failed) throw failed.reason;
        await pointAliases(client, decisions.map((d) => ({ tenantId: d.id, index: d.index })), { routing: policy.routing.byTenant });
        undo.push(() => removeAliases(client, decisions.map((d) => d.id)));
        const created = now();
        const stored = await store.putTenants(fresh.map(({ body, wanted }, k) => ({
          id: body.id, ...wanted, index: decisions[k].index, group: decisions[k].group, kind: decisions[k].kind, state: 'active', created_at: created,
        })));
        for (const t of stored) log.info({ tenant: t.id, index: t.index, group: t.group, kind: t.kind }, 'tenant placed');
        stored.forEach((t, k) => { results[fresh[k].i] = { created: true, tenant: this.views.tenantView(t, 0) }; });
        return results;
      } catch (err) {
        await undoAll(undo, log);
        throw err;
      }
    });
  }

  /** DELETE /tenants/{id}: the alias first (storefront access ends), then the documents. */
  async delete(id) {
    const { client, store, lock, log, policy } = this.ctx;
    const t = await lock.run(async () => {
      const t = findTenant(store, id);
      if (t.state === 'moving') throw conflict('tenant_moving', `tenant '${id}' is moving (job ${t.job_id}); delete it when the move is over`);
      if (t.state !== 'deleting') await store.putTenant({ ...t, state: 'deleting' });
      return store.tenants.get(id);
    });
    // A failure from here on leaves the tenant in state "deleting", and repeating the DELETE
    // finishes the job.
    await removeAlias(client, id);
    const ix = store.indices.get(t.index);
    let deleted;
    if (ix?.kind === 'dedicated') {
      deleted = (await client.count({ index: t.index, ignore_unavailable: true }).catch(() => ({ count: 0 }))).count;
      await deleteIndex(client, t.index);
      await store.deleteIndex(t.index);
    } else {
      const { batchSize, keepAlive } = policy.move;
      deleted = await deleteAll(client, { index: t.index, tenantId: id, batchSize, keepAlive });
    }
    await lock.run(() => store.deleteTenant(id));
    this.views.forget(id);
    log.info({ tenant: id, documents: deleted }, 'tenant deleted');
    return { deleted: id, documents_deleted: deleted };
  }
}
