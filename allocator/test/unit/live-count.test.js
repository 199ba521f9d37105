// GET /tenants/{id}'s live count: reused for one refresh interval, renewed in the background in
// the second half of it (refresh ahead) so a steady reader never waits, never older than 1 s,
// and a renewal never brings back a count forget() dropped. Pure logic: a fake client and clock.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Views } from '../../src/views/views.js';

function setup() {
  const calls = [];
  const client = {
    count: ({ index }) => new Promise((resolve, reject) => calls.push({ index, resolve: (n) => resolve({ count: n }), reject })),
  };
  const snapshot = { searchRate: new Map(), cost: { tenants: new Map() }, hot: [] };
  const store = { tenants: new Map([['s1', { id: 's1', name: 's1', group: 'g1', index: 'ix', state: 'active' }]]), indices: new Map() };
  const clock = { t: 10000 };
  const views = new Views({ client, store, observer: { snapshot }, policy: {}, now: () => clock.t });
  return { calls, views, clock };
}
const tick = () => new Promise((r) => setImmediate(r));

test('a count is shared for one refresh interval, renewed ahead in its second half, never served older than 1 s', async () => {
  const { calls, views, clock } = setup();
  const first = views.getTenant('s1');
  assert.equal(calls.length, 1, 'the first read asks Elasticsearch');
  calls[0].resolve(5);
  assert.equal((await first).documents, 5);
  clock.t += 300;
  assert.equal((await views.getTenant('s1')).documents, 5);
  assert.equal(calls.length, 1, 'a count younger than half a second is reused as it is');
  clock.t += 300; // 600 ms old: served at once, renewed behind it
  assert.equal((await views.getTenant('s1')).documents, 5);
  assert.equal(calls.length, 2, 'renewed in the background');
  clock.t += 100;
  await views.getTenant('s1');
  assert.equal(calls.length, 2, 'one renewal at a time');
  calls[1].resolve(7);
  await tick();
  clock.t += 700; // 1.1 s after the first count, 500 ms after the renewal was asked
  assert.equal((await views.getTenant('s1')).documents, 7, 'the renewed count, as old as its request');
  assert.equal(calls.length, 3, 'renewed again: it is half a second old');
  clock.t += 1000; // the renewal never answered: the count it would replace is too old to serve
  const late = views.getTenant('s1');
  assert.equal(calls.length, 4, 'a count older than 1 s is never served: the reader waits for a new one');
  calls[3].resolve(9);
  assert.equal((await late).documents, 9);
  calls[2].resolve(8);
  await tick();
  assert.equal((await views.getTenant('s1')).documents, 9, 'a late renewal does not replace a newer count');
});

test('a renewal that fails keeps the count, and one that answers after forget() is dropped', async () => {
  const { calls, views, clock } = setup();
  const first = views.getTenant('s1');
  calls[0].resolve(5);
  await first;
  clock.t += 600;
  await views.getTenant('s1');
  calls[1].reject(new Error('node gone'));
  await tick();
  assert.equal((await views.getTenant('s1')).documents, 5);
  assert.equal(calls.length, 3, 'tried again on the next read');
  views.forget('s1'); // the tenant moved: its count must be asked again
  calls[2].resolve(5);
  await tick();
  const after = views.getTenant('s1');
  assert.equal(calls.length, 4, 'forget() means the next read asks Elasticsearch');
  calls[3].resolve(0);
  assert.equal((await after).documents, 0);
});
