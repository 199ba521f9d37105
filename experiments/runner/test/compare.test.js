import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compareRuns, formatCompare, textTable } from '../src/compare.js';
import { UsageError } from '../src/errors.js';
import { syntheticResults } from './fixtures/synthetic.js';

const baseline = () => syntheticResults({ runId: 'base', seed: 1 }).results;
const contender = () => syntheticResults({ runId: 'next', seed: 2, means: { '1x8': 44, '2x4': 22, '1x16': 55, '2x8': 33 } }).results;

test('rows like esrally compare: metric, variant, baseline, contender, diff, unit, diff %', () => {
  const a = baseline();
  const b = contender();
  const c = compareRuns(a, b);
  assert.equal(c.experiment, 'h2-split-index');
  assert.deepEqual([c.baseline.run_id, c.contender.run_id], ['base', 'next']);
  const row = c.rows.find((r) => r.metric === 'avg_ms' && r.variant === '2x4');
  const mean = (r, v) => r.variants.find((x) => x.name === v).summary.avg_ms.mean;
  assert.equal(row.baseline, mean(a, '2x4'));
  assert.equal(row.contender, mean(b, '2x4'));
  assert.equal(row.diff, row.contender - row.baseline);
  assert.equal(row.unit, 'ms');
  assert.ok(Math.abs(row.diff_pct - (row.diff / row.baseline) * 100) < 1e-9);
  assert.ok(row.diff < 0, 'the contender is faster for 2x4');
  assert.deepEqual([...new Set(c.rows.map((r) => r.variant))], ['1x8', '2x4', '1x16', '2x8']);
  assert.ok(c.rows.some((r) => r.metric === 'throughput_rps' && r.unit === 'req/s'));
  assert.ok(c.rows.some((r) => r.metric === 'query_ms_per_query'), 'Elasticsearch figures too');
  assert.equal(c.verdicts.length, 4);
  assert.deepEqual(c.verdicts[0], { claim: '2x4 answers faster than 1x8 (average)', baseline: 'reproduced', contender: 'reproduced', baseline_p: 0.05, contender_p: 0.05 });
});

test('a variant only one run has: the other side is null, no diff', () => {
  const a = baseline();
  const b = contender();
  b.variants = b.variants.filter((v) => v.name !== '2x8');
  const row = compareRuns(a, b).rows.find((r) => r.metric === 'avg_ms' && r.variant === '2x8');
  assert.equal(row.contender, null);
  assert.equal(row.diff, null);
  assert.equal(row.diff_pct, null);
});

test('runs of different experiments cannot be compared: one line', () => {
  const h1 = syntheticResults({ experiment: 'h1-shard-count', runId: 'h1run' }).results;
  assert.throws(() => compareRuns(baseline(), h1), (e) => e instanceof UsageError
    && e.message === 'cannot compare runs of different experiments: h2-split-index (base) and h1-shard-count (h1run)');
});

test('formatCompare: the text table and the verdicts side by side', () => {
  const text = formatCompare(compareRuns(baseline(), contender()));
  const lines = text.split('\n');
  assert.equal(lines[0], 'h2-split-index: baseline base, contender next');
  assert.match(lines[2], /^\| Metric +\| Variant \| Baseline \| Contender \| +Diff \| Unit +\| +Diff % \|$/);
  assert.match(text, /\| avg_ms +\| 2x4 +\| +[\d.]+ \| +[\d.]+ \| +-[\d.]+ \| ms +\| +-[\d.]+% \|/);
  assert.match(text, /\| Claim +\| Baseline +\| Contender +\|/);
  assert.match(text, /\| 2x4 answers faster than 1x8 \(p95\) +\| reproduced \(p = 0\.05\) \| reproduced \(p = 0\.05\) \|/);
  const widths = lines.filter((l) => l.startsWith('|') && l.includes('Variant')).map((l) => l.length);
  const tableLines = lines.slice(2, lines.indexOf('', 3));
  assert.ok(tableLines.every((l) => l.length === widths[0]), 'columns aligned');
  assert.match(formatCompare(compareRuns(baseline(), contender()).rows), /^\| Metric/, 'rows alone');
});

test('textTable pads and right-aligns', () => {
  assert.equal(textTable(['a', 'n'], [['x', '1'], ['yy', '10']], { right: [1] }), '| a  |  n |\n|----|----|\n| x  |  1 |\n| yy | 10 |');
});
