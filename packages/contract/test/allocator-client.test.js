// The client against a real HTTP server answering as the allocator does (status + JSON body).
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { after, before, test } from 'node:test';
import { AllocatorClient, AllocatorClientError, allocatorUrl } from '../src/allocator-client.js';

let server;
let client;
const seen = [];
let jobPolls = 0;
const routes = {
  'GET /readyz': () => [503, { status: 'not_ready', reason: 'cluster red' }],
  'GET /tenants': () => [200, { tenants: [{ id: 'a' }] }],
  'POST /tenants': (b) => (b.id === 'new' ? [201, { id: 'new' }] : b.id === 'same' ? [200, { id: 'same' }] : [409, { error: 'tenant_conflict', message: 'differs' }]),
  'DELETE /tenants/a': () => [200, { deleted: 'a', documents_deleted: 3 }],
  'DELETE /tenants/none': () => [404, { error: 'tenant_not_found', message: 'no tenant none' }],
  'GET /jobs/j1': () => [200, { id: 'j1', state: ++jobPolls < 3 ? 'running' : 'succeeded' }],
  'GET /text': () => [500, 'plain failure'],
};

before(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      seen.push({ method: req.method, url: req.url, type: req.headers['content-type'], body });
      const route = routes[`${req.method} ${req.url}`];
      const [status, out] = route ? route(body ? JSON.parse(body) : undefined) : [404, { error: 'not_found', message: 'no route' }];
      res.writeHead(status, { 'content-type': typeof out === 'string' ? 'text/plain' : 'application/json' });
      res.end(typeof out === 'string' ? out : JSON.stringify(out));
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  client = new AllocatorClient(`http://127.0.0.1:${server.address().port}/`);
});
after(() => server.close());

test('the URL comes from ALLOCATOR_URL, else LAB_BIND and ALLOCATOR_PORT', () => {
  assert.equal(allocatorUrl({ ALLOCATOR_URL: 'http://x:1' }), 'http://x:1');
  assert.equal(allocatorUrl({ LAB_BIND: '127.0.0.1', ALLOCATOR_PORT: '8181' }), 'http://127.0.0.1:8181');
  assert.equal(allocatorUrl({ LAB_BIND: '0.0.0.0' }), 'http://127.0.0.1:8080');
});

test('answers and refusals', async () => {
  assert.deepEqual(await client.listTenants(), [{ id: 'a' }]);
  assert.deepEqual(await client.createTenant({ id: 'new' }), { created: true, tenant: { id: 'new' } });
  assert.deepEqual(await client.createTenant({ id: 'same' }), { created: false, tenant: { id: 'same' } });
  assert.equal(seen.at(-1).type, 'application/json');
  await assert.rejects(client.createTenant({ id: 'other' }), (err) => err instanceof AllocatorClientError && err.kind === 'refused' && err.status === 409 && err.code === 'tenant_conflict' && err.message === 'POST /tenants other: 409 tenant_conflict: differs');
  assert.deepEqual(await client.deleteTenant('a'), { deleted: 'a', documents_deleted: 3 });
  assert.equal(await client.deleteTenant('none'), null);
  await assert.rejects(client.call('GET', '/text'), { kind: 'refused', message: 'GET /text: 500: plain failure' });
  assert.deepEqual((await client.request('GET', '/text')).body, 'plain failure');
  await assert.rejects(client.requireReady(), { kind: 'unavailable', message: `allocator at ${client.url} is not ready: cluster red` });
  assert.equal(await client.isReady(), false);
});

test('a job is polled until it is over', async () => {
  const states = [];
  const job = await client.waitJob('j1', { intervalMs: 10, onPoll: (j) => states.push(j.state) });
  assert.equal(job.state, 'succeeded');
  assert.deepEqual(states, ['running', 'running']);
});

test('nothing answering is one line that says so', async () => {
  const closed = createServer();
  await new Promise((r) => closed.listen(0, '127.0.0.1', r));
  const { port } = closed.address();
  await new Promise((r) => closed.close(r));
  const dead = new AllocatorClient(`http://127.0.0.1:${port}`);
  await assert.rejects(dead.listTenants(), { kind: 'unreachable', message: `allocator not reachable at http://127.0.0.1:${port} (connection refused): is the lab up? (make up)` });
  assert.equal(await dead.isReady(), false);
  await assert.rejects(dead.waitUntil({ timeoutMs: 100, intervalMs: 20 }), { kind: 'unreachable' });
});
