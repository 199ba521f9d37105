// Move requests and move jobs: POST /tenants/{id}/move decides the target and records a job
// (or resumes the one that must finish); the runner then runs it through moves/procedure.js
// and this module settles the end: the tenant's new home, or after a failure a rollback (no
// write can have reached the target yet) or a resumable job (writes already go there).
import { deleteIndex, discoverGroups } from '../es/cluster.js';
import { conflict, Interrupted } from '../errors.js';
import { newMoveJob, recordError, resumes, transition } from '../jobs/job.js';
import { placementModel, sizeOf } from '../placement/model.js';
import { aliasFor } from '@tenantlab/contract/naming';
import { Placer } from '../placement/place.js';
import { createManagedIndex, undoAll } from '../state/indices.js';
import { findTenant } from '../views/views.js';
import { failedBeforeSplit, runMove } from './procedure.js';

export class Moves {
  constructor(ctx, views) {
    this.ctx = ctx;
    this.views = views;
    this.procedureCtx = { client: ctx.client, store: ctx.store, config: ctx.config, policy: ctx.policy, log: ctx.log, metrics: ctx.metrics, retries: 8 };
  }

  /**
   * Validates a move, decides its target and records the job. The target index, when new, is
   * created here (under the lock) so that concurrent placements see it. A tenant whose move
   * failed after the split gets that move back, requeued: forward is the only safe way.
   */
  async request(id, body, { enqueue = true, parent = null, trigger, reason, evidence } = {}) {
    const { client, config, store, lock, log, metrics, observer, policy, runner } = this.ctx;
    return lock.run(async () => {
      const t = findTenant(store, id);
      if (t.state === 'deleting') throw conflict('tenant_deleting', `tenant '${id}' is being deleted`);
      if (t.state === 'moving') {
        const job = store.jobs.get(t.job_id);
        if (job && resumes(job, body)) {
          transition(job, 'queued');
          await store.putJob(job);
          metrics.movesInProgress.inc();
          if (enqueue) runner.enqueue(job.id);
          return job;
        }
        throw conflict('tenant_moving', `tenant '${id}' is already moving (job ${t.job_id}, ${job?.state ?? 'unknown'})`);
      }
      const groups = await discoverGroups(client, config.groupAttr);
      const placer = new Placer(placementModel({ store, snapshot: observer.snapshot, groups, policy, prefix: config.prefix }));
      placer.remove(id);
      const group = body.group ?? (body.index ? undefined : t.group);
      const dedicated = body.dedicated ?? (t.kind === 'dedicated' ? true : undefined);
      if (!body.index && group === t.group && t.kind === 'dedicated' && dedicated === true) {
        throw conflict('already_there', `tenant '${id}' already has a dedicated index in group ${t.group}`);
      }
      const decision = placer.place({
        id,
        documents: sizeOf(t, observer.snapshot, store),
        traffic: t.traffic_weight,
        group,
        dedicated,
        index: body.index,
        avoidIndex: t.index,
      });
      if (decision.index === t.index) throw conflict('already_there', `tenant '${id}' is already in index ${t.index}`);
      const undo = [];
      try {
        if (decision.create) await createManagedIndex(this.ctx, decision.create, undo);
        const job = newMoveJob({ tenant: id, parent, from: t, to: decision, trigger, reason, evidence });
        await store.putJob(job);
        await store.putTenant({ ...t, state: 'moving', job_id: job.id });
        metrics.movesInProgress.inc();
        if (enqueue) runner.enqueue(job.id);
        return job;
      } catch (err) {
        await undoAll(undo, log);
        throw err;
      }
    });
  }

  /** The runner's handler for move jobs (already `running`). Throws only Interrupted. */
  async run(job, signal) {
    const { store, lock, log, metrics } = this.ctx;
    log.info({ job: job.id, tenant: job.tenant, from: job.from.index, to: job.to.index, phase: job.phase }, 'move started');
    try {
      await runMove(this.procedureCtx, job, (j) => store.putJob(j), signal);
      await lock.run(async () => {
        const { job_id, ...rest } = store.tenants.get(job.tenant);
        await store.putTenant({ ...rest, index: job.to.index, group: job.to.group, kind: job.to.kind, state: 'active' });
        transition(job, 'succeeded');
        this.views.forget(job.tenant);
        await store.putJob(job);
      });
      metrics.moves.inc({ result: 'succeeded' });
      log.info({ job: job.id, tenant: job.tenant, copied: job.documents_copied, rate: job.rate_docs_per_s }, 'move succeeded');
    } catch (err) {
      if (err instanceof Interrupted) {
        // Everything up to the last page is persisted: the next start continues from there.
        transition(job, 'queued');
        await store.putJob(job).catch((e) => log.error({ job: job.id, err: e.message }, 'could not persist the interrupted move'));
        log.info({ job: job.id, phase: job.phase, copied: job.documents_copied }, 'move interrupted; it resumes at the next start');
        throw err;
      }
      recordError(job, { phase: err.phase ?? job.phase, message: err.message });
      transition(job, 'failed');
      metrics.moves.inc({ result: 'failed' });
      log.error({ job: job.id, tenant: job.tenant, phase: job.phase, err: err.message }, 'move failed');
      await this.#settleFailure(job).catch((e) => log.error({ job: job.id, err: e.message }, 'could not settle failed move'));
    } finally {
      metrics.movesInProgress.dec();
    }
  }

  /** Rolls a failed move back when no write can have reached the target; else keeps it resumable. */
  async #settleFailure(job) {
    const { client, store, lock } = this.ctx;
    let split = !failedBeforeSplit(job.phase);
    if (!split) {
      const aliases = await client.indices.getAlias({ name: aliasFor(job.tenant) }).catch(() => ({}));
      split = Boolean(aliases[job.to.index]);
    }
    await lock.run(async () => {
      if (split) {
        transition(job, 'resumable', { note: 'writes already go to the target: the move must finish; POST the same move again to resume it' });
        await store.putJob(job);
        return;
      }
      if (job.to.create) {
        const { count } = await client.count({ index: job.to.index }).catch(() => ({ count: 0 }));
        if (count === 0) {
          await deleteIndex(client, job.to.index);
          await store.deleteIndex(job.to.index);
        }
      }
      const { job_id, ...rest } = store.tenants.get(job.tenant);
      await store.putTenant({ ...rest, state: 'active' });
      transition(job, 'rolled_back');
      await store.putJob(job);
    });
  }
}
