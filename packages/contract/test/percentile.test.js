import assert from 'node:assert/strict';
import { test } from 'node:test';
import { flooredPercentile, nearestRank } from '../src/percentile.js';

test('nearestRank: the sample at rank ceil(q * n); null for none; the input left unsorted', () => {
  assert.equal(nearestRank([], 0.95), null);
  const xs = Array.from({ length: 100 }, (_, i) => 100 - i);
  assert.equal(nearestRank(xs, 0.95), 95);
  assert.equal(nearestRank(xs, 0.5), 50);
  assert.equal(nearestRank(xs, 0), 1);
  assert.equal(nearestRank(xs, 1), 100);
  assert.equal(nearestRank([3, 1, 2], 0.5), 2);
  assert.equal(xs[0], 100);
});

test('flooredPercentile: whole-ms values read as bins [t, t + 1), interpolated inside the bin of rank q * n', () => {
  assert.equal(flooredPercentile([], 0.95), null);
  // one bin: 20 searches of 5.0-5.99 ms; rank 19 of 20 is 95% of the way through it
  assert.equal(flooredPercentile(Array(20).fill(5), 0.95), 5.95);
  // 90 at 4 ms, 10 at 9 ms: rank 95 is half-way through the 9-ms bin's ten
  const xs = [...Array(90).fill(4), ...Array(10).fill(9)];
  assert.ok(Math.abs(flooredPercentile(xs, 0.95) - 9.5) < 1e-12);
  // the bin edge: rank 90 is the 4-ms bin's end
  assert.equal(flooredPercentile(xs, 0.9), 5);
  assert.equal(flooredPercentile(xs, 0), 4);
  assert.equal(flooredPercentile(xs, 1), 10);
  // one search more in the slow bin moves the figure by a fraction of a millisecond, where
  // nearest rank jumps a whole step (the reason it exists)
  const a = [...Array(95).fill(6), ...Array(5).fill(7)];
  const b = [...Array(94).fill(6), ...Array(6).fill(7)];
  assert.equal(nearestRank(a, 0.95), 6);
  assert.equal(nearestRank(b, 0.95), 7);
  assert.equal(flooredPercentile(a, 0.95), 7);
  assert.ok(Math.abs(flooredPercentile(b, 0.95) - (7 + 1 / 6)) < 1e-12);
  assert.throws(() => flooredPercentile([1.5], 0.5), /not a whole number/);
});
