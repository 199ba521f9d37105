import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { ResultsError } from '../src/errors.js';
import { readResults, resultsSkeleton, schema, summarize, validateResults } from '../src/results.js';
import { protocolText } from '../src/verdict.js';
import { syntheticResults } from './fixtures/synthetic.js';

const fixtureFile = new URL('./fixtures/results.json', import.meta.url).pathname;
const fixture = () => JSON.parse(readFileSync(fixtureFile, 'utf8'));

test('the schema is draft 2020-12 and documents its fields', () => {
  assert.equal(schema.$schema, 'https://json-schema.org/draft/2020-12/schema');
  assert.ok(schema.description.length > 50);
  for (const key of ['experiment', 'run_id', 'complete', 'environment', 'variants', 'verdicts']) assert.ok(schema.required.includes(key), key);
});

test('the fixture results.json is valid, and so are synthetic runs of both experiments, complete or not', () => {
  assert.deepEqual(validateResults(fixture()), []);
  assert.deepEqual(validateResults(syntheticResults({ experiment: 'h1-shard-count' }).results), []);
  assert.deepEqual(validateResults(syntheticResults({ quick: true, repeat: 2 }).results), []);
  assert.deepEqual(validateResults(syntheticResults({ fail: [{ variant: '2x4', round: 2 }] }).results), []);
});

test('a run as the runner starts it (the skeleton) is valid', () => {
  const { plan, results } = syntheticResults();
  const s = resultsSkeleton(plan, { run_id: 'r1', started_at: '2025-01-01T00:00:00Z', lab: results.lab, environment: results.environment });
  assert.deepEqual(validateResults(s), []);
  assert.equal(s.complete, false);
  assert.deepEqual(s.variants.map((v) => v.name), ['1x8', '2x4', '1x16', '2x8']);
  assert.deepEqual(s.variants[1].published, { avg_ms: 48, p95_ms: 265 });
  assert.equal(s.plan.took_p95, undefined, 'no closed loop: no took method');
  // a closed loop's run keeps how its took p95 was read, and its report's protocol says so
  const loop = resultsSkeleton({ ...plan, took_p95: 'grouped' }, { run_id: 'r2', started_at: '2025-01-01T00:00:00Z', lab: results.lab, environment: results.environment });
  assert.equal(loop.plan.took_p95, 'grouped');
  assert.deepEqual(validateResults(loop), []);
  assert.ok(validateResults({ ...loop, plan: { ...loop.plan, took_p95: 'nearest' } }).some((e) => e.startsWith('plan.took_p95:')));
  assert.match(protocolText(loop.plan), /its p95 is read as grouped data/);
});

// [what breaks, how, the expected error line]
const broken = [
  ['missing run_id', (r) => { delete r.run_id; }, 'run_id: missing'],
  ['unknown top-level key', (r) => { r.extra = 1; }, 'extra: unknown key'],
  ['schema version', (r) => { r.schema_version = 2; }, 'schema_version: must be 1 (got 2)'],
  ['figure not a number', (r) => { r.variants[0].repetitions[1].figures.avg_ms = '12 ms'; }, 'variants[0].repetitions[1].figures.avg_ms: must be a number or null (got "12 ms")'],
  ['lab mode', (r) => { r.lab.mode = 'shared'; }, 'lab.mode: must be one of own, running (got "shared")'],
  ['verdict result', (r) => { r.verdicts[0].result = 'confirmed'; }, 'verdicts[0].result: must be one of reproduced, not_reproduced, inconclusive (got "confirmed")'],
  ['incomplete without reason', (r) => { r.complete = false; delete r.incomplete_reason; }, 'incomplete_reason: missing'],
  ['date', (r) => { r.started_at = 'yesterday'; }, 'started_at: must match format "date-time" (got "yesterday")'],
  ['settings typo', (r) => { r.variants[1].settings.shard = 4; }, 'variants[1].settings.shard: unknown key'],
  ['complete but a repetition failed', (r) => { r.variants[2].repetitions[0].complete = false; }, 'variants[2].repetitions[0]: the run says complete but this repetition is not (set complete: false and incomplete_reason)'],
  ['complete but a repetition missing', (r) => { r.variants[3].repetitions.pop(); }, 'variants[3].repetitions: 2 of the planned 3, yet the run says complete'],
  ['order names an unknown variant', (r) => { r.plan.order[0] = '3x3'; }, 'plan.order[0]: "3x3" is not a variant of this run'],
  ['duplicate variant', (r) => { r.variants[1].name = '1x8'; }, 'variants[1].name: "1x8" is already the name of variants[0]'],
  ['verdict of an unknown variant', (r) => { r.verdicts[1].variants[1] = '9x9'; }, 'verdicts[1].variants[1]: "9x9" is not a variant of this run'],
];
for (const [what, breakIt, line] of broken) {
  test(`invalid results.json: ${what}`, () => {
    const r = fixture();
    breakIt(r);
    const errors = validateResults(r);
    assert.ok(errors.includes(line), `expected "${line}" among:\n${errors.join('\n')}`);
    assert.ok(errors.every((e) => !e.includes('\n')), 'one line each');
  });
}

test('readResults: reads a valid file, one line for a missing, unparseable or invalid one', () => {
  assert.equal(readResults(fixtureFile).experiment, 'h2-split-index');
  const dir = mkdtempSync(join(tmpdir(), 'results-'));
  assert.throws(() => readResults(join(dir, 'none.json')), (e) => e instanceof ResultsError && e.message === `${join(dir, 'none.json')}: no such file`);
  writeFileSync(join(dir, 'bad.json'), '{ not json');
  assert.throws(() => readResults(join(dir, 'bad.json')), (e) => e instanceof ResultsError && /^.*bad\.json: not JSON \(/.test(e.message));
  const r = fixture();
  delete r.run_id;
  r.lab.mode = 'x';
  writeFileSync(join(dir, 'invalid.json'), JSON.stringify(r));
  assert.throws(() => readResults(join(dir, 'invalid.json')), (e) => e instanceof ResultsError && e.message === `${join(dir, 'invalid.json')}: not a valid results.json: run_id: missing (and 1 more)`);
  assert.equal(readResults(join(dir, 'invalid.json'), { validate: false }).lab.mode, 'x');
});

test('summarize: figures across repetitions, failed ones left out and counted', () => {
  const reps = [{ figures: { avg_ms: 10, p95_ms: 30 } }, { figures: { avg_ms: 20, p95_ms: null } }, { figures: null }, { figures: { avg_ms: 30, p95_ms: 50 } }];
  const s = summarize(reps, ['avg_ms', 'p95_ms', 'p99_ms']);
  assert.deepEqual(s.avg_ms, { mean: 20, median: 20, min: 10, max: 30, stdev: 10, rsd: 50, n: 3 });
  assert.deepEqual(s.p95_ms, { mean: 40, median: 40, min: 30, max: 50, stdev: Math.sqrt(200), rsd: (Math.sqrt(200) / 40) * 100, n: 2 });
  assert.deepEqual(s.p99_ms, { mean: null, median: null, min: null, max: null, stdev: null, rsd: null, n: 0 });
  assert.deepEqual(summarize([{ avg_ms: 5 }], ['avg_ms']).avg_ms, { mean: 5, median: 5, min: 5, max: 5, stdev: null, rsd: null, n: 1 }, 'bare figures objects too');
  assert.equal(summarize([{ es: { gc_ms: 4 } }, { es: { gc_ms: 6 } }], ['gc_ms']).gc_ms.mean, 5, 'Elasticsearch figures by their metric name');
});
