import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { parse } from 'yaml';
import { SpecError } from '../src/errors.js';
import { checkSpec, durationSeconds, estimatedSeconds, labStarts, listSpecs, loadSpec, measuredOrder, needsCalibration, profileNames, resolveSpec, shownPath } from '../src/spec.js';
import { protocolText } from '../src/verdict.js';

const fixtures = new URL('./fixtures/specs/', import.meta.url).pathname;
const fixture = (name) => join(fixtures, `${name}.yaml`);
const experiments = new URL('../../../experiments/', import.meta.url).pathname;

function throwsSpec(fn, message) {
  assert.throws(fn, (err) => {
    assert.ok(err instanceof SpecError, `a SpecError, got ${err.name}: ${err.message}`);
    assert.equal(err.message, message);
    assert.ok(!err.message.includes('\n'), 'one line');
    assert.equal(err.exitCode, 2);
    return true;
  });
}

test('a minimal spec gets every default', () => {
  const s = loadSpec(fixture('good-minimal'));
  assert.equal(s.name, 'good-minimal');
  assert.deepEqual(s.variants[0], {
    name: 'a', label: 'a', lab: null,
    settings: { indices: 1, shards: 2, replicas: 1, refresh_interval: '1s', group: 'all', assign: 'all', segments: 1 },
  });
  assert.deepEqual(s.dataset, { profile: 'ci', scale: 1, seed: 1, quick: { profile: 'ci', scale: 1, seed: 1 } });
  assert.equal(s.repetitions, 3);
  assert.equal(s.confidence, 0.95);
  assert.deepEqual(s.report.metrics, ['avg_ms', 'p50_ms', 'p95_ms', 'p99_ms', 'throughput_rps', 'error_rate']);
  assert.deepEqual(s.report.table, s.report.metrics);
  assert.deepEqual(s.expect, [{ claim: 'b is faster', metric: 'avg_ms', form: 'pairwise', direction: 'lower', variants: ['b', 'a'] }]);
  assert.equal(s.workload.model, 'closed');
  assert.equal(s.workload.vus, 8);
  assert.equal(s.workload.rate, null);
});

test('a full spec: defaults section, open model, quick overrides, trend and higher forms', () => {
  const s = loadSpec(fixture('good-open'));
  assert.deepEqual(s.variants[2].settings, { indices: 3, shards: 1, replicas: 0, refresh_interval: '30s', group: 'g1', assign: 'round-robin', segments: 2 });
  assert.equal(s.variants[0].settings.refresh_interval, '-1', '-1 from defaults, as a string');
  assert.equal(s.variants[0].label, 'four');
  assert.deepEqual(s.source.published, { s1: { avg_ms: 10, 'search.p95_ms': 30 } });
  assert.deepEqual(s.expect.map((e) => [e.form, e.direction, e.variants]), [['trend', 'decreasing', ['s4', 's2', 's1']], ['pairwise', 'higher', ['s1', 's4']]]);

  const full = resolveSpec(s);
  assert.equal(full.quick, false);
  assert.deepEqual([full.workload.rate, full.workload.ramp_up_s, full.workload.warmup_s, full.workload.measure_s], [50, 60, 90, 120]);
  assert.deepEqual([full.dataset.profile, full.dataset.scale, full.dataset.seed, full.dataset.stores, full.dataset.products], ['ci', 0.5, 9, 20, 25000]);
  assert.equal(full.repetitions, 5);
  assert.deepEqual(full.variants.find((v) => v.name === 's1').published, { avg_ms: 10, 'search.p95_ms': 30 });

  const quick = resolveSpec(s, { quick: true, repeat: '2' });
  assert.equal(quick.quick, true);
  assert.deepEqual([quick.workload.rate, quick.workload.measure, quick.workload.measure_s, quick.workload.ramp_up_s], [10, '500ms', 0.5, 60]);
  assert.deepEqual([quick.dataset.scale, quick.dataset.seed, quick.dataset.products], [0.01, 9, 500]);
  assert.equal(quick.repetitions, 2);
  assert.equal(quick.order.length, 6, 'every variant once per round');
  assert.deepEqual(quick.rounds.map((r) => [...r].sort()), [['s1', 's2', 's4'], ['s1', 's2', 's4']]);
  assert.equal(typeof quick.order_seed, 'number');
  assert.deepEqual(resolveSpec(s, { orderSeed: 42 }).rounds, resolveSpec(s, { orderSeed: 42 }).rounds, 'the recorded seed repeats the order');
});

test('REPEAT overrides repetitions and is checked', () => {
  const s = loadSpec(fixture('good-minimal'));
  assert.equal(resolveSpec(s, { repeat: 7 }).repetitions, 7);
  assert.equal(resolveSpec(s, { repeat: '' }).repetitions, 3, 'empty REPEAT: the spec decides');
  throwsSpec(() => resolveSpec(s, { repeat: '0' }), 'REPEAT: must be an integer from 1 to 20 (got "0")');
  throwsSpec(() => resolveSpec(s, { repeat: 'two' }), 'REPEAT: must be an integer from 1 to 20 (got "two")');
  throwsSpec(() => resolveSpec(s, { repeat: 21 }), 'REPEAT: must be an integer from 1 to 20 (got 21)');
});

test('file-level errors: one line naming file, field and what is allowed', () => {
  throwsSpec(() => loadSpec(fixture('bad-shards-zero')), `${shownPath(fixture('bad-shards-zero'))}: variants[2].shards: must be a positive integer (got 0)`);
  throwsSpec(() => loadSpec(fixture('bad-typo')),
    `${shownPath(fixture('bad-typo'))}: variants[1].shard: unknown key; did you mean shards? (allowed: name, label, lab, burst, isolate, quick, indices, shards, replicas, refresh_interval, group, assign, segments)`);
  throwsSpec(() => loadSpec(fixture('bad-name')), `${shownPath(fixture('bad-name'))}: name: must equal the file's base name "bad-name" (got "another-name")`);
  throwsSpec(() => loadSpec(fixture('no-such-spec')), `${shownPath(fixture('no-such-spec'))}: no such file`);
  assert.throws(() => loadSpec(fixture('bad-yaml')), (err) => {
    assert.ok(err instanceof SpecError);
    assert.match(err.message, /^\S*bad-yaml\.yaml: line \d+: not valid YAML: [^\n]+$/);
    return true;
  });
});

test('the shown path is relative to the working directory when under it', () => {
  assert.equal(shownPath(join(process.cwd(), 'experiments/h1-shard-count.yaml')), 'experiments/h1-shard-count.yaml');
  assert.equal(shownPath('/elsewhere/x.yaml'), '/elsewhere/x.yaml');
});

// Each kind of mistake, on the parsed minimal spec: [what to change, the exact message after "FILE: "]
const base = parse(readFileSync(fixture('good-minimal'), 'utf8'));
// variant 0 as a closed loop (burst, isolate, odd-even on two groups) with `isolate` on top
const loop = (d, isolate) => Object.assign(d.variants[0], { indices: 2, assign: 'odd-even', group: 'spread', burst: { from: 0.2, to: 1 }, isolate: { objective_ms: 60, ...isolate } });
const cases = [
  ['top-level typo', (d) => { d.variant = []; }, 'variant: unknown key; did you mean variants? (allowed: name, title, hypothesis, source, dataset, lab, defaults, variants, workload, repetitions, confidence, over_budget, report, expect)'],
  ['over budget without a reason', (d) => { d.over_budget = ' '; }, 'over_budget: must be a non-empty text (got " ")'],
  ['missing title', (d) => { delete d.title; }, 'title: must be a non-empty text (got nothing)'],
  ['missing dataset', (d) => { delete d.dataset; }, 'dataset: missing (profile, scale, seed)'],
  ['unknown profile', (d) => { d.dataset.profile = 'huge'; }, `dataset.profile: must be one of ${profileNames().join(', ')} (got "huge")`],
  ['scale 0', (d) => { d.dataset.scale = 0; }, 'dataset.scale: must be a number above 0 and at most 100 (got 0)'],
  ['quick dataset typo', (d) => { d.dataset.quick = { scal: 0.1 }; }, 'dataset.quick.scal: unknown key; did you mean scale? (allowed: profile, scale, seed)'],
  ['one variant', (d) => { d.variants = [d.variants[0]]; }, 'variants: must list 2 to 12 variants (got 1)'],
  ['variants not a list', (d) => { d.variants = { a: 1 }; }, 'variants: must be a list of variants (got a mapping)'],
  ['shards too many', (d) => { d.variants[1].shards = 65; }, 'variants[1].shards: must be at most 64 (got 65)'],
  ['shards missing', (d) => { delete d.variants[0].shards; }, 'variants[0].shards: missing (set it here or in defaults)'],
  ['shards as text', (d) => { d.variants[0].shards = '8'; }, 'variants[0].shards: must be a positive integer (got "8")'],
  ['replicas 4', (d) => { d.variants[0].replicas = 4; }, 'variants[0].replicas: must be at most 3 (got 4)'],
  ['replicas -1', (d) => { d.variants[0].replicas = -1; }, 'variants[0].replicas: must be an integer from 0 to 3 (got -1)'],
  ['bad name', (d) => { d.variants[0].name = '1X8'; }, 'variants[0].name: must be a name like 1x8: lower-case letters, digits, dashes, starting with a letter or digit (got "1X8")'],
  ['duplicate name', (d) => { d.variants[1].name = 'a'; }, 'variants[1].name: "a" is already the name of variants[0]'],
  ['refresh interval', (d) => { d.variants[0].refresh_interval = '1 s'; }, 'variants[0].refresh_interval: must be an Elasticsearch time value like 1s, 500ms, 30s, or -1 (got "1 s")'],
  ['group', (d) => { d.defaults = { group: 'G 1' }; }, 'defaults.group: must be "all", "spread" (index i on the i-th index group) or an index group name of lab.env such as g1 (got "G 1")'],
  ['assign', (d) => { d.variants[0].assign = 'odd'; }, 'variants[0].assign: must be one of all, odd-even, round-robin (got "odd")'],
  ['all with two indices', (d) => { d.variants[0].indices = 2; }, 'variants[0].assign: all puts every store in one index, so indices must be 1 (got indices: 2); use odd-even or round-robin'],
  ['odd-even with three', (d) => { Object.assign(d.variants[0], { indices: 3, assign: 'odd-even' }); }, 'variants[0].assign: odd-even needs indices: 2 (got indices: 3)'],
  ['defaults typo', (d) => { d.defaults = { replica: 1 }; }, 'defaults.replica: unknown key; did you mean replicas? (allowed: indices, shards, replicas, refresh_interval, group, assign, segments)'],
  ['source url', (d) => { d.source.url = 'example.org'; }, 'source.url: must be an http(s) address (got "example.org")'],
  ['published of no variant', (d) => { d.source.published = { c: { avg_ms: 1 } }; }, 'source.published.c: not a variant of this spec (variants: a, b)'],
  ['published metric', (d) => { d.source.published = { a: { avg: 1 } }; }, 'source.published.a.avg: not a metric name (e.g. avg_ms, p95_ms, throughput_rps; the README lists the names)'],
  ['published figure', (d) => { d.source.published = { a: { avg_ms: 'fast' } }; }, 'source.published.a.avg_ms: must be a number from 0 (got "fast")'],
  ['scenario', (d) => { d.workload = { scenario: 'browse' }; }, 'workload.scenario: must be one of storefront, replay, ingest, many-shards (got "browse")'],
  ['duration', (d) => { d.workload = { measure: '2 min' }; }, 'workload.measure: must be a duration like 30s, 2m or 1m30s (got "2 min")'],
  ['measure 0', (d) => { d.workload = { measure: '0s' }; }, 'workload.measure: must be longer than 0s (got "0s")'],
  ['rate in a closed model', (d) => { d.workload = { rate: 20 }; }, 'workload.rate: only for model: open (got 20); a closed model takes vus and think_ms'],
  ['open without rate', (d) => { d.workload = { model: 'open' }; }, "workload.rate: missing (model: open needs a rate in requests/s, or { saturation: share } of the lab's saturation)"],
  ['a share of saturation in a closed model', (d) => { d.workload = { rate: { saturation: 0.4 } }; }, 'workload.rate: only for model: open (got a mapping); a closed model takes vus and think_ms'],
  ['a share of saturation of 0', (d) => { d.workload = { model: 'open', rate: { saturation: 0 } }; }, 'workload.rate.saturation: must be a number above 0 and at most 2 (got 0)'],
  ['a share of saturation as text', (d) => { d.workload = { model: 'open', rate: { saturation: '40%' } }; }, 'workload.rate.saturation: must be a number above 0 and at most 2 (got "40%")'],
  ['a share of saturation missing', (d) => { d.workload = { model: 'open', rate: {} }; }, "workload.rate.saturation: missing (the share of the lab's saturation rate, e.g. 0.4)"],
  ['a rate mapping typo', (d) => { d.workload = { model: 'open', rate: { saturaton: 0.4 } }; }, 'workload.rate.saturaton: unknown key; did you mean saturation? (allowed: saturation)'],
  ['a share of saturation of a replayed log', (d) => { d.workload = { scenario: 'replay', model: 'open', rate: { saturation: 0.4 } }; }, 'workload.rate.saturation: only for scenario: storefront (the lab\'s saturation is measured with its page views; got replay)'],
  ['a bot at a share of saturation too high', (d) => { loop(d, {}); d.variants[0].burst.rate = { saturation: 2.5 }; }, 'variants[0].burst.rate.saturation: must be a number above 0 and at most 2 (got 2.5)'],
  ['think time in an open model', (d) => { d.workload = { model: 'open', rate: 5, think_ms: 100 }; }, 'workload.think_ms: only for model: closed (got 100); an open model paces by rate'],
  ['quick vus', (d) => { d.workload = { quick: { vus: 0 } }; }, 'workload.quick.vus: must be a positive integer (got 0)'],
  ['quick typo', (d) => { d.workload = { quick: { measur: '5s' } }; }, 'workload.quick.measur: unknown key; did you mean measure? (allowed: vus, think_ms, rate, ramp_up, warmup, measure, clients, bulk_docs, bulk_bytes, docs_per_index, indices_scale)'],
  ['repetitions 0', (d) => { d.repetitions = 0; }, 'repetitions: must be a positive integer (got 0)'],
  ['repetitions 21', (d) => { d.repetitions = 21; }, 'repetitions: must be at most 20 (got 21)'],
  ['confidence 1', (d) => { d.confidence = 1; }, 'confidence: must be a number from 0.5 to 0.999 (got 1)'],
  ['report metric', (d) => { d.report = { metrics: ['avg_ms', 'p42'] }; }, 'report.metrics[1]: not a metric name (got "p42"; the README lists the names)'],
  ['report metric twice', (d) => { d.report = { metrics: ['avg_ms', 'avg_ms'] }; }, 'report.metrics[1]: "avg_ms" is listed twice'],
  ['report column', (d) => { d.report = { table: ['shards', 'speed'] }; }, 'report.table[1]: not a column name: a variant setting, a layout fact or a metric (got "speed"; the README lists the names)'],
  ['no expectation', (d) => { d.expect = []; }, 'expect: must list 1 to 20 expected directions (got 0)'],
  ['expectation metric', (d) => { d.expect[0].metric = 'speed'; }, 'expect[0].metric: not a metric name (got "speed"; e.g. avg_ms, p95_ms, throughput_rps)'],
  ['expectation without direction', (d) => { delete d.expect[0].lower; }, 'expect[0]: give one direction: lower or higher (with than), decreasing or increasing, at_most or at_least (with variant), linear or peak (with x) (got none)'],
  ['expectation with two', (d) => { d.expect[0].decreasing = ['a', 'b']; }, 'expect[0]: give one direction: lower or higher (with than), decreasing or increasing, at_most or at_least (with variant), linear or peak (with x) (got lower and decreasing)'],
  ['expectation of no variant', (d) => { d.expect[0].than = 'c'; }, 'expect[0].than: must be a variant name: a, b (got "c")'],
  ['expectation against itself', (d) => { d.expect[0].than = 'b'; }, 'expect[0].than: must be another variant than lower: b'],
  ['than without pair', (d) => { d.expect[0] = { claim: 'x', metric: 'avg_ms', decreasing: ['a', 'b'], than: 'a' }; }, 'expect[0].than: only with lower or higher (a decreasing trend lists its variants in order)'],
  ['times of nothing', (d) => { d.expect[0].times = 0; }, 'expect[0].times: must be a number from 0.01 to 100 (got 0)'],
  ['times without pair', (d) => { d.expect[0] = { claim: 'x', metric: 'avg_ms', decreasing: ['a', 'b'], times: 1.15 }; }, "expect[0].times: only with lower or higher (a comparison of two variants: lower than `times` x the other's)"],
  ['trend repeats', (d) => { d.expect[0] = { claim: 'x', metric: 'avg_ms', decreasing: ['a', 'a'] }; }, 'expect[0].decreasing[1]: "a" is listed twice'],
  ['trend of one', (d) => { d.expect[0] = { claim: 'x', metric: 'avg_ms', increasing: ['a'] }; }, 'expect[0].increasing: must list 2 to 12 variant names in the expected order (got 1)'],
  ['expectation typo', (d) => { d.expect[0].lowr = 'b'; }, 'expect[0].lowr: unknown key; did you mean lower? (allowed: claim, metric, lower, higher, than, times, decreasing, increasing, variant, at_most, at_least, linear, peak, x, x_label)'],
  ['burst store', (d) => { d.variants[0].burst = { from: 0.2, to: 1, store: 'random' }; }, 'variants[0].burst.store: must be one of biggest, smallest (got "random")'],
  ['isolate without burst', (d) => { Object.assign(d.variants[0], { indices: 2, assign: 'odd-even', group: 'spread', isolate: { objective_ms: 10 } }); }, 'variants[0].isolate: needs a burst in the same variant: the allocator isolates the store the burst makes hot'],
  ['isolate on one index', (d) => { Object.assign(d.variants[0], { burst: { from: 0.2, to: 1 }, isolate: { objective_ms: 10 } }); }, 'variants[0].isolate: places odd stores on the first group and even stores on the second: set group: spread and assign: odd-even (got group: all, assign: all)'],
  ['isolate objective', (d) => { Object.assign(d.variants[0], { indices: 2, assign: 'odd-even', group: 'spread', burst: { from: 0.2, to: 1 }, isolate: { objective_ms: -1 } }); }, 'variants[0].isolate.objective_ms: must be a number above 0 and at most 100000 (got -1)'],
  ['isolate window', (d) => { Object.assign(d.variants[0], { indices: 2, assign: 'odd-even', group: 'spread', burst: { from: 0.2, to: 1 }, isolate: { objective_ms: 5, window: '2s' } }); }, 'variants[0].isolate.window: must be at least 10s (got "2s")'],
  ['isolate auto', (d) => { Object.assign(d.variants[0], { indices: 2, assign: 'odd-even', group: 'spread', burst: { from: 0.2, to: 1 }, isolate: { objective_ms: 5, auto: 'yes' } }); }, 'variants[0].isolate.auto: must be true (the allocator moves the hot store) or false (it only flags it) (got "yes")'],
  ['isolate typo', (d) => { Object.assign(d.variants[0], { burst: { from: 0.2, to: 1 }, isolate: { objectiv_ms: 5 } }); }, 'variants[0].isolate.objectiv_ms: unknown key; did you mean objective_ms? (allowed: auto, window, share, objective_ms, relative, min_rise_ms, share_rise, share_rise_sd, baseline, probe_interval, cool_down, interval, settle)'],
  ['isolate relative 1', (d) => { loop(d, { relative: 1 }); }, 'variants[0].isolate.relative: must be a number above 1 and at most 10 (got 1)'],
  ['isolate relative as text', (d) => { loop(d, { relative: '1.3' }); }, 'variants[0].isolate.relative: must be a number above 1 and at most 10 (got "1.3")'],
  ['isolate min rise', (d) => { loop(d, { min_rise_ms: -5 }); }, 'variants[0].isolate.min_rise_ms: must be a number from 0 to 100000 (got -5)'],
  ['isolate share rise', (d) => { loop(d, { share_rise: 1 }); }, 'variants[0].isolate.share_rise: must be a number from 0 to 0.99 (got 1)'],
  ['isolate share rise sd', (d) => { loop(d, { share_rise_sd: -1 }); }, 'variants[0].isolate.share_rise_sd: must be a number from 0 to 10 (got -1)'],
  ['control that moves', (d) => { loop(d, {}); d.variants[0].burst.group = 'other'; }, 'variants[0].burst.group: other (the burst store on the other group from the start, a control) needs isolate.auto: false: a control is never moved'],
  ['burst group typo', (d) => { loop(d, { auto: false }); d.variants[0].burst.group = 'g2'; }, 'variants[0].burst.group: must be one of same, other (got "g2")'],
  ['burst engine typo', (d) => { Object.assign(d.variants[0], { burst: { from: 0.2, to: 1, engine: 'separate' } }); }, 'variants[0].burst.engine: must be one of shared, own (got "separate")'],
  ['burst group without a loop', (d) => { Object.assign(d.variants[0], { burst: { from: 0.2, to: 1, group: 'other' } }); }, 'variants[0].burst.group: only with isolate (the allocator places the stores: odd on the first group, even on the second)'],
  ['isolate baseline shorter than the window', (d) => { loop(d, { window: '30s', baseline: '20s' }); }, 'variants[0].isolate.baseline: must be from the window (30s) to 24h (got "20s")'],
  ['isolate baseline in part seconds', (d) => { loop(d, { baseline: '90.5s' }); }, 'variants[0].isolate.baseline: must be whole seconds, like 120s or 10m (got "90.5s")'],
  ['isolate baseline not a duration', (d) => { loop(d, { baseline: 120 }); }, 'variants[0].isolate.baseline: must be a duration like 30s, 2m or 1m30s (got 120)'],
  ['isolate probe interval as long as the window', (d) => { loop(d, { probe_interval: '15s' }); }, 'variants[0].isolate.probe_interval: must be shorter than window (15s; got "15s")'],
  ['isolate probe interval too short', (d) => { loop(d, { probe_interval: '10ms' }); }, 'variants[0].isolate.probe_interval: must be from 100ms to 60s (got "10ms")'],
  ['burst kind', (d) => { d.variants[0].burst = { kind: 'flood', from: 0.2, to: 1 }; }, 'variants[0].burst.kind: must be one of bot, resubmit (got "flood")'],
  ['resubmit with a rate', (d) => { d.variants[0].burst = { kind: 'resubmit', from: 0.2, to: 1, rate: 50 }; }, 'variants[0].burst.rate: not for kind: resubmit (its writers send the next bulk when the last is answered; set writers and bulk_size)'],
  ['bot with writers', (d) => { d.variants[0].burst = { from: 0.2, to: 1, writers: 2 }; }, 'variants[0].burst.writers: only for kind: resubmit (a search bot takes rate)'],
  ['resubmit writers', (d) => { d.variants[0].burst = { kind: 'resubmit', from: 0.2, to: 1, writers: 9 }; }, 'variants[0].burst.writers: must be at most 8 (got 9)'],
  ['resubmit bulk size', (d) => { d.variants[0].burst = { kind: 'resubmit', from: 0.2, to: 1, bulk_size: 5 }; }, 'variants[0].burst.bulk_size: must be an integer from 10 to 5000 (got 5)'],
  ['not a mapping', () => ['a'], 'must be a YAML mapping of name, title, hypothesis, source, dataset, lab, defaults, variants, workload, repetitions, confidence, over_budget, report, expect (got a list)'],
];
for (const [what, change, message] of cases) {
  test(`spec error: ${what}`, () => {
    const doc = structuredClone(base);
    const changed = change(doc) ?? doc;
    const file = fixture('good-minimal');
    throwsSpec(() => checkSpec(changed, file), `${shownPath(file)}: ${message}`);
  });
}

test('rates as shares of the lab\'s saturation: no rate until the run measures it; QUICK may fix one; needsCalibration says when', () => {
  const doc = structuredClone(base);
  doc.workload = { model: 'open', rate: { saturation: 0.4 }, quick: { rate: 20 } };
  loop(doc, {});
  doc.variants[0].burst.rate = { saturation: 0.32 };
  const s = checkSpec(doc, fixture('good-minimal'));
  assert.deepEqual([s.workload.rate, s.workload.rate_of_saturation], [null, 0.4]);
  assert.deepEqual([s.workload.quick.rate, s.workload.quick.rate_of_saturation], [20, undefined], 'a fixed QUICK rate replaces the share');
  assert.deepEqual(s.variants[0].burst, { kind: 'bot', from: 0.2, to: 1, rate: null, rate_of_saturation: 0.32 });
  const full = resolveSpec(s);
  const quick = resolveSpec(s, { quick: true });
  assert.equal(needsCalibration(full), true);
  assert.equal(needsCalibration(quick), true, "the bot's share still needs it");
  doc.variants[0].burst.rate = 50;
  assert.equal(needsCalibration(resolveSpec(checkSpec(doc, fixture('good-minimal')), { quick: true })), false, 'every rate fixed');
  assert.ok(estimatedSeconds(full) > estimatedSeconds({ ...full, workload: { ...full.workload, rate: 50, rate_of_saturation: undefined }, variants: full.variants.map((v) => ({ ...v, burst: v.burst && { ...v.burst, rate: 30, rate_of_saturation: undefined } })) }), 'the calibration is in the estimate');
});

test('a closed loop: the relative objective and the probe pace when set, left to the allocator when not; a burst of either kind', () => {
  const doc = structuredClone(base);
  loop(doc, { relative: 1.25, min_rise_ms: 0, share_rise: 0.2, baseline: '2m', probe_interval: '250ms' });
  const v = checkSpec(doc, fixture('good-minimal')).variants[0];
  assert.deepEqual(v.isolate, { auto: true, window_s: 15, share: 0.3, objective_ms: 60, relative: 1.25, min_rise_ms: 0, share_rise: 0.2, baseline_s: 120, probe_interval_ms: 250, cool_down_s: 600, interval_s: 1, settle_s: 5 });
  assert.deepEqual(v.burst, { kind: 'bot', from: 0.2, to: 1, rate: 30 });
  const bare = structuredClone(base);
  loop(bare, {});
  bare.variants[0].burst = { kind: 'resubmit', from: 0.25, to: 1, store: 'biggest' };
  const w = checkSpec(bare, fixture('good-minimal')).variants[0];
  assert.deepEqual(Object.keys(w.isolate).filter((k) => ['relative', 'min_rise_ms', 'share_rise', 'baseline_s', 'probe_interval_ms'].includes(k)), [], 'the allocator\'s defaults apply');
  assert.deepEqual(w.burst, { kind: 'resubmit', from: 0.25, to: 1, writers: 2, bulk_size: 500, store: 'biggest' });
  loop(bare, { probe_interval: '1s', window: '20s' });
  assert.equal(checkSpec(bare, fixture('good-minimal')).variants[0].isolate.probe_interval_ms, 1000);
});

test('a bare number is a fine variant name', () => {
  const doc = structuredClone(base);
  doc.variants[0].name = 16;
  doc.expect[0].than = 16;
  const s = checkSpec(doc, fixture('good-minimal'));
  assert.equal(s.variants[0].name, '16');
  assert.deepEqual(s.expect[0].variants, ['b', '16']);
});

test('durations in seconds', () => {
  assert.equal(durationSeconds('30s'), 30);
  assert.equal(durationSeconds('2m'), 120);
  assert.equal(durationSeconds('1m30s'), 90);
  assert.equal(durationSeconds('500ms'), 0.5);
  assert.equal(durationSeconds('1h'), 3600);
});

test('listSpecs: every spec of a folder, sorted by name; a broken one is an error', () => {
  const dir = mkdtempSync(join(tmpdir(), 'specs-'));
  for (const name of ['good-open', 'good-minimal']) writeFileSync(join(dir, `${name}.yaml`), readFileSync(fixture(name)));
  writeFileSync(join(dir, 'notes.txt'), 'not a spec');
  assert.deepEqual(listSpecs(dir).map((s) => s.name), ['good-minimal', 'good-open']);
  writeFileSync(join(dir, 'bad-typo.yaml'), readFileSync(fixture('bad-typo')));
  assert.throws(() => listSpecs(dir), SpecError);
  throwsSpec(() => listSpecs(join(dir, 'none')), `${shownPath(join(dir, 'none'))}: no such folder of experiments`);
});

test('the delivered experiments are valid and fit the 30 minutes of a full run each; the search ones on the demo stores', () => {
  const every = listSpecs(experiments);
  assert.deepEqual(every.map((s) => s.name), ['appbase-write-scaling', 'azure-refresh', 'azure-replicas', 'azure-shard-count', 'explorium-shards-replicas', 'h1-shard-count', 'h2-split-index', 'h3-index-groups', 'many-shards', 'noisy-neighbour', 'noisy-writer']);
  const searches = ['explorium-shards-replicas', 'h1-shard-count', 'h2-split-index', 'h3-index-groups', 'noisy-neighbour', 'noisy-writer'];
  // 30 minutes each, or a stated reason and at most 40
  for (const s of every) assert.ok(estimatedSeconds(resolveSpec(s)) <= (s.over_budget ? 40 : 30) * 60, `${s.name}: ${estimatedSeconds(resolveSpec(s))} s`);
  assert.deepEqual(every.filter((s) => s.over_budget).map((s) => s.name), ['noisy-neighbour', 'noisy-writer'], 'only the closed loop, whose windows must hold a move');
  for (const s of every.filter((x) => !x.over_budget)) assert.ok(estimatedSeconds(resolveSpec(s)) <= 30 * 60, s.name);
  const all = every.filter((s) => searches.includes(s.name));
  for (const s of all) {
    const full = resolveSpec(s);
    assert.ok(estimatedSeconds(resolveSpec(s, { quick: true, repeat: 2 })) < (s.variants.length > 4 ? 8 : 5) * 60);
    assert.equal(full.dataset.profile, 'demo');
    assert.deepEqual([resolveSpec(s, { quick: true }).dataset.profile, resolveSpec(s, { quick: true }).dataset.scale], ['ci', 0.05]);
  }
  // the closed loop: the same burst on the smallest odd store, moved by the allocator or left
  // alone, and the control: that store on the other group from the start, left out of QUICK runs
  const nn = all[4];
  assert.deepEqual(nn.variants.map((v) => [v.name, v.isolate.auto, v.burst.kind, v.burst.store, v.burst.group ?? 'same', v.quick ?? true, v.settings.group, v.settings.assign]), [
    ['isolated', true, 'bot', 'smallest', 'same', true, 'spread', 'odd-even'], ['left-alone', false, 'bot', 'smallest', 'same', true, 'spread', 'odd-even'],
    ['elsewhere', false, 'bot', 'smallest', 'other', false, 'spread', 'odd-even']]);
  // the bot is a client of its own: its requests never queue with the shoppers' on their engine
  assert.ok(nn.variants.every((v) => v.burst.engine === 'own'));
  const demo = resolveSpec(nn, { quick: true });
  assert.deepEqual([demo.variants.map((v) => v.name), demo.left_out, demo.expect.length, resolveSpec(nn).expect.length], [['isolated', 'left-alone'], ['elsewhere'], 2, 3]);
  assert.equal(resolveSpec(nn).left_out, undefined);
  // the closed loop's took p95 is read as grouped data, said in the report's protocol; a spec
  // without the loop has no such key
  assert.equal(resolveSpec(nn).took_p95, 'grouped');
  assert.match(protocolText(resolveSpec(nn)), /took is whole milliseconds, floored, so its p95 is read as grouped data/);
  assert.equal(resolveSpec(all[0]).took_p95, undefined);
  assert.doesNotMatch(protocolText(resolveSpec(all[0])), /grouped data/);
  // the noisy writer: the same loop, the biggest odd store's catalogue re-submitted instead of crawled
  const nw = all[5];
  assert.deepEqual(nw.variants.map((v) => [v.name, v.isolate.auto, v.burst]), [
    ['isolated', true, { kind: 'resubmit', from: 0.1, to: 1, writers: 2, bulk_size: 500, store: 'biggest' }],
    ['left-alone', false, { kind: 'resubmit', from: 0.1, to: 1, writers: 2, bulk_size: 500, store: 'biggest' }]]);
  for (const s of [nn, nw]) {
    const { window_s, relative, min_rise_ms, baseline_s, probe_interval_ms } = s.variants[0].isolate;
    assert.deepEqual({ window_s, relative, min_rise_ms, baseline_s, probe_interval_ms }, { window_s: 15, relative: 1.2, min_rise_ms: 5, baseline_s: 300, probe_interval_ms: 250 });
    assert.deepEqual(s.variants[1].isolate, { ...s.variants[0].isolate, auto: false }, `${s.name}: the variants differ only in auto`);
  }
  // the writer's second direction is the bot's second (the bot's third is on its control); the
  // first differs since 2026-12-04: the bot's rise (20-40x before) is judged by the share of it
  // gone, the writer's (1.5-3x, within the reach of a p95's window-to-window noise) still by a
  // bound on after / before
  assert.deepEqual([nw.dataset, nw.workload.scenario, nw.repetitions, nw.expect[1].metrics, nw.expect[1].form], [nn.dataset, nn.workload.scenario, nn.repetitions, nn.expect[1].metrics, nn.expect[1].form]);
  assert.deepEqual([nn.expect[0].metrics, nn.expect[0].direction, nn.expect[0].bound], [['neighbours.recovered_share', 'neighbours_es.recovered_share'], 'at_least', 0.85]);
  assert.deepEqual([nw.expect[0].metrics, nw.expect[0].direction, nw.expect[0].bound], [['neighbours.after_ratio', 'neighbours_es.after_ratio'], 'at_most', 1.15]);
  // the bot's report has the writer's figures and the recovery against the rise besides
  assert.deepEqual(nw.report.metrics.filter((m) => !nn.report.metrics.includes(m)), []);
  assert.deepEqual(nn.report.metrics.filter((m) => !nw.report.metrics.includes(m)), ['neighbours.recovered_share', 'neighbours_es.recovered_share', 'isolation.recovered_rise_s']);
  assert.deepEqual(nn.expect[2], { ...nn.expect[1], claim: nn.expect[2].claim, variants: ['isolated', 'elsewhere'], times: 1.15 });
  // the bot's shoppers arrive at a rate (an open model below saturation), the bot at one that
  // takes its group to capacity, both shares of the lab's saturation; the writer's window
  // outlasts the move of the biggest store
  assert.deepEqual([nn.workload.model, nn.workload.rate, nn.workload.rate_of_saturation, nw.workload.measure], ['open', null, 0.4, '150s']);
  assert.deepEqual(nn.variants.map((v) => [v.burst.rate, v.burst.rate_of_saturation]), [[null, 1], [null, 1], [null, 1]]);
  // the sweep runs on equal data nodes of half a core each, on a lab of its own
  const sweep = all[0];
  assert.ok(sweep.variants.every((v) => v.lab?.data_node?.cpus === 0.5));
  assert.deepEqual(sweep.variants.map((v) => `${v.settings.shards}/${v.settings.replicas}`), ['3/1', '6/1', '10/1', '3/2', '6/2', '10/2', '3/3', '6/3', '10/3']);
  // h3: (a) on the default lab, (b) a burst on it and on the same nodes unshaped
  const h3 = all[3];
  assert.deepEqual(h3.variants.map((v) => [v.name, v.settings.group, v.lab?.shape ?? null, Boolean(v.burst)]), [
    ['dual-4', 'all', null, false], ['groups-4', 'spread', null, false], ['dual-8', 'all', null, false], ['groups-8', 'spread', null, false],
    ['burst-shaped', 'spread', null, true], ['burst-unshaped', 'spread', 'off', true]]);
  const specs = all.slice(1, 3);
  assert.deepEqual(specs.map((s) => s.dataset.scale), [0.2, 0.2]);
  const h2 = specs[1];
  assert.deepEqual(h2.variants.map((v) => [v.name, v.settings.indices, v.settings.shards, v.settings.assign]),
    [['1x8', 1, 8, 'all'], ['2x4', 2, 4, 'odd-even'], ['1x16', 1, 16, 'all'], ['2x8', 2, 8, 'odd-even']]);
  assert.deepEqual(specs[0].source.published, { s8: { avg_ms: 223, p95_ms: 720 }, s4: { avg_ms: 134, p95_ms: 600 } });
});

test('the delivered write experiments: document profiles, at most 30 minutes each in full, the published figures of their sources', () => {
  const byName = Object.fromEntries(listSpecs(experiments).map((s) => [s.name, s]));
  const writes = ['appbase-write-scaling', 'azure-refresh', 'azure-replicas', 'azure-shard-count', 'many-shards'];
  for (const name of writes) {
    const s = byName[name];
    const full = resolveSpec(s);
    assert.ok(['ingest', 'many-shards'].includes(full.workload.scenario), name);
    assert.ok(['azure-logs', 'appbase-grammar'].includes(full.dataset.profile), name);
    assert.ok(estimatedSeconds(full) <= 30 * 60, `${name}: ${estimatedSeconds(full)} s in full`);
    assert.ok(estimatedSeconds(resolveSpec(s, { quick: true, repeat: 1 })) < 3 * 60, `${name} QUICK: ${estimatedSeconds(resolveSpec(s, { quick: true, repeat: 1 }))} s`);
    assert.ok(full.repetitions >= (name === 'many-shards' ? 2 : 3), name);
  }
  assert.deepEqual(byName['azure-refresh'].source.published, { r1s: { bulk_ops_per_s: 26.0, avg_ms: 460 }, r30s: { bulk_ops_per_s: 32.7, avg_ms: 365 } });
  assert.deepEqual(byName['azure-replicas'].variants.map((v) => [v.settings.replicas, v.settings.refresh_interval, v.lab.write_queue]), [[0, '30s', 20], [1, '30s', 20], [2, '30s', 20]]);
  assert.deepEqual(byName['azure-shard-count'].variants.map((v) => v.settings.shards), [1, 2, 4, 8, 16, 32]);
  assert.equal(byName['azure-shard-count'].expect[0].form, 'peak');
  // Appbase: one shard per data node, the same size each; one replica where a second node holds it
  const ab = byName['appbase-write-scaling'];
  assert.deepEqual(ab.variants.map((v) => [v.lab.data_nodes_per_group, v.settings.shards, v.settings.replicas, v.lab.data_node.cpus, v.lab.groups]),
    [[1, 1, 0, 0.4, 1], [2, 2, 1, 0.4, 1], [3, 3, 1, 0.4, 1], [4, 4, 1, 0.4, 1]]);
  assert.deepEqual(ab.expect[0].x, [1, 2, 3, 4]);
  // many-shards: one shard, no replica; QUICK the same sweep, smaller
  const ms = byName['many-shards'];
  assert.deepEqual(resolveSpec(ms).variants.map((v) => v.settings.indices), [200, 400, 800, 1600]);
  assert.deepEqual(resolveSpec(ms, { quick: true }).variants.map((v) => v.settings.indices), [10, 20, 40, 80]);
  assert.ok(ms.variants.every((v) => v.settings.shards === 1 && v.settings.replicas === 0));
});

test('estimatedSeconds: windows per variant and repetition plus a build allowance and a cold round per variant', () => {
  const plan = resolveSpec(loadSpec(fixture('good-minimal')), { repeat: 2 });
  // 2 variants x 2 repetitions x (30 + 60 + 120) s + 2 x (20 s + 50,000 docs / 8,000 docs/s + a full window of 210 s)
  assert.equal(estimatedSeconds(plan), 2 * 2 * 210 + Math.round(2 * (20 + 50000 / 8000 + 210)));
  // QUICK: the cold round is ramp-up and warm-up of one variant
  const quick = resolveSpec(loadSpec(fixture('good-minimal')), { repeat: 2, quick: true });
  const w = quick.workload;
  assert.equal(estimatedSeconds(quick), Math.round(2 * 2 * (w.ramp_up_s + w.warmup_s + w.measure_s) + 2 * (20 + quick.dataset.products / 8000) + w.ramp_up_s + w.warmup_s));
});

test('labStarts: a lab restarted on the same data warms the variant measured next in full, the others briefly; new data warms them all', () => {
  const h3 = resolveSpec(loadSpec(join(experiments, 'h3-index-groups.yaml')), { orderSeed: 1 });
  // 4 rounds, the labs taking turns: shaped | unshaped, unshaped | shaped, ...: 5 starts, the
  // first on new data (5 variants in full), then 4 restarts on the same data (1 full each, the
  // other variants of the shaped lab briefly)
  // 5 rounds, the labs taking turns: 6 starts, the first on new data (5 variants in full), then
  // 5 restarts on the same data (a full window each; into the shaped lab, twice, its other 4
  // variants briefly)
  assert.deepEqual(labStarts(h3), { starts: 6, fullWindows: 5 + 5, shortWindows: 4 + 4 });
  const appbase = resolveSpec(loadSpec(join(experiments, 'appbase-write-scaling.yaml')), { orderSeed: 1 });
  // one lab per variant, of another structure each: every start is on new data; the labs take
  // turns (A B C D | D C B A | A B C D), so a round's last lab runs the next round's first window
  assert.deepEqual(labStarts(appbase), { starts: 10, fullWindows: 10, shortWindows: 0 });
});

test('lab: the experiment sets the topology; a variant may set its own on top', () => {
  const doc = parse(readFileSync(fixture('good-minimal'), 'utf8'));
  doc.lab = { groups: 2, data_nodes_per_group: 2, data_node: { cpus: 0.5, cpu_weight: 1000, mem: '1536m' } };
  doc.variants[0].lab = { shape: 'off', data_node: { heap: '384m' } };
  const s = checkSpec(doc, fixture('good-minimal'));
  assert.deepEqual(s.variants[0].lab, { groups: 2, data_nodes_per_group: 2, shape: 'off', data_node: { cpus: 0.5, cpu_weight: 1000, mem: '1536m', heap: '384m' } });
  assert.deepEqual(s.variants[1].lab, doc.lab);
  assert.deepEqual(checkSpec({ ...doc, lab: { load_engine: { cpu_weight: 1000 } } }, fixture('good-minimal')).variants[1].lab, { load_engine: { cpu_weight: 1000 } });
  // where the engines run: an index group's CPU slice each
  assert.deepEqual(checkSpec({ ...doc, lab: { load_engine: { cpus_of: 'g1', burst_cpus_of: 'g2' } } }, fixture('good-minimal')).variants[1].lab, { load_engine: { cpus_of: 'g1', burst_cpus_of: 'g2' } });
  for (const [lab, message] of [
    [{ groups: 0 }, 'lab.groups: must be a positive integer (got 0)'],
    [{ shape: 'on' }, 'lab.shape: must be one of groups, off (got "on")'],
    [{ data_node: { cpus: 0 } }, 'lab.data_node.cpus: must be a number above 0 and at most 256 (got 0)'],
    [{ data_node: { cpuset: '0-x' } }, 'lab.data_node.cpuset: must be a CPU list like 0, 0-1 or 0,2 (got "0-x")'],
    [{ data_node: { mem: 'lots' } }, 'lab.data_node.mem: must be a size like 512m or 2g (got "lots")'],
    [{ data_node: { cpu_weight: 0 } }, 'lab.data_node.cpu_weight: must be a positive integer (got 0)'],
    [{ data_node: { cpu_weight: 20000 } }, 'lab.data_node.cpu_weight: must be at most 10000 (got 20000)'],
    [{ load_engine: { cpu_weight: 0 } }, 'lab.load_engine.cpu_weight: must be a positive integer (got 0)'],
    [{ load_engine: {} }, 'lab.load_engine: needs one of cpu_weight, cpus_of, burst_cpus_of'],
    [{ load_engine: { cpus: 1 } }, 'lab.load_engine.cpus: unknown key'],
    [{ load_engine: { cpus_of: 1 } }, 'lab.load_engine.cpus_of: must name an index group like g1 or g2 (got 1)'],
    [{ load_engine: { burst_cpus_of: 'g0' } }, 'lab.load_engine.burst_cpus_of: must name an index group like g1 or g2 (got "g0")'],
    [{ groups: 2, load_engine: { burst_cpus_of: 'g3' } }, 'lab.load_engine.burst_cpus_of: names g3, but this lab has 2 index group(s): g1 to g2'],
    [{ shape: 'off', load_engine: { cpus_of: 'g1' } }, "lab.load_engine.cpus_of: needs the groups' CPU slices, which SHAPE=off does not make"],
    [{ nodes: 3 }, 'lab.nodes: unknown key'],
  ]) {
    assert.throws(() => checkSpec({ ...doc, lab }, fixture('good-minimal')), (err) => err.message.includes(message) || assert.fail(err.message));
  }
});

test('measured order: every variant once a round, drawn from the seed, counterbalanced; two labs take turns starting a round', () => {
  const v = (name, lab = null) => ({ name, lab });
  const two = measuredOrder([v('a'), v('b')], 4, { seed: 5 });
  assert.equal(two.seed, 5);
  assert.equal(two.rounds.length, 4);
  // counterbalanced: each of two variants runs first in half the rounds
  assert.equal(two.rounds.filter((r) => r[0] === 'a').length, 2);
  assert.deepEqual(two.order, two.rounds.flat());
  const shaped = { shape: 'groups' };
  const off = { shape: 'off' };
  const labs = measuredOrder([v('s1', shaped), v('o', off), v('s2', shaped)], 3, { seed: 9 });
  // the labs take turns: round 1 shaped then off, round 2 off then shaped, round 3 shaped then off
  assert.deepEqual(labs.rounds.map((r) => r.map((n) => (n === 'o' ? 'off' : 'shaped'))), [['shaped', 'shaped', 'off'], ['off', 'shaped', 'shaped'], ['shaped', 'shaped', 'off']]);
});

test('measured order: never the order of a curve under test nor its reverse, whatever the seed', () => {
  const names = ['s16', 's8', 's4', 's2'];
  const variants = names.map((name) => ({ name, lab: null }));
  const expect = [{ form: 'trend', variants: names }];
  for (let seed = 0; seed < 200; seed++) {
    const { rounds } = measuredOrder(variants, 4, { seed, expect });
    for (const r of rounds) {
      assert.notDeepEqual(r, names, `seed ${seed}`);
      assert.notDeepEqual(r, [...names].reverse(), `seed ${seed}`);
    }
  }
  // positions even out: over 4 rounds of 4 variants each variant runs once at each position
  const { rounds } = measuredOrder(variants, 4, { seed: 3, expect });
  for (const n of names) assert.deepEqual(rounds.map((r) => r.indexOf(n)).sort(), [0, 1, 2, 3], n);
});

// ---- the write workload (scenario: ingest) and curves over a numeric variable
const ingestDoc = () => ({
  ...structuredClone(base),
  dataset: { profile: 'azure-logs' },
  workload: { scenario: 'ingest', clients: 3, bulk_docs: 500, measure: '10s' },
});

test('an ingest spec: clients and bulk_docs, a document profile, no storefront knobs; the plan has no stores', () => {
  const s = checkSpec(ingestDoc(), fixture('good-minimal'));
  assert.equal(s.workload.scenario, 'ingest');
  assert.equal(s.workload.clients, 3);
  assert.equal(s.workload.bulk_docs, 500);
  assert.equal(s.workload.quick.clients, 3);
  const plan = resolveSpec(s, { quick: true });
  assert.equal(plan.dataset.kind, 'log-events');
  assert.equal(plan.dataset.stores, undefined);
  assert.ok(estimatedSeconds(plan) > 0);
  const d = ingestDoc();
  delete d.workload.clients;
  assert.equal(checkSpec(d, fixture('good-minimal')).workload.clients, 4, 'a default client count');
});

test('ingest and search settings do not mix, each refusal one line naming the field', () => {
  const file = fixture('good-minimal');
  const cases = [
    [{ workload: { scenario: 'ingest', vus: 4 } }, 'workload.vus: not for scenario: ingest (it takes clients and bulk_docs or bulk_bytes)'],
    [{ workload: { scenario: 'storefront', clients: 4 } }, 'workload.clients: only for scenario: ingest or many-shards (the storefront workload takes vus, think_ms or rate)'],
    [{ workload: { scenario: 'ingest', model: 'open', rate: 5 } }, 'workload.model: scenario: ingest is closed (each client sends its next request when the last is answered)'],
    [{ workload: { scenario: 'ingest', clients: 0 } }, 'workload.clients: must be a positive integer (got 0)'],
  ];
  for (const [change, message] of cases) {
    throwsSpec(() => checkSpec({ ...ingestDoc(), ...change }, file), `${shownPath(file)}: ${message}`);
  }
  throwsSpec(() => checkSpec({ ...ingestDoc(), dataset: { profile: 'ci' } }, file), `${shownPath(file)}: dataset.profile: scenario: ingest writes documents of a document profile: ${profileNames().filter((n) => ['appbase-grammar', 'azure-logs'].includes(n)).join(', ')} (got "ci", a store profile)`);
  assert.throws(() => checkSpec({ ...structuredClone(base), dataset: { profile: 'azure-logs' } }, file), /dataset.profile: the storefront workload searches stores of a store profile: .* \(got "azure-logs", a document profile for scenario: ingest or many-shards\)/);
  assert.throws(() => checkSpec({ ...ingestDoc(), dataset: { profile: 'azure-logs', scale: 0.5 } }, file), /dataset.scale: not for scenario: ingest/);
});

test('a lab may set every node\'s write queue; linear and peak need x in rising order', () => {
  const file = fixture('good-minimal');
  const s = checkSpec({ ...ingestDoc(), lab: { write_queue: 12 } }, file);
  assert.equal(s.variants[0].lab.write_queue, 12);
  const three = [{ name: 'a', shards: 1 }, { name: 'b', shards: 2 }, { name: 'c', shards: 4 }];
  const curve = (e) => checkSpec({ ...ingestDoc(), variants: three, expect: [{ claim: 'rises', metric: 'docs_per_s', ...e }] }, file);
  assert.deepEqual(curve({ linear: ["a", "b", "c"], x: [1, 2, 4], x_label: "data nodes" }).expect[0], { claim: "rises", metric: "docs_per_s", form: "linear", direction: "linear", variants: ["a", "b", "c"], x: [1, 2, 4], x_label: "data nodes" });
  assert.equal(curve({ peak: ['a', 'b', 'c'], x: [1, 2, 4] }).expect[0].form, 'peak');
  assert.throws(() => curve({ linear: ['a', 'b', 'c'] }), /expect\[0\]\.x: missing/);
  assert.throws(() => curve({ peak: ['a', 'b', 'c'], x: [1, 4, 2] }), /expect\[0\]\.x\[2\]: must be above the one before \(4; got 2\)/);
  assert.throws(() => curve({ peak: ['a', 'b', 'c'], x: [1, 2] }), /expect\[0\]\.x: must list 3 to 3 numbers/);
  assert.throws(() => curve({ linear: ['a', 'b', 'c'], x: [1, 2, 4], min_r2: 0.5 }), /expect\[0\]\.min_r2: unknown key/);
  assert.throws(() => curve({ peak: ['a', 'b', 'c'], x: [1, 2, 4], metric: ['docs_per_s', 'avg_ms'] }), /expect\[0\]\.metric: one metric with peak/);
  assert.throws(() => checkSpec({ ...ingestDoc(), lab: { write_queue: 0 } }, file), /lab\.write_queue: must be a positive integer \(got 0\)/);
});

test('an ingest bulk by byte size: as many of the profile\'s documents as fill it; one of bulk_docs or bulk_bytes', () => {
  const file = fixture('good-minimal');
  const s = checkSpec({ ...ingestDoc(), workload: { scenario: 'ingest', clients: 2, bulk_bytes: '5mb' } }, file);
  assert.equal(s.workload.bulk_bytes, 5 * 1024 * 1024);
  const plan = resolveSpec(s);
  // ~490-byte log events plus their action lines: about 10,000 to a 5 MB bulk
  assert.ok(plan.workload.bulk_docs > 9000 && plan.workload.bulk_docs < 11500, `${plan.workload.bulk_docs} documents`);
  assert.throws(() => checkSpec({ ...ingestDoc(), workload: { scenario: 'ingest', bulk_docs: 10, bulk_bytes: '1mb' } }, file), /workload\.bulk_bytes: give bulk_docs or bulk_bytes, not both/);
  assert.throws(() => checkSpec({ ...ingestDoc(), workload: { scenario: 'ingest', bulk_bytes: 'big' } }, file), /workload\.bulk_bytes: must be a size from 1kb to 100mb, like 500kb or 5mb \(got "big"\)/);
  // QUICK may size its bulks by count instead
  const q = checkSpec({ ...ingestDoc(), workload: { scenario: 'ingest', bulk_bytes: '1mb', quick: { bulk_docs: 50 } } }, file);
  assert.equal(resolveSpec(q, { quick: true }).workload.bulk_docs, 50);
});
