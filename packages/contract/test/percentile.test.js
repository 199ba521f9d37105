import assert from 'node:assert/strict';
import { test } from 'node:test';
import { nearestRank } from '../src/percentile.js';

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
