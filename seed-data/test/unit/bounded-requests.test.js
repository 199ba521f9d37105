// The seeder's requests stay under Elasticsearch's 4096-byte request line at a platform's tenant
// count: before they were batched, `make up` of a 10,000-store profile stopped at its first
// refresh with too_long_http_line_exception (the tenants' aliases joined into one URL).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { Client } from '@elastic/elasticsearch';
import { aliasFor, sharedIndexName } from '@tenantlab/contract/naming';
import { MAX_INITIAL_LINE, startLineLimitEs } from '@tenantlab/test-support/line-limit-es';
import { applyInitialLoadSettings, emptyIndices, indicesOfTenants, restorePending } from '../../src/load/initial-load-settings.js';
import { countNow, GREEN_WAIT_STEP_S, waitGreen } from '../../src/cli/steps.js';

// 3,000 indices: a platform whose stores each have an index of their own, or 10,000 stores in
// shared indices of a few each
const INDICES = Array.from({ length: 3000 }, (_, i) => sharedIndexName('tl-', i % 2 ? 'g1' : 'g2', i + 1));
const TENANTS = Array.from({ length: 10000 }, (_, i) => ({ id: `store-${String(i).padStart(5, '0')}`, expected_products: 1 }));

// the names a request line's first path part lists
const listOf = (path) => path.split('/').filter(Boolean)[0].split(',');

let es;
const settingsPut = new Map();
before(async () => {
  es = await startLineLimitEs(({ method, path, body }) => {
    const parts = path.split('/').filter(Boolean);
    if (path.startsWith('/_cat/indices/')) return parts[2].split(',').map((index) => ({ index, 'docs.count': '0' }));
    if (parts[1] === '_settings' && method === 'GET') return Object.fromEntries(listOf(path).map((i) => [i, { settings: { 'index.refresh_interval': '1s', 'index.number_of_replicas': '1' } }]));
    if (parts[1] === '_settings' && method === 'PUT') { for (const i of listOf(path)) settingsPut.set(i, body); return { acknowledged: true }; }
    if (path.startsWith('/_cluster/health')) return { status: 'green' };
    if (path === '/_msearch') return { responses: body.split('\n').filter(Boolean).filter((_, k) => k % 2 === 1).map(() => ({ hits: { total: { value: 1 } } })) };
    return { _shards: { total: 1, successful: 1, failed: 0 } };
  });
});
after(() => es.close());

test('the initial load settings on 3,000 indices: every request line under 4096 bytes, every index set and put back', async () => {
  const client = new Client({ node: es.url, maxRetries: 0 });
  const dir = mkdtempSync(join(tmpdir(), 'bounded-'));
  try {
    const empty = await emptyIndices(client, INDICES);
    assert.equal(empty.length, INDICES.length);
    const s = await applyInitialLoadSettings(client, empty, join(dir, 'pending.json'));
    assert.equal(settingsPut.size, INDICES.length);
    for (const body of settingsPut.values()) assert.equal(body['index.refresh_interval'], '-1');
    settingsPut.clear();
    await s.restore();
    assert.equal(settingsPut.size, INDICES.length);
    for (const body of settingsPut.values()) assert.equal(body['index.refresh_interval'], '1s');
    assert.deepEqual(await restorePending(client, join(dir, 'pending.json')), []);
    assert.ok(es.lines.length > 10, `${es.lines.length} requests`);
    assert.ok(es.longest() <= MAX_INITIAL_LINE, `a request line of ${es.longest()} bytes`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await client.close();
  }
});

test("counting 10,000 tenants: a bounded refresh and bounded searches", async () => {
  const client = new Client({ node: es.url, maxRetries: 0 });
  es.lines.length = 0;
  const counts = await countNow(client, TENANTS);
  assert.equal(counts.size, TENANTS.length);
  assert.equal(counts.get(TENANTS[9999].id), 1);
  assert.ok(es.longest() <= MAX_INITIAL_LINE, `a request line of ${es.longest()} bytes`);
  assert.ok(es.lines.some((l) => /^(GET|POST) \/tenant-\*\/_refresh/.test(l)), es.lines.slice(0, 3).join(' | '));
  await client.close();
});

test('indicesOfTenants: the placement\'s indices of the given tenants, each once, sorted; a tenant not placed adds none', () => {
  const indexOf = new Map([['a', 'i2'], ['b', 'i1'], ['c', 'i2']]);
  assert.deepEqual(indicesOfTenants([{ id: 'a' }, { id: 'b' }, { id: 'c' }, { id: 'zz' }], indexOf), ['i1', 'i2']);
  assert.equal(aliasFor('a'), 'tenant-a');
});

test('the stand-in refuses a long line as a node does (the failure seen at 10,000 tenants)', async () => {
  const client = new Client({ node: es.url, maxRetries: 0 });
  await assert.rejects(client.indices.refresh({ index: TENANTS.map((t) => aliasFor(t.id)).join(',') }), /too_long_http_line_exception/);
  await client.close();
});

test('waitGreen waits in steps under the client\'s request timeout until green (one 120-s wait failed at 60 s)', async () => {
  let waits = 0;
  const slow = await startLineLimitEs(({ query }) => {
    if (!query.wait_for_status) return { status: 'yellow', initializing_shards: 4, unassigned_shards: 326 };
    waits += 1;
    return waits < 3 ? { status: 'yellow', timed_out: true } : { status: 'green', timed_out: false };
  });
  const client = new Client({ node: slow.url, maxRetries: 0 });
  const said = [];
  const write = process.stderr.write;
  process.stderr.write = (m) => { said.push(String(m)); return true; };
  try {
    await waitGreen(client, 120);
  } finally {
    process.stderr.write = write;
    await client.close();
    await slow.close();
  }
  assert.equal(waits, 3);
  const steps = slow.lines.map((l) => /[?&]timeout=(\d+)s/.exec(l)?.[1]).filter(Boolean).map(Number);
  assert.ok(steps.length === 3 && steps.every((t) => t <= GREEN_WAIT_STEP_S), slow.lines.join(' | '));
  assert.ok(said.some((l) => l.includes('replicas rebuilt in')), said.join(''));
});
