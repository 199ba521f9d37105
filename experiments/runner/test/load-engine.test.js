// Which load generator measured a run: the Locust engine's results record it (environment.
// load_engine, runner.generator_cpu_percent, late_arrivals); the committed results measured with
// k6 before it (environment.versions.k6, runner.k6_cpu_percent, dropped_iterations) still
// validate, render and compare, and their reports say they were measured with k6.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { compareRuns, formatCompare } from '../src/compare.js';
import { engineLine, renderMarkdown, reportBlocks } from '../src/report.js';
import { generatorCpuOf, loadEngineOf, validateResults } from '../src/results.js';
import { syntheticResults } from './fixtures/synthetic.js';

const COMMITTED = new URL('../../../experiments/results/', import.meta.url).pathname;
const committed = () => readdirSync(COMMITTED)
  .filter((name) => existsSync(join(COMMITTED, name, 'results.json')))
  .map((name) => ({ name, results: JSON.parse(readFileSync(join(COMMITTED, name, 'results.json'), 'utf8')) }));
const markdownOf = (results) => renderMarkdown(reportBlocks(results, []));

test('a run of the Locust engine: load_engine and generator_cpu_percent; the report names the engine', () => {
  const { results } = syntheticResults();
  assert.deepEqual(loadEngineOf(results), { name: 'locust', version: '2.47.0', label: 'Locust', k6Era: false });
  assert.equal(generatorCpuOf(results.runner), 18.5);
  const md = markdownOf(results);
  assert.match(md, /^- versions: elasticsearch 9\.1\.0, node v20\.20\.2, tenantlab 0\.1\.0$/m);
  assert.match(md, /^- load engine: Locust 2\.47\.0$/m);
  assert.match(md, /^- runner: 2\.1% CPU while measuring \(Locust 18\.5%\), wall time 18 min$/m);
  assert.ok(!/measured with k6/.test(md));
  // the raw table shows late arrivals, and no k6 column
  assert.match(md, /\| round \| variant \| started \| complete \| requests \| throughput \(req\/s\) \|.* \| max \(ms\) \| late arrivals \|$/m);
  assert.ok(!md.includes('dropped iterations'));
});

test('the schema wants the engine: load_engine, or versions.k6 in a run measured with k6; and the generator\'s CPU', () => {
  const { results } = syntheticResults();
  const none = structuredClone(results);
  delete none.environment.load_engine;
  assert.ok(validateResults(none).includes('environment: must match a schema in anyOf (got an object)'), validateResults(none).join('\n'));
  const k6Era = structuredClone(none);
  k6Era.environment.versions.k6 = 'k6 v1.8.1 (go1.26.8, linux/amd64)';
  k6Era.runner = { cpu_percent: 1, k6_cpu_percent: 9.5, wall_seconds: 10 };
  assert.deepEqual(validateResults(k6Era), []);
  const other = structuredClone(results);
  other.environment.load_engine = { name: 'gatling', version: '3' };
  assert.ok(validateResults(other).includes('environment.load_engine.name: must be one of locust (got "gatling")'));
  const noCpu = structuredClone(results);
  delete noCpu.runner.generator_cpu_percent;
  assert.ok(validateResults(noCpu).includes('runner.generator_cpu_percent: missing'), validateResults(noCpu).join('\n'));
  assert.deepEqual(validateResults({ ...results, runner: { ...results.runner, generator_cpu_percent: null } }), [], 'null when not measured');
});

test('every committed result still validates, and its report names the engine that measured it (k6 before the Locust engine)', () => {
  const runs = committed();
  assert.ok(runs.length >= 10, `the committed results (${runs.length})`);
  for (const { name, results } of runs) {
    assert.deepEqual(validateResults(results), [], name);
    const engine = loadEngineOf(results);
    if (engine.name === 'locust') {
      // re-measured with the Locust engine: its report says so, with its version
      assert.equal(engine.k6Era, false, name);
      const md = markdownOf(results);
      assert.ok(md.includes(`- ${engineLine(results)}\n`), name);
      assert.match(md, /^- load engine: locust 2\.[0-9.]+/im, name);
      continue;
    }
    assert.equal(engine.name, 'k6', name);
    assert.equal(engine.k6Era, true, name);
    assert.equal(generatorCpuOf(results.runner), results.runner.k6_cpu_percent, name);
    const md = markdownOf(results);
    assert.ok(md.includes(`- ${engineLine(results)}\n`), name);
    assert.match(md, /^- load engine: k6 v1\.8\.1 \(go1\.26\.8, linux\/amd64\): measured with k6 \(before the Locust engine\)$/m, name);
    assert.match(md, new RegExp(`^- runner: [\\d.]+% CPU while measuring \\(k6 ${String(results.runner.k6_cpu_percent).replace('.', '\\.')}%\\), wall time `, 'm'), name);
    assert.match(md, /^- versions: elasticsearch 9\.5\.3, node v20\.20\.2, tenantlab 0\.1\.0$/m, name);
    // their figures render as they did: the search workloads' dropped iterations column
    const dropped = results.variants.some((v) => v.repetitions.some((r) => typeof r.figures?.dropped_iterations === 'number'));
    assert.equal(md.includes('| dropped iterations |'), dropped, name);
    assert.ok(!md.includes('late arrivals'), name);
  }
});

test('a run measured with k6 compares with one measured with Locust, each side naming its engine', () => {
  // a run of the k6 era as its results.json has it (the committed ones are being re-measured with
  // Locust, and stay in git history only): versions.k6, runner.k6_cpu_percent, no load_engine
  const old = structuredClone(syntheticResults({ runId: 'k6-run' }).results);
  delete old.environment.load_engine;
  old.environment.versions.k6 = 'k6 v1.8.1 (go1.26.8, linux/amd64)';
  old.runner = { cpu_percent: 0.5, k6_cpu_percent: 9.5, wall_seconds: 1093 };
  const now = syntheticResults({ runId: 'locust-run' }).results;
  const c = compareRuns(old, now);
  assert.deepEqual([c.baseline.engine, c.contender.engine], ['k6', 'Locust']);
  assert.ok(c.rows.some((r) => r.metric === 'avg_ms' && r.baseline !== null && r.contender !== null));
  const text = formatCompare(c);
  assert.equal(text.split('\n')[0], `h2-split-index: baseline ${old.run_id} (measured with k6), contender locust-run (measured with Locust)`);
  // the same engine on both sides: nothing added
  assert.equal(formatCompare(compareRuns(now, now)).split('\n')[0], 'h2-split-index: baseline locust-run, contender locust-run');
});
