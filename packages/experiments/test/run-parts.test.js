// The runner's pure parts: store assignment, names, k6 summary -> figures, ES stats windows,
// the lab-fit rule. (The runner against a real lab: tests/live/80-experiments.bats.)
import test from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { indexOfTenant, layoutNames } from '../src/run/layout.js';
import { figuresOf, timelineOf } from '../src/run/workload.js';
import { windowFigures } from '../src/run/es-stats.js';
import { BYTES_PER_DOC_ON_DISK, diskVerdict, requireVariantsFit } from '../src/run/lab-check.js';
import { newRunId } from '../src/run.js';

const tenants = [0, 1, 2, 3, 4].map((index) => ({ index, id: `exp-000${index + 1}`, traffic_weight: 1, expected_products: 10 }));

test('stores go to indices: all, odd/even store numbers, round-robin', () => {
  assert.deepEqual(tenants.map((t) => indexOfTenant({ assign: 'all', indices: 1 }, t)), [0, 0, 0, 0, 0]);
  // store numbers 1..5: odd ones (1, 3, 5) in the first index, even ones in the second
  assert.deepEqual(tenants.map((t) => indexOfTenant({ assign: 'odd-even', indices: 2 }, t)), [0, 1, 0, 1, 0]);
  assert.deepEqual(tenants.map((t) => indexOfTenant({ assign: 'round-robin', indices: 3 }, t)), [0, 1, 2, 0, 1]);
});

test('a variant\'s names: its indices and one alias per tenant, all under the run\'s prefix', () => {
  const n = layoutNames('r1', { name: '2x4', indices: 2, assign: 'odd-even' }, tenants);
  assert.deepEqual(n.indices, ['exp-r1-2x4-1', 'exp-r1-2x4-2']);
  assert.equal(n.tenants[1].alias, 'exp-r1-2x4-t-exp-0002');
  assert.equal(n.tenants[1].index, 'exp-r1-2x4-2');
  assert.ok(n.tenants.every((t) => t.alias.startsWith('exp-r1-')));
});

test('run ids sort by time and are valid index-name parts', () => {
  const id = newRunId(new Date(Date.UTC(2026, 10, 23, 14, 5, 9)));
  assert.match(id, /^20261123t140509-[0-9a-f]{4}$/);
});

test('k6 summary -> the measured window\'s figures', () => {
  const summary = { metrics: {
    'http_req_duration{scenario:measure}': { values: { avg: 12.345, 'p(50)': 10, 'p(95)': 30.1, 'p(99)': 50, max: 80, count: 100 } },
    'http_reqs{scenario:measure}': { values: { count: 100 } },
    'http_req_failed{scenario:measure}': { values: { rate: 0.02, passes: 2, fails: 98 } },
    'dropped_iterations{scenario:measure}': { values: { count: 3 } },
    'http_req_duration{scenario:measure,query_type:search}': { values: { avg: 20, 'p(95)': 40, count: 60 } },
  } };
  const f = figuresOf(summary, 10);
  assert.equal(f.requests, 100);
  assert.equal(f.throughput_rps, 10);
  assert.equal(f.errors, 2);
  assert.equal(f.error_rate, 0.02);
  assert.equal(f.avg_ms, 12.35);
  assert.equal(f.p95_ms, 30.1);
  assert.equal(f.dropped_iterations, 3);
  assert.deepEqual(f.by_type, { search: { requests: 60, avg_ms: 20, p95_ms: 40 } });
});

test('k6 JSON output (points out of time order) -> per-second timeline of the measured window only', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'exp-'));
  const point = (ms, value, scenario) => JSON.stringify({ type: 'Point', metric: 'http_req_duration', data: { time: new Date(ms).toISOString(), value, tags: { scenario } } });
  const t = Date.UTC(2026, 0, 1);
  writeFileSync(join(dir, 's.json'), [point(t - 5000, 999, 'warmup'), point(t + 500, 20, 'measure'), point(t, 10, 'measure'), point(t + 1200, 30, 'measure')].join('\n'));
  assert.deepEqual(await timelineOf(join(dir, 's.json')), [
    { t_s: 0, rps: 2, avg_ms: 15, p95_ms: 20 },
    { t_s: 1, rps: 1, avg_ms: 30, p95_ms: 30 },
  ]);
});


test('ES stats window: per-query times, rejections, GC, CPU per node', () => {
  const node = (q, qms, f, fms, rej, gc, cpu) => ({ query: q, queryMs: qms, fetch: f, fetchMs: fms, rejected: rej, gcMs: gc, cpuMs: cpu });
  const before = { at: 0, nodes: { a: node(0, 0, 0, 0, 0, 0, 0), b: node(10, 10, 5, 5, 1, 100, 1000) } };
  const after = { at: 10000, nodes: { a: node(100, 200, 50, 25, 0, 50, 5000), b: node(110, 210, 55, 30, 3, 100, 6000) } };
  const w = windowFigures(before, after, 4);
  assert.equal(w.query_ms_per_query, 2);
  assert.equal(w.fetch_ms_per_fetch, 0.5);
  assert.equal(w.search_rejected, 2);
  assert.equal(w.gc_ms, 50);
  assert.equal(w.search_queue_max, 4);
  assert.deepEqual(w.cpu_percent_by_node, { a: 50, b: 50 });
});

test('a variant the lab cannot hold is refused with one line', () => {
  const groups = { all: 4, g1: 2, g2: 2 };
  assert.doesNotThrow(() => requireVariantsFit([{ name: 'a', group: 'g1', replicas: 1 }, { name: 'b', group: 'all', replicas: 3 }], groups));
  assert.throws(() => requireVariantsFit([{ name: 'x', group: 'g1', replicas: 2 }], groups), /^RunError: variant x: 2 replica\(s\) need 3 data nodes in group g1; the lab has 2$/);
  assert.throws(() => requireVariantsFit([{ name: 'y', group: 'g9', replicas: 0 }], groups), /variant y: no index group 'g9' in this lab \(it has g1, g2; or 'all'\)/);
});

test('too little disk for the dataset is refused with one line; enough passes', () => {
  const variants = [{ replicas: 1 }, { replicas: 0 }]; // 3 copies
  const need = 1000 * BYTES_PER_DOC_ON_DISK * 3 * 1.2;
  assert.deepEqual(diskVerdict({ documents: 1000, variants, freeBytes: [need * 2, need] }), { need_bytes: Math.round(need), free_bytes: need });
  assert.throws(() => diskVerdict({ documents: 1000, variants, freeBytes: [need * 10, need - 1] }),
    /^RunError: too little disk: the dataset needs about 0\.0 GB \(1000 documents x 3 shard copies over the variants\), the data nodes have 0\.0 GB free; use QUICK=1/);
  assert.throws(() => diskVerdict({ documents: 1, variants, freeBytes: [] }), /too little disk/);
});
