import assert from 'node:assert/strict';
import { test } from 'node:test';
import { errors } from '@elastic/elasticsearch';
import { backoffMs } from '../../src/load/backoff.js';
import { BulkLoader, bulkLines } from '../../src/load/bulk-loader.js';

const items = (n, tenant = 't-1', size = 100) =>
  Array.from({ length: n }, (_, i) => ({ tenant, id: `${tenant}:${i + 1}`, version: 1000 + i, source: JSON.stringify({ n: i, pad: 'x'.repeat(size) }) }));

/** A fake client: `respond(lines, call)` returns the per-item statuses or throws. */
function fakeClient(respond) {
  const calls = [];
  let inFlight = 0;
  let maxInFlight = 0;
  return {
    calls,
    get maxInFlight() {
      return maxInFlight;
    },
    transport: {
      async request(params) {
        inFlight += 1;
        maxInFlight = Math.max(maxInFlight, inFlight);
        await new Promise((r) => setTimeout(r, 2));
        inFlight -= 1;
        const text = params.bulkBody.toString('utf8');
        const lines = text.trimEnd().split('\n');
        const docs = [];
        for (let i = 0; i < lines.length; i += 2) docs.push({ action: JSON.parse(lines[i]).index, source: JSON.parse(lines[i + 1]) });
        calls.push({ docs, bytes: params.bulkBody.length, querystring: params.querystring });
        const statuses = respond(docs, calls.length);
        const err = statuses.some((s) => s >= 300);
        return { errors: err, items: statuses.map((status) => ({ index: { status, ...(status >= 300 ? { error: { type: status === 429 ? 'es_rejected_execution_exception' : 'x', reason: 'r' } } : {}) } })) };
      },
    },
  };
}

const fastBackoff = { baseMs: 1, maxMs: 5 };

test('bulk lines follow the write contract: alias, <tenant>:<id>, external_gte version', () => {
  const [line1, line2] = bulkLines({ tenant: 'ci-0001', id: 'ci-0001:7', version: 1714110293195, source: '{"a":1}' }).split('\n');
  assert.deepEqual(JSON.parse(line1), { index: { _index: 'tenant-ci-0001', _id: 'ci-0001:7', version: 1714110293195, version_type: 'external_gte' } });
  assert.equal(line2, '{"a":1}');
});

test('requests are sized by bytes, and concurrency is bounded', async () => {
  const client = fakeClient((docs) => docs.map(() => 201));
  const loader = new BulkLoader({ client, flushBytes: 20000, concurrency: 3, backoff: fastBackoff });
  const stats = await loader.load(items(2000));
  assert.equal(stats.indexed, 2000);
  const oneDoc = bulkLines(items(1)[0]).length;
  for (const c of client.calls.slice(0, -1)) assert.ok(c.bytes >= 20000 && c.bytes < 20000 + oneDoc, `request of ${c.bytes} bytes`);
  assert.ok(client.maxInFlight <= 3 && client.maxInFlight >= 2, `max in flight ${client.maxInFlight}`);
  assert.equal(loader.acked.get('t-1'), 2000);
});

test('only rejected items are retried, with backoff, until they are accepted', async () => {
  const rejectedOnce = new Set();
  const client = fakeClient((docs) =>
    docs.map((d) => {
      if (d.source.n % 3 === 0 && !rejectedOnce.has(d.source.n)) {
        rejectedOnce.add(d.source.n);
        return d.source.n % 2 ? 429 : 503;
      }
      return 201;
    }),
  );
  const loader = new BulkLoader({ client, flushBytes: 5000, concurrency: 2, backoff: fastBackoff });
  const stats = await loader.load(items(300));
  assert.equal(stats.indexed, 300);
  assert.equal(stats.retriedItems, 100);
  const sent = client.calls.flatMap((c) => c.docs.map((d) => d.source.n));
  assert.equal(sent.length, 400, 'accepted items were sent again');
  const retries = client.calls.filter((c) => c.docs.every((d) => d.source.n % 3 === 0));
  assert.ok(retries.length >= 1);
});

test('a failed request (node gone) is re-sent whole; the load still completes', async () => {
  let failures = 2;
  const client = fakeClient((docs) => {
    if (failures-- > 0) throw new errors.ConnectionError('socket hang up');
    return docs.map(() => 201);
  });
  const loader = new BulkLoader({ client, flushBytes: 5000, concurrency: 1, backoff: fastBackoff });
  const stats = await loader.load(items(50));
  assert.equal(stats.indexed, 50);
  assert.equal(stats.retriedRequests, 2);
});

test('409 (a newer version is stored) counts as present, not as a failure', async () => {
  const client = fakeClient((docs) => docs.map((d) => (d.source.n < 10 ? 409 : 201)));
  const stats = await new BulkLoader({ client, flushBytes: 5000 }).load(items(40));
  assert.equal(stats.indexed, 30);
  assert.equal(stats.superseded, 10);
});

test('a document Elasticsearch refuses for good fails the load, naming the tenant', async () => {
  const client = fakeClient((docs) => docs.map((d) => (d.source.n === 5 ? 400 : 201)));
  await assert.rejects(new BulkLoader({ client, flushBytes: 5000 }).load(items(40, 'shop-9')), /tenant shop-9: Elasticsearch refused a document \(400/);
});

test('items still rejected after the deadline fail the load, naming tenants', async () => {
  const client = fakeClient((docs) => docs.map(() => 429));
  const loader = new BulkLoader({ client, flushBytes: 5000, retryDeadlineMs: 50, backoff: fastBackoff });
  await assert.rejects(loader.load(items(10, 'busy-1')), /10 documents \(tenants busy-1\) still rejected after 0s of retries: es_rejected_execution_exception/);
});

test('backoff is exponential, capped, and jittered', () => {
  assert.equal(backoffMs(3, { baseMs: 100, random: () => 0.999999 }), 799);
  assert.equal(backoffMs(20, { baseMs: 100, maxMs: 10000, random: () => 0.999999 }), 9999);
  assert.equal(backoffMs(5, { random: () => 0 }), 0);
  const draws = new Set(Array.from({ length: 50 }, () => backoffMs(6)));
  assert.ok(draws.size > 10, 'no jitter');
});

test('bodies are exact UTF-8, also for non-ASCII text and a document bigger than a request', async () => {
  const client = fakeClient((docs) => docs.map(() => 201));
  const big = 'ü'.repeat(600000); // worst case 1.8 MB: more than a request's buffer holds
  const list = [
    { tenant: 't-1', id: 't-1:1', version: 1, source: JSON.stringify({ n: 0, pad: 'Café crème — 東京' }) },
    { tenant: 't-1', id: 't-1:2', version: 1, source: JSON.stringify({ n: 1, pad: big }) },
    ...items(30),
  ];
  await new BulkLoader({ client, flushBytes: 2048 }).load(list);
  const got = client.calls.flatMap((c) => c.docs.map((d) => d.source.pad));
  assert.equal(got[0], 'Café crème — 東京');
  assert.equal(got[1], big);
  assert.equal(got.length, 32);
});
