import assert from 'node:assert/strict';
import { test } from 'node:test';
import { forEachUrlBatch, listed, URL_LIST_BYTES, urlListBatches } from '../src/bounded.js';
import { aliasFor } from '../src/naming.js';

const aliases = (n) => Array.from({ length: n }, (_, i) => aliasFor(`store-${String(i).padStart(5, '0')}`));
const encoded = (batch) => encodeURIComponent(batch.join(',')).length;

test('urlListBatches: 10,000 aliases in batches each under the budget once encoded, every name once and in order', () => {
  const names = aliases(10000);
  const batches = urlListBatches(names);
  assert.ok(batches.length > 1);
  for (const b of batches) assert.ok(encoded(b) <= URL_LIST_BYTES, `a batch of ${encoded(b)} bytes`);
  assert.deepEqual(batches.flat(), names);
  // full batches: the next name would not have fitted
  for (const b of batches.slice(0, -1)) assert.ok(encoded(b) + 3 + encodeURIComponent(names[0]).length > URL_LIST_BYTES);
});

test('urlListBatches: the comma counts as its encoded %2C, a name over the budget is a batch alone, nothing gives no batch', () => {
  // three names of 10 bytes: 10 + 3 + 10 = 23 fits 23, not 22
  const three = ['aaaaaaaaaa', 'bbbbbbbbbb', 'cccccccccc'];
  assert.deepEqual(urlListBatches(three, 23), [['aaaaaaaaaa', 'bbbbbbbbbb'], ['cccccccccc']]);
  assert.deepEqual(urlListBatches(three, 22), [['aaaaaaaaaa'], ['bbbbbbbbbb'], ['cccccccccc']]);
  assert.deepEqual(urlListBatches(['x'.repeat(50), 'y'], 20), [['x'.repeat(50)], ['y']]);
  assert.deepEqual(urlListBatches([]), []);
});

test('forEachUrlBatch: one call a batch, in order, one at a time, with the joined form a client takes', async () => {
  const names = aliases(1000);
  let inFlight = 0;
  let most = 0;
  const seen = [];
  const res = await forEachUrlBatch(names, async (joined, batch) => {
    inFlight += 1; most = Math.max(most, inFlight);
    await new Promise((r) => setTimeout(r, 1));
    inFlight -= 1;
    assert.equal(joined, batch.join(','));
    seen.push(...batch);
    return batch.length;
  });
  assert.equal(most, 1);
  assert.deepEqual(seen, names);
  assert.equal(res.reduce((a, b) => a + b, 0), 1000);
  assert.deepEqual(await forEachUrlBatch([], async () => 1), []);
});

test('listed: a bounded line, however many names', () => {
  assert.equal(listed(['a', 'b']), 'a, b');
  assert.equal(listed(aliases(10000), 2), 'tenant-store-00000, tenant-store-00001 and 9998 more');
  assert.ok(listed(aliases(10000)).length < 300);
});
