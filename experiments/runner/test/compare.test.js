import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compareRuns, formatCompare, renderCompare, textTable } from '../src/compare.js';
import { UsageError } from '../src/errors.js';
import { syntheticResults } from './fixtures/synthetic.js';

const baseline = () => syntheticResults({ runId: 'base', seed: 1 }).results;
const contender = () => syntheticResults({ runId: 'next', seed: 2, means: { '1x8': 44, '2x4': 22, '1x16': 55, '2x8': 33 } }).results;

test('rows like esrally compare, with what a mean hides: spread, the ratio and its interval, Mann-Whitney', () => {
  const a = baseline();
  const b = contender();
  const c = compareRuns(a, b);
  assert.equal(c.experiment, 'h2-split-index');
  assert.deepEqual([c.baseline.run_id, c.contender.run_id], ['base', 'next']);
  const row = c.rows.find((r) => r.metric === 'avg_ms' && r.variant === '2x4');
  const values = (r, v) => r.variants.find((x) => x.name === v).repetitions.map((rep) => rep.figures.avg_ms);
  const mean = (xs) => xs.reduce((s, x) => s + x, 0) / xs.length;
  assert.equal(row.baseline.mean, mean(values(a, '2x4')));
  assert.equal(row.contender.mean, mean(values(b, '2x4')));
  assert.equal(row.baseline.n, 5);
  assert.ok(row.baseline.stdev > 0);
  assert.equal(row.diff, row.contender.mean - row.baseline.mean);
  assert.equal(row.unit, 'ms');
  assert.ok(Math.abs(row.diff_pct - (row.diff / row.baseline.mean) * 100) < 1e-9);
  assert.ok(row.diff < 0, 'the contender is faster for 2x4');
  assert.ok(Math.abs(row.ratio - row.contender.mean / row.baseline.mean) < 1e-12);
  assert.ok(row.ratio_low < row.ratio && row.ratio < row.ratio_high);
  // 22 against 25 with 4% noise, 5 against 5: every contender repetition below every baseline one
  assert.equal(row.p_value, 2 / 252);
  assert.deepEqual([...new Set(c.rows.map((r) => r.variant))], ['1x8', '2x4', '1x16', '2x8']);
  assert.ok(c.rows.some((r) => r.metric === 'throughput_rps' && r.unit === 'req/s'));
  assert.ok(c.rows.some((r) => r.metric === 'query_ms_per_query'), 'Elasticsearch figures too');
  assert.equal(c.verdicts.length, 2);
  assert.deepEqual(c.verdicts[0], { claim: '2x4 answers faster than 1x8 (average and p95)', baseline: 'reproduced', contender: 'reproduced', baseline_p: 1 / 252, contender_p: 1 / 252 });
  assert.deepEqual(c.environment, [], 'the same machine, commit, lab.env, engine, JVM, data and workload');
});

test('every difference of environment is a line: machine, commit, engine, JVM, data, QUICK', () => {
  const a = baseline();
  const b = contender();
  b.environment.machine.cpu_model = 'Another CPU @ 3.0GHz';
  b.environment.git_commit = 'abc1234-dirty';
  b.environment.load_engine.version = '2.48.0';
  b.environment.jvm.nodes[0].flags = ['-Xms1g', '-Xmx1g', '-XX:+UseG1GC'];
  const c = compareRuns(a, b);
  assert.deepEqual(c.environment.map((d) => d.what), ['CPU model', 'git commit', 'load engine', 'JVM']);
  const text = formatCompare(c);
  assert.match(text, /^environment differs: CPU model: Synthetic CPU @ 2\.0GHz -> Another CPU @ 3\.0GHz$/m);
  assert.match(text, /^environment differs: git commit: 8df2166 -> abc1234-dirty$/m);
});

test('FORMAT: json is the comparison itself, csv one row per metric and variant, md a heading and tables; anything else one line', () => {
  const c = compareRuns(baseline(), contender());
  assert.deepEqual(JSON.parse(renderCompare(c, 'json')), JSON.parse(JSON.stringify(c)));
  const csv = renderCompare(c, 'csv').trim().split('\n');
  assert.equal(csv[0], 'metric,variant,unit,baseline_mean,baseline_stdev,baseline_n,contender_mean,contender_stdev,contender_n,diff,diff_pct,ratio,ratio_low,ratio_high,ratio_unbounded,p_value');
  assert.equal(csv.length, c.rows.length + 1);
  assert.ok(csv.slice(1).every((l) => l.split(',').length === 16), 'no cell broke a row');
  const md = renderCompare(c, 'md');
  assert.match(md, /^## h2-split-index: baseline base, contender next$/m);
  assert.match(md, /^\| Metric \| Variant \| Baseline \| Contender \|/m);
  assert.throws(() => renderCompare(c, 'xml'), (e) => e instanceof UsageError && e.message === 'FORMAT=xml: want one of text, json, csv, md');
});

test('a variant only one run has: the other side is null, no diff', () => {
  const a = baseline();
  const b = contender();
  b.variants = b.variants.filter((v) => v.name !== '2x8');
  const row = compareRuns(a, b).rows.find((r) => r.metric === 'avg_ms' && r.variant === '2x8');
  assert.deepEqual(row.contender, { mean: null, stdev: null, n: 0 });
  assert.equal(row.ratio, null);
  assert.equal(row.p_value, null);
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
  assert.equal(lines[1], 'environment: the same machine, commit, lab.env, engine, JVM, data and workload');
  assert.match(lines[3], /^\| Metric +\| Variant \| +Baseline \| +Contender \| +Diff \| Unit +\| +Diff % \| +Ratio \[95% CI\] \| +p \(MW\) \|$/);
  assert.match(text, /\| avg_ms +\| 2x4 +\| +[\d.]+ ± [\d.]+ \(n=5\) \| +[\d.]+ ± [\d.]+ \(n=5\) \| +-[\d.]+ \| ms +\| +-[\d.]+% \| +0\.[\d]+ \[0\.[\d]+, 0\.[\d]+\] \| +0\.00794 \|/);
  assert.match(text, /\| Claim +\| Baseline +\| Contender +\|/);
  assert.match(text, /\| 2x4 answers faster than 1x8 \(average and p95\) +\| reproduced \(p = 0\.00397\) \| reproduced \(p = 0\.00397\) \|/);
  const tableLines = lines.slice(3, lines.indexOf('', 4));
  assert.ok(tableLines.every((l) => l.length === tableLines[0].length), 'columns aligned');
  assert.match(formatCompare(compareRuns(baseline(), contender()).rows), /^\| Metric/, 'rows alone');
});

test('textTable pads and right-aligns', () => {
  assert.equal(textTable(['a', 'n'], [['x', '1'], ['yy', '10']], { right: [1] }), '| a  |  n |\n|----|----|\n| x  |  1 |\n| yy | 10 |');
});
