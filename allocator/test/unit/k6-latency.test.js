import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { k6P95ByGroup, parseK6P95 } from '../../src/observe/k6-latency.js';

test('parseK6P95: seconds per index group -> milliseconds, nothing else', () => {
  const body = { status: 'success', data: { resultType: 'vector', result: [
    { metric: { index_group: 'g1' }, value: [1764000000, '0.08234'] },
    { metric: { index_group: 'g2' }, value: [1764000000, '0.0125'] },
    { metric: {}, value: [1764000000, '1'] },
    { metric: { index_group: 'g3' }, value: [1764000000, 'NaN'] },
  ] } };
  assert.deepEqual([...parseK6P95(body)], [['g1', 82.3], ['g2', 12.5]]);
  assert.equal(parseK6P95({}).size, 0);
});

test('k6P95ByGroup: no URL, or a Prometheus that does not answer, is no figure (not an error)', async () => {
  assert.equal((await k6P95ByGroup('')).size, 0);
  // a loopback port nobody listens on
  const port = await new Promise((resolve) => { const s = createServer().listen(0, '127.0.0.1', () => { const p = s.address().port; s.close(() => resolve(p)); }); });
  assert.equal((await k6P95ByGroup(`http://127.0.0.1:${port}`, { timeoutMs: 500 })).size, 0);
});
