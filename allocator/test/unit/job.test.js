// The job state machine: every legal path, every illegal transition refused with a message that
// names the job and both states, and the counters' checkpoint (a page is counted exactly once).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { IllegalTransition } from '../../src/errors.js';
import { beginPage, countPage, pageOutcome, isActive, JOB_STATES, jobView, newMoveJob, newRebalanceJob, resumes, stateOf, transition } from '../../src/jobs/job.js';

const move = () => newMoveJob({ tenant: 'shop', from: { index: 'a', group: 'g1', kind: 'shared' }, to: { index: 'b', group: 'g2', kind: 'shared', create: null } });

const LEGAL = {
  queued: ['running'],
  running: ['succeeded', 'failed', 'queued'],
  failed: ['resumable', 'rolled_back'],
  resumable: ['queued'],
  succeeded: [],
  rolled_back: [],
};

/** A job brought to `state` along legal transitions. */
function jobIn(state) {
  const j = move();
  const path = { queued: [], running: ['running'], succeeded: ['running', 'succeeded'], failed: ['running', 'failed'], resumable: ['running', 'failed', 'resumable'], rolled_back: ['running', 'failed', 'rolled_back'] }[state];
  for (const s of path) transition(j, s);
  assert.equal(stateOf(j), state);
  return j;
}

describe('job state machine', () => {
  it('starts queued with zero counters, with the fields the API has always shown', () => {
    const j = move();
    assert.equal(stateOf(j), 'queued');
    assert.match(j.id, /^move-[a-z0-9]+-[a-f0-9]+$/);
    assert.deepEqual([j.passes, j.documents_copied, j.documents_skipped, j.documents_deleted, j.rate_docs_per_s], [0, 0, 0, 0, 0]);
    assert.deepEqual(j.errors, []);
    assert.equal(j.phase, 'prepare');
    assert.deepEqual(j.to, { index: 'b', group: 'g2', kind: 'shared', create: null });
    const r = newRebalanceJob([{ tenant: 't', to: { group: 'g2' } }]);
    assert.match(r.id, /^rebalance-/);
    assert.deepEqual(r.moves, [{ tenant: 't', to: { group: 'g2' }, state: 'pending', job_id: null }]);
  });

  for (const from of JOB_STATES) {
    for (const to of JOB_STATES) {
      const legal = LEGAL[from].includes(to);
      it(`${from} -> ${to} is ${legal ? 'allowed' : 'refused'}`, () => {
        const j = jobIn(from);
        if (legal) {
          transition(j, to);
          assert.equal(stateOf(j), to);
        } else {
          const before = structuredClone(j);
          assert.throws(() => transition(j, to), (err) => err instanceof IllegalTransition && err.message === `job ${j.id}: illegal transition ${from} -> ${to} (allowed from ${from}: ${LEGAL[from].join(', ') || 'none'})`);
          assert.deepEqual(j, before, 'a refused transition changes nothing');
        }
      });
    }
  }

  it('shows resumable and rolled back as failed with a flag (the API has four states)', () => {
    const r = jobIn('resumable');
    assert.equal(r.state, 'failed');
    assert.equal(r.resumable, true);
    const b = jobIn('rolled_back');
    assert.equal(b.state, 'failed');
    assert.equal(b.rolled_back, true);
    assert.ok(!isActive(r) && !isActive(b) && isActive(jobIn('queued')) && isActive(jobIn('running')));
  });

  it('records start and end times, keeps started_at over a resume, and notes why', () => {
    const j = jobIn('running');
    const started = j.started_at;
    assert.ok(started && j.finished_at === null);
    transition(j, 'failed');
    assert.ok(j.finished_at);
    transition(j, 'resumable', { note: 'writes already go to the target' });
    assert.equal(j.errors.at(-1).message, 'writes already go to the target');
    transition(j, 'queued');
    assert.equal(j.resumable, undefined);
    assert.equal(j.finished_at, null);
    assert.ok(j.resumed_at);
    transition(j, 'running');
    assert.equal(j.started_at, started);
  });

  it('resumes only the same move', () => {
    const j = jobIn('resumable');
    assert.ok(resumes(j, { group: 'g2' }));
    assert.ok(resumes(j, { index: 'b' }));
    assert.ok(resumes(j, { dedicated: true }));
    assert.ok(!resumes(j, { group: 'g1' }));
    assert.ok(!resumes(j, { index: 'c' }));
    assert.ok(!resumes(jobIn('rolled_back'), { group: 'g2' }));
    assert.ok(!resumes(jobIn('failed'), { group: 'g2' }));
  });
});

describe('job counters', () => {
  const hit = (n, v) => ({ _id: `shop:${n}`, _version: v });

  it('a page is in the checkpoint until it is counted, then only in the counters', () => {
    const j = move();
    beginPage(j, 'copy', { hits: 3, copy: [hit(1, 10), hit(2, 20)] });
    assert.deepEqual(j.checkpoint.page, { phase: 'copy', hits: 3, copy: [['shop:1', 10, null], ['shop:2', 20, null]], delete: [] });
    assert.equal(j.documents_copied, 0);
    countPage(j, { copied: 2, skipped: 1 });
    assert.equal(j.checkpoint.page, undefined);
    assert.deepEqual([j.documents_copied, j.documents_skipped, j.documents_deleted], [2, 1, 0]);
    beginPage(j, 'cleanup', { hits: 1, copy: [], del: [{ ...hit(3, 30), _routing: 'shop' }] });
    assert.deepEqual(j.checkpoint.page.delete, [['shop:3', 30, 'shop']]);
    countPage(j, { copied: 0, deleted: 1 });
    assert.deepEqual([j.documents_copied, j.documents_skipped, j.documents_deleted], [2, 1, 1]);
  });

  it('reconciles a page in flight at a crash: only what reached the cluster at the version sent', () => {
    const copyPage = { phase: 'copy', hits: 4, copy: [['a', 5, null], ['b', 6, null], ['c', 7, null]], delete: [] };
    // a: copied; b: never written; c: written, then overwritten by a client (newer version)
    const target = [{ found: true, _version: 5 }, { found: false }, { found: true, _version: 9 }];
    assert.deepEqual(pageOutcome(copyPage, target, []), { copied: 1, skipped: 3, deleted: 0 });
    const drainPage = { phase: 'cleanup', hits: 3, copy: [['a', 5, null]], delete: [['a', 5, null], ['b', 6, null], ['c', 7, null]] };
    // deletes: a gone, b still there (the bulk never ran), c's index already dropped
    const source = [{ found: false }, { found: true, _version: 6 }, { error: { type: 'index_not_found_exception' } }];
    assert.deepEqual(pageOutcome(drainPage, [{ found: true, _version: 5 }], source), { copied: 1, skipped: 0, deleted: 2 });
    // a shard that did not answer is not counted as deleted
    assert.equal(pageOutcome(drainPage, [{ found: false }], [{ error: { type: 'no_shard_available_action_exception' } }, { found: true }, { found: true }]).deleted, 0);
  });

  it('keeps other checkpoint entries and hides the checkpoint from the API view', () => {
    const j = move();
    j.checkpoint = { source_counted: true };
    beginPage(j, 'cleanup', { hits: 1, copy: [hit(1, 1)] });
    countPage(j, { copied: 1 });
    assert.deepEqual(j.checkpoint, { source_counted: true });
    const view = jobView(j);
    assert.equal('checkpoint' in view, false);
    assert.equal(view.documents_copied, 1);
    assert.equal(jobView(move()).id.startsWith('move-'), true);
  });
});
