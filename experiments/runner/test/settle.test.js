// Settling a new lab before its first measured window (src/run/settle.js): the rule that stops
// it, and what results.json and the report say of it.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { SETTLE, SETTLE_QUICK, passOf, settleOf, settled } from '../src/run/settle.js';
import { validateResults } from '../src/results.js';
import { writeReport } from '../src/report.js';
import { syntheticResults } from './fixtures/synthetic.js';

const p = (p95_ms, late_share = 0) => ({ p95_ms, late_share });

test('passOf: p95 and the share of late arrivals; a window that measured nothing is all late', () => {
  assert.deepEqual(passOf({ requests: 1200, p95_ms: 80, late_arrivals: 60 }), p(80, 0.05));
  assert.deepEqual(passOf({ requests: 0, p95_ms: null }), p(null, 1));
  assert.deepEqual(passOf(null), p(null, 1));
});

test('settled: two windows in a row, both within max_late_rate, p95s within the tolerance', () => {
  assert.equal(settled([p(80)]), false, 'one window is never steady');
  assert.equal(settled([p(80), p(99)]), true, '+24% agrees');
  assert.equal(settled([p(80), p(101)]), false, '+26% does not');
  assert.equal(settled([p(100), p(76)]), true, '-24% agrees');
  assert.equal(settled([p(100), p(74)]), false, 'a lab still warming (-26%) does not');
  assert.equal(settled([p(13946, 0.97), p(3207), p(3100)]), true, 'only the last two count');
  assert.equal(settled([p(80, 0.06), p(80)]), false, 'a late window before');
  assert.equal(settled([p(80), p(80, 0.06)]), false, 'a late last window');
  assert.equal(settled([p(80), p(80, 0.06)], { maxLate: 0.1 }), true, "the spec's max_late_rate");
  assert.equal(settled([p(null), p(null)]), false, 'nothing measured');
  assert.equal(settled([p(80), p(120)], { tolerance: 0.5 }), true);
  assert.ok(SETTLE.maxPasses >= 2 && SETTLE.windowS > 0);
});

test('results.settle validates; the report states the settling and says when it never was steady', async () => {
  const { results } = syntheticResults();
  const base = { variant: results.variants[0].name, window_s: 10, tolerance: 0.25, max_late_rate: 0.05, max_passes: 8 };
  for (const [settle, re] of [
    [{ ...base, passes: [p(3207.4, 0.2), p(420), p(390)], steady: true }, /Then 3 unmeasured windows of 10 s of \S+ until two in a row had at most 5% late arrivals and p95s within 25% of each other \(p95 3207, 420, 390 ms\)\. /],
    [{ ...base, passes: Array.from({ length: 8 }, (_, i) => p(1000 / (i + 1))), steady: false }, /\*\*never steady\*\* \(p95 1000, 500, [^)]*\): the first measured windows may still be a cold lab's/],
  ]) {
    const r = { ...structuredClone(results), settle };
    assert.deepEqual(validateResults(r), []);
    const dir = join(mkdtempSync(join(tmpdir(), 'settle-')), 'run');
    await writeReport(dir, r);
    assert.match(readFileSync(join(dir, 'report.md'), 'utf8'), re);
  }
  assert.notDeepEqual(validateResults({ ...structuredClone(results), settle: { ...base, passes: [], steady: 'yes' } }), []);
});

test('settleOf: a full run and the demo settle in 10 s windows up to 8; a QUICK smoke run in 5 s windows up to 4', () => {
  assert.equal(settleOf({ quick: false }), SETTLE);
  assert.equal(settleOf({ quick: false }, { narrate: true }), SETTLE);
  assert.equal(settleOf({ quick: true }, { narrate: true }), SETTLE, 'make demo tells its story on settled neighbours');
  assert.equal(settleOf({ quick: true }), SETTLE_QUICK);
  assert.deepEqual([SETTLE.windowS, SETTLE.maxPasses, SETTLE_QUICK.windowS, SETTLE_QUICK.maxPasses], [10, 8, 5, 4]);
});
