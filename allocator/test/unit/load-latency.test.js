import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { loadP95ByGroup, loadP95Query, loadRangeS, parseLoadP95 } from '../../src/observe/load-latency.js';

test('parseLoadP95: seconds per index group -> milliseconds, nothing else', () => {
  const body = { status: 'success', data: { resultType: 'vector', result: [
    { metric: { index_group: 'g1' }, value: [1764000000, '0.08234'] },
    { metric: { index_group: 'g2' }, value: [1764000000, '0.0125'] },
    { metric: {}, value: [1764000000, '1'] },
    { metric: { index_group: 'none' }, value: [1764000000, '0.5'] },
    // no request to g3 in the window; g4's p95 past the last bucket
    { metric: { index_group: 'g3' }, value: [1764000000, 'NaN'] },
    { metric: { index_group: 'g4' }, value: [1764000000, '+Inf'] },
  ] } };
  assert.deepEqual([...parseLoadP95(body)], [['g1', 82.3], ['g2', 12.5]]);
  assert.equal(parseLoadP95({}).size, 0);
});

test('loadP95Query: the histogram per group over the observation window (at least 15 s), the noisy side and the writers left out', () => {
  const LOAD_P95_QUERY = loadP95Query(30);
  assert.deepEqual([loadRangeS(15), loadRangeS(10), loadRangeS(60)], [15, 15, 60]);
  assert.match(loadP95Query(15), /\[15s\]\)\)\)$/);
  assert.match(LOAD_P95_QUERY, /^histogram_quantile\(0\.95, sum by \(index_group, le\) \(rate\(tenantlab_load_request_duration_seconds_bucket\{/);
  assert.match(LOAD_P95_QUERY, /index_group!="none"/);
  assert.match(LOAD_P95_QUERY, /scenario!~"bot\|burst\|writes\|resubmit"/);
  assert.match(LOAD_P95_QUERY, /\[30s\]\)\)\)$/);
});

test('loadP95ByGroup: asks Prometheus the query, answers in ms', async () => {
  let asked = null;
  const server = createServer((req, res) => {
    asked = new URL(req.url, 'http://x');
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ status: 'success', data: { resultType: 'vector', result: [{ metric: { index_group: 'g1' }, value: [1, '0.2'] }] } }));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const got = await loadP95ByGroup(`http://127.0.0.1:${server.address().port}/`);
    assert.equal(asked.pathname, '/api/v1/query');
    assert.equal(asked.searchParams.get('query'), loadP95Query(30));
    assert.deepEqual([...got], [['g1', 200]]);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});

test('loadP95ByGroup: no URL, or a Prometheus that does not answer, is no figure (not an error)', async () => {
  assert.equal((await loadP95ByGroup('')).size, 0);
  // a loopback port nobody listens on
  const port = await new Promise((resolve) => { const s = createServer().listen(0, '127.0.0.1', () => { const p = s.address().port; s.close(() => resolve(p)); }); });
  assert.equal((await loadP95ByGroup(`http://127.0.0.1:${port}`, { timeoutMs: 500 })).size, 0);
});
