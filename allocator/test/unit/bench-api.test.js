// The API benchmark's reading of loadtest's latencies (a count per whole millisecond): the lab's
// nearest-rank percentiles, a 0 ms bucket included (loadtest's own reading skips it).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { histogramPercentiles } from '../../bench/api.js';

test('percentiles of a per-millisecond histogram, nearest rank, 0 ms counted', () => {
  assert.deepEqual(histogramPercentiles({ 0: 90, 5: 9, 30: 1 }), { p50_ms: 0, p95_ms: 5, p99_ms: 5 });
  // the 99th of 100 samples is the last but one: a single slow answer is the max, not the p99
  assert.deepEqual(histogramPercentiles({ 0: 98, 1: 1, 40: 1 }, [0.99, 1]), { p99_ms: 1, p100_ms: 40 });
  assert.deepEqual(histogramPercentiles({ 2: 1, 12: 2 }), { p50_ms: 12, p95_ms: 12, p99_ms: 12 });
  assert.deepEqual(histogramPercentiles({}), { p50_ms: null, p95_ms: null, p99_ms: null });
});
