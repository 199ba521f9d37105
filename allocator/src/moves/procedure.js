// Moving a tenant between indices with zero downtime and zero loss.
//
// Write contract (what every writer of catalog documents does, see README):
//   - documents are indexed whole through the alias `tenant-<id>`, with _id "<tenant>:<product>",
//     version = updated_at in epoch ms and version_type = external_gte;
//   - deletes go through the alias with version = deletion time in epoch ms, external_gte.
//
// Phases (each idempotent, persisted in the job, resumed after a crash):
//   prepare  target exists, keeps delete tombstones for the whole move (index.gc_deletes)
//   split    ONE atomic alias update: reads keep coming from the source (which holds the full
//            tenant), writes go to the target (its alias entry hides it from reads); then wait
//            for in-flight writes that resolved the alias before the switch to land
//   copy     PIT + search_after over the source, bulk into the target with the source's
//            version as an external version: the target rejects a copy when it already has a
//            newer write or a newer delete tombstone. Repeated until a pass copies nothing,
//            which proves every source document is in the target, superseded or deleted.
//   switch   refresh the target, then ONE atomic alias update: reads and writes on the target
//   cleanup  empty the source: each remaining document is copied once more (external versions)
//            and then deleted only if unchanged since read, so a late write that still landed
//            in the source is moved, not lost; a dedicated source is write-blocked, copied once
//            more and dropped. Then the target may forget tombstones again.
// Reads therefore always see a complete tenant: the source until the switch, the target after.
// Writes made during the move become visible at the switch (reads lag, never lose).
import { createIndex, deleteIndex, pointAlias, setGcDeletes, splitAlias } from '../es/cluster.js';
import { copyPass, drainAll, MoveError, transient } from './copy.js';

export const PHASES = ['prepare', 'split', 'copy', 'switch', 'cleanup', 'done'];
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const steps = {
  async prepare(ctx, job) {
    const { client } = ctx;
    if (!(await client.indices.exists({ index: job.to.index }))) {
      if (!job.to.create) throw new MoveError(`target index ${job.to.index} does not exist`);
      await createIndex(client, job.to.create, { attr: ctx.config.groupAttr });
    }
    await setGcDeletes(client, job.to.index, ctx.policy.move.gcDeletes);
    await client.cluster.health({ index: job.to.index, wait_for_status: 'yellow', timeout: '60s' });
  },

  async split(ctx, job) {
    await splitAlias(ctx.client, job.tenant, job.from.index, job.to.index, { routing: ctx.policy.routing.byTenant });
    await sleep(ctx.policy.move.drainMs);
  },

  async copy(ctx, job, progress) {
    const { batchSize, keepAlive, maxPasses } = ctx.policy.move;
    const started = Date.now();
    for (let pass = 1; pass <= maxPasses; pass++) {
      await ctx.client.indices.refresh({ index: job.from.index });
      const res = await copyPass(ctx.client, {
        source: job.from.index,
        target: job.to.index,
        tenantId: job.tenant,
        batchSize,
        keepAlive,
        onPage: (page) => progress.copied(page, started),
      });
      job.passes = (job.passes ?? 0) + 1;
      job.last_pass = res;
      if (pass >= 2 && res.copied === 0) return;
    }
    throw new MoveError(`source ${job.from.index} still receives writes for ${job.tenant} after ${maxPasses} passes`, { transient: true });
  },

  async switch(ctx, job) {
    await ctx.client.indices.refresh({ index: job.to.index });
    await pointAlias(ctx.client, job.tenant, job.to.index, { routing: ctx.policy.routing.byTenant, removeFrom: [job.from.index] });
  },

  async cleanup(ctx, job, progress) {
    const { client, store } = ctx;
    const source = store.indices.get(job.from.index);
    const { batchSize, keepAlive } = ctx.policy.move;
    const started = Date.now();
    const opts = { source: job.from.index, target: job.to.index, tenantId: job.tenant, batchSize, keepAlive };
    if (source?.kind === 'dedicated' && !(await client.indices.exists({ index: job.from.index }))) {
      await store.deleteIndex(job.from.index); // resumed after the drop
    } else if (source?.kind === 'dedicated') {
      // Only this tenant writes there: a write block turns a late write into an error its
      // writer sees (and retries through the alias), never into an acknowledged loss.
      await client.indices.putSettings({ index: job.from.index, settings: { 'index.blocks.write': true } });
      await client.indices.refresh({ index: job.from.index });
      await copyPass(client, { ...opts, onPage: (page) => progress.copied(page, started) });
      const { count } = await client.count({ index: job.from.index });
      await progress.deleted(count);
      await deleteIndex(client, job.from.index);
      await store.deleteIndex(job.from.index);
    } else {
      await drainAll(client, {
        ...opts,
        onPage: async (page) => {
          await progress.copied({ copied: page.copied, skipped: 0 }, started);
          await progress.deleted(page.deleted);
        },
      });
    }
    await setGcDeletes(client, job.to.index, null);
  },
};

/**
 * Runs the job from its persisted phase to the end. Transient cluster errors are retried with
 * backoff; anything else fails the job. `save(job)` persists progress.
 */
export async function runMove(ctx, job, save) {
  const progress = {
    async copied(page, started) {
      job.documents_copied += page.copied;
      job.documents_skipped += page.skipped;
      ctx.metrics?.documentsCopied.inc(page.copied);
      job.rate_docs_per_s = Math.round((job.documents_copied / Math.max(0.001, (Date.now() - started) / 1000)) * 10) / 10;
      await maybeSave();
    },
    async deleted(n) {
      job.documents_deleted += n;
      await maybeSave();
    },
  };
  let lastSave = 0;
  const maybeSave = async () => {
    if (Date.now() - lastSave > 1000) {
      lastSave = Date.now();
      await save(job);
    }
  };

  while (job.phase !== 'done') {
    const phase = job.phase;
    const t0 = Date.now();
    for (let attempt = 1; ; attempt++) {
      try {
        await steps[phase](ctx, job, progress);
        break;
      } catch (err) {
        if (!transient(err) || attempt >= ctx.retries) throw Object.assign(err, { phase });
        job.errors.push({ at: new Date().toISOString(), phase, message: err.message, retrying: true });
        ctx.log.warn({ job: job.id, phase, err: err.message, attempt }, 'move step failed; retrying');
        await sleep(Math.min(30000, 500 * 2 ** attempt));
      }
    }
    job.phase_ms = { ...job.phase_ms, [phase]: (job.phase_ms?.[phase] ?? 0) + Date.now() - t0 };
    job.phase = PHASES[PHASES.indexOf(phase) + 1];
    await save(job);
  }
}

/** True when a failure happened before any write could have gone to the target. */
export const failedBeforeSplit = (phase) => phase === 'prepare' || phase === 'split';
