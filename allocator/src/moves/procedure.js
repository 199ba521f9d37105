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
import { beginPage, countPage, pageOutcome, recordError } from '../jobs/job.js';
import { MoveError } from '../errors.js';
import { copyPass, drainAll, transient } from './copy.js';

export const PHASES = ['prepare', 'split', 'copy', 'switch', 'cleanup', 'done'];

/** Waits `ms`, or less when `signal` aborts (the caller then checks it). */
function pause(ms, signal) {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

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

  async split(ctx, job, progress) {
    await splitAlias(ctx.client, job.tenant, job.from.index, job.to.index, { routing: ctx.policy.routing.byTenant });
    await pause(ctx.policy.move.drainMs, progress.signal);
    // Interrupted during the wait: the split is done and idempotent, the wait is redone.
    progress.signal?.throwIfAborted();
  },

  async copy(ctx, job, progress) {
    const { batchSize, keepAlive, maxPasses } = ctx.policy.move;
    for (let pass = 1; pass <= maxPasses; pass++) {
      await ctx.client.indices.refresh({ index: job.from.index });
      const res = await copyPass(ctx.client, {
        source: job.from.index,
        target: job.to.index,
        tenantId: job.tenant,
        batchSize,
        keepAlive,
        beforeWrite: progress.beforeWrite,
        onPage: progress.written,
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
    const opts = { source: job.from.index, target: job.to.index, tenantId: job.tenant, batchSize, keepAlive, beforeWrite: progress.beforeWrite, onPage: progress.written };
    if (source?.kind === 'dedicated' && !(await client.indices.exists({ index: job.from.index }))) {
      await store.deleteIndex(job.from.index); // resumed after the drop
    } else if (source?.kind === 'dedicated') {
      // Only this tenant writes there: a write block turns a late write into an error its
      // writer sees (and retries through the alias), never into an acknowledged loss.
      await client.indices.putSettings({ index: job.from.index, settings: { 'index.blocks.write': true } });
      await client.indices.refresh({ index: job.from.index });
      await copyPass(client, opts);
      // Counted once, in the same save that says so: a resume after this point must not
      // count the dropped documents again.
      if (!job.checkpoint?.source_counted) {
        const { count } = await client.count({ index: job.from.index });
        countPage(job, { deleted: count });
        job.checkpoint = { ...job.checkpoint, source_counted: true };
        await progress.save();
      }
      await deleteIndex(client, job.from.index);
      await store.deleteIndex(job.from.index);
    } else {
      await drainAll(client, opts);
    }
    await setGcDeletes(client, job.to.index, null);
  },
};

/**
 * After a crash (or a failed step) the page that was being written when it happened is in the
 * job's checkpoint and not in its counters: what of it reached the cluster is counted now.
 */
async function reconcilePage(ctx, job) {
  const page = job.checkpoint?.page;
  if (!page) return false;
  const get = async (index, entries) => {
    if (!entries.length) return [];
    const res = await ctx.client.mget({ index, docs: entries.map(([_id, , routing]) => ({ _id, ...(routing ? { routing } : {}) })), _source: false });
    return res.docs;
  };
  const { copied, skipped, deleted } = pageOutcome(page, await get(job.to.index, page.copy), await get(job.from.index, page.delete));
  countPage(job, { copied, skipped, deleted });
  ctx.metrics?.documentsCopied.inc(copied);
  ctx.log.info({ job: job.id, phase: page.phase, copied, deleted }, 'move: counted the page in flight at the interruption');
  return true;
}

/**
 * Runs the job from its persisted phase to the end. Transient cluster errors are retried with
 * backoff; anything else fails the job. `save(job)` persists it; every page is persisted before
 * it is written (see jobs/job.js), so the counters survive a crash exactly. `signal` stops the
 * move at the next page or phase boundary (shutdown): the job is left as persisted.
 */
export async function runMove(ctx, job, save, signal) {
  while (job.phase !== 'done') {
    const phase = job.phase;
    // Phase timings and the copy rate add up over every run of the phase (a resume continues them).
    const before = job.phase_ms?.[phase] ?? 0;
    const t0 = Date.now();
    const clock = () => {
      job.phase_ms = { ...job.phase_ms, [phase]: before + Date.now() - t0 };
    };
    const progress = {
      signal,
      async save() {
        clock();
        await save(job);
      },
      async beforeWrite(page) {
        signal?.throwIfAborted();
        beginPage(job, phase, page);
        await progress.save();
      },
      async written(page) {
        countPage(job, page);
        ctx.metrics?.documentsCopied.inc(page.copied ?? 0);
        if (phase === 'copy') {
          job.rate_docs_per_s = Math.round((job.documents_copied / Math.max(0.001, (before + Date.now() - t0) / 1000)) * 10) / 10;
        }
      },
    };
    for (let attempt = 1; ; attempt++) {
      try {
        signal?.throwIfAborted();
        if (await reconcilePage(ctx, job)) await progress.save();
        await steps[phase](ctx, job, progress);
        break;
      } catch (err) {
        if (signal?.aborted || !transient(err) || attempt >= ctx.retries) throw Object.assign(err, { phase });
        recordError(job, { phase, message: err.message, retrying: true });
        ctx.log.warn({ job: job.id, phase, err: err.message, attempt }, 'move step failed; retrying');
        await pause(Math.min(30000, 500 * 2 ** attempt), signal);
      }
    }
    clock();
    job.phase = PHASES[PHASES.indexOf(phase) + 1];
    if (job.phase === 'done') delete job.checkpoint;
    await save(job);
  }
}

/** True when a failure happened before any write could have gone to the target. */
export const failedBeforeSplit = (phase) => phase === 'prepare' || phase === 'split';
