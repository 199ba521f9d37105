// Creating and deleting tenants. Decisions run under the allocator's one mutex against the
// in-memory state; every change is persisted before it is acknowledged, and a failure of a
// later step undoes the earlier ones, so nothing is left half-created.
import { deleteIndex, discoverGroups, pointAlias, removeAlias } from '../es/cluster.js';
import { conflict } from '../errors.js';
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

export class Tenants {
  constructor(ctx, views) {
    this.ctx = ctx;
    this.views = views;
  }

  /** POST /tenants: { created, tenant }; the same spec again is not an error, another one is. */
  async add(body) {
    const { client, config, store, lock, log, observer, policy } = this.ctx;
    const wanted = specOf(body);
    return lock.run(async () => {
      const existing = store.tenants.get(body.id);
      if (existing) {
        if (existing.state === 'deleting') throw conflict('tenant_deleting', `tenant '${body.id}' is being deleted`);
        const diffs = specDiff(existing, wanted);
        if (diffs.length) throw conflict('tenant_conflict', `tenant '${body.id}' exists with a different spec: ${diffs.join('; ')}`);
        return { created: false, tenant: this.views.tenantView(existing) };
      }
      if (await client.indices.existsAlias({ name: aliasFor(body.id) })) {
        throw conflict('alias_exists', `alias ${aliasFor(body.id)} already exists in the cluster but is not managed by this allocator`);
      }
      const groups = await discoverGroups(client, config.groupAttr);
      const decision = new Placer(placementModel({ store, snapshot: observer.snapshot, groups, policy, prefix: config.prefix })).place({
        id: body.id,
        documents: wanted.expected_products,
        traffic: wanted.traffic_weight,
        group: body.group,
        dedicated: body.dedicated,
      });
      const undo = [];
      try {
        if (decision.create) await createManagedIndex(this.ctx, decision.create, undo);
        await pointAlias(client, body.id, decision.index, { routing: policy.routing.byTenant });
        undo.push(() => removeAlias(client, body.id));
        const t = await store.putTenant({
          id: body.id,
          ...wanted,
          index: decision.index,
          group: decision.group,
          kind: decision.kind,
          state: 'active',
          created_at: now(),
        });
        log.info({ tenant: t.id, index: t.index, group: t.group, kind: t.kind }, 'tenant placed');
        return { created: true, tenant: this.views.tenantView(t, 0) };
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
