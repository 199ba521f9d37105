// A job (a tenant move, or a rebalance running moves one at a time) and its state machine, in
// one place. The record is what GET /jobs shows and what the state index keeps, so a restart
// continues a job exactly where the last process left it, counters included.
//
//   queued ──> running ──> succeeded
//     ^           │ └────> queued        (interrupted: a restart or a shutdown requeues it)
//     │           v
//     │        failed ───> rolled_back   (failed before any write reached the target: undone)
//     │           └──────> resumable     (writes already go to the target: it can only go forward)
//     └─────────────────── resumable     (POST the same move again)
//
// The API has always shown four states; `resumable` and `rolled_back` are `failed` with the
// flag of the same name, so clients that wait for succeeded|failed keep working.
import { randomBytes } from 'node:crypto';
import { IllegalTransition } from '../errors.js';

export const JOB_STATES = ['queued', 'running', 'resumable', 'succeeded', 'failed', 'rolled_back'];

const TRANSITIONS = {
  queued: ['running'],
  running: ['succeeded', 'failed', 'queued'],
  failed: ['resumable', 'rolled_back'],
  resumable: ['queued'],
  succeeded: [],
  rolled_back: [],
};

const now = () => new Date().toISOString();

export const newJobId = (kind) => `${kind}-${Date.now().toString(36)}-${randomBytes(3).toString('hex')}`;

/** The machine's state of a job record. */
export function stateOf(job) {
  if (job.state === 'failed' && job.rolled_back) return 'rolled_back';
  if (job.state === 'failed' && job.resumable) return 'resumable';
  return job.state;
}

/** True while the job still has work to do (queued or running). */
export const isActive = (job) => job.state === 'queued' || job.state === 'running';

/** True once nothing will run the job again without a new request. */
export const isFinished = (job) => !isActive(job);

/**
 * Moves a job to state `to`, checking the machine, and records when. `note` goes to the job's
 * errors list (the list the API has always shown for "what happened to this job").
 */
export function transition(job, to, { note } = {}) {
  const from = stateOf(job);
  if (!TRANSITIONS[from]?.includes(to)) throw new IllegalTransition(job, from, to, TRANSITIONS[from]);
  const at = now();
  switch (to) {
    case 'running':
      job.state = 'running';
      job.started_at ??= at;
      break;
    case 'queued':
      job.state = 'queued';
      if (from === 'resumable') {
        delete job.resumable;
        job.resumed_at = at;
        job.finished_at = null;
      }
      break;
    case 'succeeded':
    case 'failed':
      job.state = to;
      job.finished_at = at;
      break;
    case 'resumable':
      job.resumable = true;
      break;
    case 'rolled_back':
      job.rolled_back = true;
      break;
  }
  if (note) job.errors.push({ at, message: note });
  return job;
}

/** A failure of a step; `retrying` when the step will be tried again. */
export function recordError(job, { phase, message, retrying }) {
  job.errors.push({ at: now(), ...(phase ? { phase } : {}), message, ...(retrying ? { retrying: true } : {}) });
}

/** A new move job. `phase` is where it starts: a rebuilt one resumes an interrupted copy. */
export function newMoveJob({ tenant, from, to, parent = null, phase = 'prepare', note, trigger = parent ? 'rebalance' : 'api', reason = null, evidence = null }) {
  const job = {
    id: newJobId('move'),
    type: 'move',
    state: 'queued',
    phase,
    tenant,
    parent,
    trigger,
    // why it was asked for (a planned or automatic move says why, with its numbers)
    reason,
    ...(evidence ? { evidence } : {}),
    from: { index: from.index, group: from.group, kind: from.kind },
    to: { index: to.index, group: to.group, kind: to.kind, create: to.create ?? null },
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
  if (note) job.errors.push({ at: job.created_at, message: note });
  return job;
}

/** A new rebalance job: the planned moves, run one at a time. */
export function newRebalanceJob(plannedMoves) {
  return {
    id: newJobId('rebalance'),
    type: 'rebalance',
    state: 'queued',
    moves: plannedMoves.map((m) => ({ ...m, state: 'pending', job_id: null })),
    errors: [],
    created_at: now(),
    started_at: null,
    finished_at: null,
  };
}

/** True when POST /tenants/{id}/move with `body` asks for the same move as the resumable `job`. */
export function resumes(job, body) {
  return stateOf(job) === 'resumable' && (!body.group || body.group === job.to.group) && (!body.index || body.index === job.to.index);
}

// ---- counters -------------------------------------------------------------------------------
// The counters are part of the record and are persisted with it; a page of documents in flight
// is persisted *before* it is written (`checkpoint.page`) and folded into the counters in the
// same save that clears it, so after a crash exactly that page is left to reconcile
// (moves/procedure.js counts what of it reached the cluster). No page is counted twice or lost.

/** Records the page about to be written: [_id, version, routing] of what is copied / deleted. */
export function beginPage(job, phase, { hits, copy = [], del = [] }) {
  const entry = (h) => [h._id, h._version, h._routing ?? null];
  job.checkpoint = { ...job.checkpoint, page: { phase, hits, copy: copy.map(entry), delete: del.map(entry) } };
}

/** Adds a written page to the counters and forgets the checkpoint of it. */
export function countPage(job, { copied = 0, skipped = 0, deleted = 0 }) {
  job.documents_copied += copied;
  job.documents_skipped += skipped;
  job.documents_deleted += deleted;
  if (job.checkpoint) delete job.checkpoint.page;
}

/**
 * What of a checkpointed page reached the cluster, from `_mget` of its copies in the target and
 * of its deletes in the source: a copy counts when the target holds it at exactly the version
 * sent (a client write after it would carry a newer one), a delete when the source lacks it.
 */
export function pageOutcome(page, inTarget, inSource) {
  const copied = inTarget.filter((d, i) => d.found === true && d._version === page.copy[i][1]).length;
  const deleted = inSource.filter((d) => d.found === false || d.error?.type === 'index_not_found_exception').length;
  return { copied, skipped: page.delete.length ? 0 : page.hits - copied, deleted };
}

/** The record as the API shows it: without the internal checkpoint. */
export function jobView(job) {
  if (!job || !('checkpoint' in job)) return job;
  const { checkpoint, ...view } = job;
  return view;
}
