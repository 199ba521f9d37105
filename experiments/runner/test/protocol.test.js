// The protocol around the verdicts: refusals before a run, errors and late arrivals making a
// repetition incomplete, the first round's position check, smoke runs, where a run may be
// published, the published-runs table, and the power planner. Pure logic; no lab.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { RunError } from '../src/errors.js';
import { planExperiment } from '../src/power.js';
import { BEGIN, END, RUN_TIMES_BEGIN, RUN_TIMES_END, publishedRuns, publishedTable, runTimesTable, storedRuns, verdictCell, withTable } from '../src/published.js';
import { chartsOf } from '../src/report.js';
import { planOf } from '../src/run.js';
import { positionEffect, smokeOf } from '../src/run/finalize.js';
import { markUnfit, measureWriteRepetition } from '../src/run/measure.js';
import { publishability, referenceCpuModel } from '../src/run/record.js';
import { loadSpec, resolveSpec } from '../src/spec.js';
import { EXPERIMENTS, syntheticResults } from './fixtures/synthetic.js';

const h2 = (o = {}) => resolveSpec(loadSpec(`${EXPERIMENTS}h2-split-index.yaml`), { orderSeed: 1, ...o });

test('a verdict run below the repetitions its tests need is refused before anything starts; QUICK and the demo are smoke runs', () => {
  assert.throws(() => planOf(h2({ repeat: 3 })), (e) => e instanceof RunError
    && e.message === 'h2-split-index: 3 repetitions give no verdict: "2x4 answers faster than 1x8 (average and p95)": a one-sided Mann-Whitney test reaches 0.025 with one repetition out of order from 5 repetitions of each of its 2 variants (Holm\'s first step in a family of 2 directions: 0.05 / 2); set REPEAT=5 (or more), or QUICK=1 for a smoke run without a verdict');
  assert.throws(() => planOf(h2({ repeat: 4 })), /4 repetitions give no verdict/, 'enough alone, not in a family of 2');
  assert.equal(planOf(h2({ repeat: 5 })).smoke, false);
  assert.equal(planOf(h2({ repeat: 1, quick: true })).smoke, true);
  assert.equal(planOf(h2({ repeat: 1 }), { narrate: true }).smoke, true, 'make demo tells the story; it judges nothing');
});

test('make demo runs on the lab as it is: a spec\'s node sizes are left out and said, a topology is kept (LAB=running refuses it)', () => {
  const nn = resolveSpec(loadSpec(`${EXPERIMENTS}noisy-neighbour.yaml`), { orderSeed: 1, repeat: 1, quick: true });
  const full = { data_node: { cpu_weight: 1000 }, load_engine: { cpu_weight: 1000, cpus_of: 'g1', burst_cpus_of: 'g2' } };
  assert.deepEqual(nn.variants.map((v) => v.lab), [full, full], 'the full run sizes every data node and places the engines');
  const demo = planOf(nn, { narrate: true });
  assert.deepEqual(demo.variants.map((v) => v.lab), [null, null]);
  assert.equal(demo.lab, null);
  assert.equal(demo.lab_left_out, "the full run's node sizes (each data node: cpu_weight 1000; the load engine: cpu_weight 1000, cpus_of g1, burst_cpus_of g2) are left out: the demo runs on the lab as it is");
  // not the demo: the sizes stay, and so does a topology in the demo
  assert.deepEqual(planOf(nn).variants[0].lab, full);
  const appbase = resolveSpec(loadSpec(`${EXPERIMENTS}appbase-write-scaling.yaml`), { orderSeed: 1, repeat: 1, quick: true });
  assert.deepEqual(planOf(appbase, { narrate: true }).variants.map((v) => v.lab), appbase.variants.map((v) => v.lab));
  assert.equal(planOf(appbase, { narrate: true }).lab_left_out, undefined);
});

test('every committed spec asks for at least the repetitions its directions need', () => {
  for (const name of ['appbase-write-scaling', 'azure-refresh', 'azure-replicas', 'azure-shard-count', 'explorium-shards-replicas', 'h1-shard-count', 'h2-split-index', 'h3-index-groups', 'many-shards', 'noisy-neighbour', 'noisy-writer']) {
    assert.doesNotThrow(() => planOf(resolveSpec(loadSpec(`${EXPERIMENTS}${name}.yaml`), { orderSeed: 1 })), name);
  }
});

test('errors or late arrivals past the spec\'s limits make a repetition incomplete, with the exact counts', () => {
  const workload = { max_error_rate: 0.01, max_late_rate: 0.05 };
  const rep = (figures) => ({ complete: true, figures });
  const ok = rep({ requests: 1000, errors: 10, late_arrivals: 50 });
  markUnfit(ok, workload);
  assert.equal(ok.complete, true, 'at the limits: still complete');
  const bad = rep({ requests: 1000, errors: 11, late_arrivals: 51 });
  markUnfit(bad, workload);
  assert.equal(bad.complete, false);
  assert.equal(bad.incomplete_reason, '11 of 1000 requests failed (1.1%), above max_error_rate 1%; 51 of 1000 arrivals started late (5.1%), above max_late_rate 5%');
  assert.deepEqual(bad.unfit, ['errors', 'late_arrivals']);
  assert.equal(ok.unfit, undefined);
  const late = rep({ requests: 1000, errors: 0, late_arrivals: 60 });
  markUnfit(late, workload);
  assert.deepEqual(late.unfit, ['late_arrivals'], 'the generator fell behind, nothing failed');
  // the write workloads: documents, rejected and failed, against every document sent
  const writes = rep({ requests: 10, errors: 0, ingest: { docs_indexed: 99000, docs_rejected: 248, docs_failed: 0, docs_sent: 99248 } });
  markUnfit(writes, workload);
  assert.equal(writes.complete, true, '248 of 99,248 is 0.25%');
  const rejected = rep({ requests: 10, errors: 0, ingest: { docs_indexed: 90000, docs_rejected: 10000, docs_failed: 0, docs_sent: 100000 } });
  markUnfit(rejected, { ...workload, max_error_rate: 1 });
  assert.equal(rejected.complete, true, 'an experiment that measures rejections sets max_error_rate: 1');
  markUnfit(rejected, workload);
  assert.match(rejected.incomplete_reason, /^10000 of 100000 documents failed \(10%\)/);
});

test('a window with no request in it is no figure: unfit (empty_window), never a rate of 0', () => {
  const workload = { measure: '5s', max_error_rate: 0.01, max_late_rate: 0.05 };
  const empty = { complete: true, figures: { requests: 0, errors: 0, ingest: { docs_per_s: 0, docs_indexed: 0, docs_rejected: 0, docs_failed: 0, docs_sent: 0 } } };
  markUnfit(empty, workload);
  assert.equal(empty.complete, false);
  assert.deepEqual(empty.unfit, ['empty_window']);
  assert.equal(empty.incomplete_reason, 'no bulk started in the 5s window (the load engine measured none: the host stalled?)');
  const search = { complete: true, figures: { requests: 0, errors: 0 } };
  markUnfit(search, workload);
  assert.match(search.incomplete_reason, /^no request started in the 5s window/);
  const failed = { complete: false, figures: null, incomplete_reason: 'boom' };
  markUnfit(failed, workload);
  assert.equal(failed.unfit, undefined, 'a repetition that failed outright keeps its own reason');
});

test('a write repetition whose window measured nothing runs once more, in a clean folder; a second empty window stays unfit', async () => {
  const workload = { measure: '5s' };
  const repDir = mkdtempSync(join(tmpdir(), 'rep-'));
  const fill = (rep, requests) => () => {
    writeFileSync(join(repDir, `attempt-${requests}`), '');
    Object.assign(rep, { complete: true, figures: { requests, ingest: { docs_sent: requests * 10 } }, timeline: [{ t: 1 }], integrity: { index: 'x', count: requests * 10, acknowledged: requests * 10 } });
  };
  const logs = [];
  let checks = 0;
  const opts = { workload, repDir, log: (l) => logs.push(l), check: () => { checks++; } };
  const rep = { round: 1, started_at: 'then', complete: false, figures: null, timeline: [] };
  const attempts = [fill(rep, 0), fill(rep, 50)];
  let n = 0;
  await measureWriteRepetition(rep, () => attempts[n++](), opts);
  assert.equal(n, 2);
  assert.equal(rep.figures.requests, 50, 'the second attempt is what counts');
  assert.equal(rep.retried, 'no bulk started in the 5s window (the load engine measured none: the host stalled?)');
  assert.notEqual(rep.started_at, 'then');
  assert.equal(checks, 1, 'an interrupt between the attempts stops the run');
  assert.deepEqual(readdirSync(repDir), ['attempt-50'], "nothing of the first attempt's files left");
  markUnfit(rep, workload);
  assert.equal(rep.complete, true);
  // a window with figures runs once; twice empty: unfit, not a third attempt
  const once = { complete: false, figures: null, timeline: [] };
  let m = 0;
  await measureWriteRepetition(once, () => { m++; fill(once, 7)(); }, opts);
  assert.equal(m, 1);
  assert.equal(once.retried, undefined);
  const twice = { complete: false, figures: null, timeline: [] };
  let k = 0;
  await measureWriteRepetition(twice, () => { k++; fill(twice, 0)(); }, opts);
  assert.equal(k, 2);
  markUnfit(twice, workload);
  assert.deepEqual([twice.complete, twice.unfit], [false, ['empty_window']]);
  // a failure is recorded, not retried; an interrupt goes through
  const broken = { complete: false, figures: null, timeline: [] };
  await measureWriteRepetition(broken, () => { throw new RunError('index not green', 1); }, opts);
  assert.equal(broken.incomplete_reason, 'index not green');
  await assert.rejects(measureWriteRepetition(broken, () => { throw new RunError('interrupted', 130); }, opts), /interrupted/);
});

test('position effect: flagged only when every variant\'s first round is more than 10% off its later rounds, the same way', () => {
  const plan = { expect: [{ claim: 'a faster', metric: 'avg_ms', variants: ['a', 'b'] }] };
  const run = (firsts) => ({
    variants: Object.entries(firsts).map(([name, first]) => ({
      name,
      repetitions: [first, 100, 102, 98].map((avg, i) => ({ complete: true, measured_round: i + 1, figures: { avg_ms: avg } })),
    })),
  });
  const cold = positionEffect(run({ a: 150, b: 130 }), plan);
  assert.deepEqual([cold.flagged, cold.directions], [['avg_ms'], ['a faster']]);
  assert.equal(cold.metrics.avg_ms.a, 1.5);
  assert.deepEqual(positionEffect(run({ a: 150, b: 101 }), plan).flagged, [], 'one variant off is noise, not a warm-up');
  assert.deepEqual(positionEffect(run({ a: 150, b: 80 }), plan).flagged, [], 'opposite ways');
  assert.deepEqual(positionEffect(run({ a: 105, b: 108 }), plan).flagged, [], 'within 10%');
  // per direction: a lab that warmed during round 1 leaves its first windows off, its last warm
  // (noisy-neighbour 2026-11-27: isolated 2.96x, elsewhere 2.26x, left-alone 1.04x)
  const nn = { expect: [
    { claim: 'back within 15%', metric: 'avg_ms', variants: ['iso'] },
    { claim: 'beats left alone', metric: 'avg_ms', variants: ['iso', 'alone'] },
    { claim: 'within 15% of the control', metric: 'avg_ms', variants: ['iso', 'ctl'] },
  ] };
  const warmed = positionEffect(run({ iso: 296, ctl: 226, alone: 104 }), nn);
  assert.deepEqual([warmed.directions, warmed.flagged], [['within 15% of the control'], ['avg_ms']]);
  // a bound's one variant is judged with every variant of the run: all off alike, or not flagged
  assert.deepEqual(positionEffect(run({ iso: 296, ctl: 226, alone: 150 }), nn).directions, ['back within 15%', 'beats left alone', 'within 15% of the control']);
});

test('a smoke run passes when every variant measured every repetition, and names the ones that did not', () => {
  const { results } = syntheticResults({ quick: true, repeat: 1 });
  assert.equal(smokeOf(results).result, 'passed');
  results.variants[1].repetitions[0] = { complete: false, incomplete_reason: 'locust exited with status 107', figures: null };
  assert.deepEqual(smokeOf(results), { result: 'failed', reason: '2x4 repetition 1: locust exited with status 107' });
});

test('a smoke run draws its curves over x (the means, no fit) from the spec\'s directions; a verdict run from its verdicts', async () => {
  const { results } = syntheticResults({ experiment: 'h1-shard-count', quick: true, repeat: 1 });
  const peak = { claim: 'a peak', metric: 'avg_ms', form: 'peak', direction: 'peak', variants: ['s2', 's4', 's8', 's16'], x: [2, 4, 8, 16], x_label: 'shards' };
  results.plan.expect = [...results.plan.expect, peak];
  const smoke = (await chartsOf(results, ['avg_ms'])).find((c) => c.file === 'curve-peak-avg_ms.svg');
  assert.ok(smoke, 'a smoke run has its curve');
  assert.match(smoke.markup, /<svg/);
  assert.doesNotMatch(smoke.markup, /the best mean, x =/, 'no peak marked without a verdict');
  delete results.smoke;
  assert.equal((await chartsOf(results, ['avg_ms'])).some((c) => c.file.startsWith('curve-')), false, 'a verdict run draws curves from its verdicts (none here)');
});

test('a run is publishable from a clean tree on the committed runs\' CPU model; PUBLISH=force overrides and says so', () => {
  assert.deepEqual(publishability({ clean: true, cpuModel: 'X', reference: 'X' }), { ok: true, reasons: [], override: false });
  assert.deepEqual(publishability({ clean: true, cpuModel: 'X', reference: null }), { ok: true, reasons: [], override: false });
  const dirty = publishability({ clean: false, cpuModel: 'Y', reference: 'X' });
  assert.equal(dirty.ok, false);
  assert.deepEqual(dirty.reasons, ['measured from a tree with uncommitted changes', "measured on Y, not on the committed runs' X"]);
  assert.deepEqual(publishability({ clean: false, cpuModel: 'X', reference: 'X', override: true }), { ok: true, reasons: ['measured from a tree with uncommitted changes'], override: true });
  const root = mkdtempSync(join(tmpdir(), 'ref-'));
  for (const [n, model] of [['a', 'X'], ['b', 'X'], ['c', 'Y']]) {
    mkdirSync(join(root, n));
    writeFileSync(join(root, n, 'results.json'), JSON.stringify({ environment: { machine: { cpu_model: model } } }));
  }
  assert.equal(referenceCpuModel(root), 'X');
  assert.equal(referenceCpuModel(join(root, 'none')), null);
});

function resultsRoot() {
  const root = mkdtempSync(join(tmpdir(), 'published-'));
  const { results } = syntheticResults({ runId: '20250101t000000-abcd' });
  mkdirSync(join(root, 'h2-split-index'));
  writeFileSync(join(root, 'h2-split-index', 'results.json'), JSON.stringify(results));
  return { root, results };
}

test('the published-runs table comes from the committed results.json: every verdict, its p, what to know about the run', () => {
  const { root, results } = resultsRoot();
  const table = publishedTable(publishedRuns(root), { linkBase: 'results/' });
  const lines = table.split('\n');
  assert.equal(lines[0], '| experiment | run | data | repetitions | verdicts | measured |');
  assert.equal(lines.length, 3);
  assert.equal(lines[2], `| [h2-split-index](results/h2-split-index/report.md) | 2025-01-01 | 200,000 documents, 150 stores | 5 | ${results.verdicts.map(verdictCell).join('<br>')} | Locust 2.47.0 |`);
  assert.match(verdictCell(results.verdicts[0]), /^\*\*reproduced\*\*: 2x4 answers faster than 1x8 \(average and p95\) \(p = 0\.00794\)$/);
  // a run of 4 in a family of 2, measured before the minimum was taken at Holm's first step
  const four = syntheticResults({ repeat: 4, runId: 'four' }).results;
  assert.match(publishedTable([{ name: 'h2-split-index', results: four }], { linkBase: '' }), /\| Locust 2\.47\.0; 4 repetitions, below the 5 its family of 2 now needs: to be re-run \|$/);
  const text = `# x\n\nbefore\n${BEGIN}\nstale\n${END}\nafter\n`;
  assert.equal(withTable(text, 'T'), `# x\n\nbefore\n${BEGIN}\nT\n${END}\nafter\n`);
  assert.equal(withTable('no markers', 'T'), null);
});

test("the run-times table: each published run's wall time and CPU from its results.json, a run over the budget and a k6-era run said so", () => {
  const run = (name, extra) => ({ name, results: { started_at: '2026-11-27T16:34:41.117Z', variants: [{}, {}], plan: { repetitions: 4, rounds: 4 }, lab: { mode: 'own', starts: [{}] }, ...extra } });
  const table = runTimesTable([
    run('azure-refresh', { environment: { load_engine: { name: 'locust', version: '2.47.0' } }, runner: { cpu_percent: 0.2, generator_cpu_percent: 1, wall_seconds: 820 } }),
    run('noisy-neighbour', { environment: { load_engine: { name: 'locust' } }, runner: { cpu_percent: 0.4, generator_cpu_percent: 10.9, wall_seconds: 2170 } }),
    run('h2-split-index', { plan: { repetitions: 3 }, lab: { mode: 'own', starts: [] }, runner: { cpu_percent: 0.5, k6_cpu_percent: 9.5, wall_seconds: 1093 } }),
  ], { linkBase: '../experiments/results/' }).split('\n');
  assert.equal(lines0(table), '| run | date | variants x repetitions | lab | wall time | runner CPU | load generator CPU |');
  assert.deepEqual(table.slice(2), [
    '| [azure-refresh](../experiments/results/azure-refresh/report.md) | 2026-11-27 | 2 x 4, a cold round first | own (1 start) | 14 min | 0.2% | 1% (Locust) |',
    '| [noisy-neighbour](../experiments/results/noisy-neighbour/report.md) | 2026-11-27 | 2 x 4, a cold round first | own (1 start) | 36 min, over the 30-min budget | 0.4% | 10.9% (Locust) |',
    '| [h2-split-index](../experiments/results/h2-split-index/report.md) | 2026-11-27 | 2 x 3 | own | 18 min | 0.5% | 9.5% (k6) |',
  ]);
  const text = `a\n${RUN_TIMES_BEGIN}\nold\n${RUN_TIMES_END}\n`;
  assert.equal(withTable(text, 'T', { begin: RUN_TIMES_BEGIN, end: RUN_TIMES_END }), `a\n${RUN_TIMES_BEGIN}\nT\n${RUN_TIMES_END}\n`);
  // the published-runs markers are not the run-times ones
  assert.equal(withTable(text, 'T'), null);
});

const lines0 = (lines) => lines[0];

test('stored runs: committed and local, optionally of one experiment, with their verdicts counted', () => {
  const { root } = resultsRoot();
  const local = mkdtempSync(join(tmpdir(), 'local-'));
  const { results } = syntheticResults({ runId: 'r2', quick: true, repeat: 1 });
  mkdirSync(join(local, 'h2-split-index', 'r2'), { recursive: true });
  writeFileSync(join(local, 'h2-split-index', 'r2', 'results.json'), JSON.stringify(results));
  const runs = storedRuns({ committedRoot: root, localRoot: local });
  assert.deepEqual(runs.map((r) => [r.where, r.run_id, r.quick, r.verdicts]), [['committed', '20250101t000000-abcd', false, 'reproduced 2'], ['local', 'r2', true, 'smoke passed']]);
  assert.equal(storedRuns({ committedRoot: root, localRoot: local, name: 'h1-shard-count' }).length, 0);
});

test('the planner: from a committed run\'s spread, the repetitions that reach 80% power within the budget', () => {
  const { results } = syntheticResults({ runId: 'committed' });
  const plan = h2();
  const out = planExperiment(plan, results);
  // 40 against 25 ms with 4% noise: the declared minimum already has all the power it needs
  assert.equal(out.repetitions, 5);
  assert.ok(out.power.every((p) => p >= 0.8), JSON.stringify(out.power));
  assert.match(out.lines[0], /^h2-split-index: 2 directions, one Holm family at 0\.05; at least 5 repetitions/);
  assert.ok(out.lines.some((l) => /effect from the article's figures/.test(l)), 'h2 has the article\'s figures for every variant');
  assert.match(out.lines.at(-1), /^ {2}plan: 5 repetitions, windows of 40 s \(x1 the spec's\)/);
  // a spread too wide for the budget: the best there is, and what it misses
  const noisy = syntheticResults({ runId: 'noisy', spread: 1.2, means: { '1x8': 40, '2x4': 38, '1x16': 50, '2x8': 48 } }).results;
  for (const v of plan.variants) delete v.published;
  const hard = planExperiment(plan, noisy, { budgetS: 25 * 60 });
  assert.ok(hard.power === null || hard.power.some((p) => p < 0.8));
  assert.match(hard.lines.at(-1), /below 0\.8|past the budget/);
  // no committed run and no article figure: nothing to plan from, said so
  const nn = resolveSpec(loadSpec(`${EXPERIMENTS}noisy-neighbour.yaml`), { orderSeed: 1 });
  assert.match(planExperiment(nn, null).lines.at(-1), /nothing to plan from/);
});

const REPO = new URL('../../../', import.meta.url).pathname;

test('README.md and experiments/README.md carry the table of the committed results, docs/benchmarks.md their run times, as make render writes them', () => {
  const runs = publishedRuns(join(REPO, 'experiments/results'));
  for (const [file, linkBase] of [['README.md', 'experiments/results/'], ['experiments/README.md', 'results/']]) {
    const text = readFileSync(join(REPO, file), 'utf8');
    assert.equal(withTable(text, publishedTable(runs, { linkBase })), text, `${file} is stale: make render`);
  }
  const bench = readFileSync(join(REPO, 'docs/benchmarks.md'), 'utf8');
  assert.equal(withTable(bench, runTimesTable(runs, { linkBase: '../experiments/results/' }), { begin: RUN_TIMES_BEGIN, end: RUN_TIMES_END }), bench, 'docs/benchmarks.md is stale: make render');
});

test('bin/published-runs --check fails naming a hand-edited table; without --check it repairs it', () => {
  // a copy of what the generator reads, with the workspace's packages
  const root = mkdtempSync(join(tmpdir(), 'render-'));
  mkdirSync(join(root, 'experiments/runner'), { recursive: true });
  cpSync(join(REPO, 'README.md'), join(root, 'README.md'));
  cpSync(join(REPO, 'experiments/README.md'), join(root, 'experiments/README.md'));
  cpSync(join(REPO, 'docs/benchmarks.md'), join(root, 'docs/benchmarks.md'));
  cpSync(join(REPO, 'experiments/results'), join(root, 'experiments/results'), { recursive: true });
  for (const d of ['bin', 'src', 'package.json']) cpSync(join(REPO, 'experiments/runner', d), join(root, 'experiments/runner', d), { recursive: true });
  symlinkSync(join(REPO, 'node_modules'), join(root, 'node_modules'));
  const bin = join(root, 'experiments/runner/bin/published-runs');
  const gen = (...args) => spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8' });
  assert.equal(gen('--check').status, 0, 'fresh');
  const readme = join(root, 'README.md');
  writeFileSync(readme, readFileSync(readme, 'utf8').replace('**reproduced**', '**reproduced by hand**'));
  const stale = gen('--check');
  assert.equal(stale.status, 1);
  assert.match(stale.stderr, /^stale: README\.md \(differs from what experiments\/results\/\*\/results\.json renders\)$/m);
  // a run time typed into docs/benchmarks.md by hand is found too
  const bench = join(root, 'docs/benchmarks.md');
  writeFileSync(bench, readFileSync(bench, 'utf8').replace(/\| [0-9]+ min/, '| 999 min'));
  assert.match(gen('--check').stderr, /^stale: docs\/benchmarks\.md /m);
  assert.equal(gen().status, 0);
  assert.equal(gen('--check').status, 0, 'repaired');
  writeFileSync(readme, '# no markers\n');
  const none = gen('--check');
  assert.equal(none.status, 2);
  assert.equal(none.stderr, 'error: README.md has no published-runs markers; put the two lines of experiments/runner/src/published.js (BEGIN, END) where the table goes\n');
});
