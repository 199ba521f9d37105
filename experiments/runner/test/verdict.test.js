import assert from 'node:assert/strict';
import { test } from 'node:test';
import { familyLevel, minRepetitions, planMinimum, verdicts } from '../src/verdict.js';

const pair = (direction = 'lower', confidence = 0.95) => ({
  confidence,
  expect: [{ claim: '2x4 answers faster than 1x8 (p95)', metric: 'p95_ms', form: 'pairwise', direction, variants: ['2x4', '1x8'] }],
});
const trend = (direction = 'decreasing') => ({
  confidence: 0.95,
  expect: [{ claim: 'fewer shards, faster', metric: 'avg_ms', form: 'trend', direction, variants: ['s16', 's8', 's4', 's2'] }],
});
const figs = (...p95s) => p95s.map((p) => ({ p95_ms: p, avg_ms: p / 2 }));

test('pairwise reproduced: lower in every repetition, exact one-sided p = 1/70 at 4 against 4', () => {
  const [v] = verdicts(pair(), { '2x4': figs(260, 270, 265, 262), '1x8': figs(700, 720, 730, 710) });
  assert.equal(v.result, 'reproduced');
  assert.equal(v.form, 'pairwise');
  assert.equal(v.test, 'Mann-Whitney U, one-sided, exact');
  assert.equal(v.confidence, 0.95);
  assert.equal(v.p_value, 1 / 70);
  assert.equal(v.p_adjusted, 1 / 70, 'a family of one: Holm leaves it');
  assert.equal(v.family_size, 1);
  assert.equal(v.minimum_repetitions, 4);
  assert.equal(v.p_value_opposite, 1);
  assert.deepEqual(v.variants, ['2x4', '1x8']);
  assert.equal(v.effect.ratio, 1057 / 2860);
  assert.equal(v.effect.method, 'Fieller');
  assert.ok(v.effect.ci_low <= v.effect.ratio && v.effect.ratio <= v.effect.ci_high);
  assert.match(v.reason, /^the p95_ms of 2x4 was below that of 1x8 in every repetition \(mean 264 ms vs 715 ms, ratio 0\.37 \(95% interval [\d.]+ to [\d.]+\)\): p = 0\.0143$/);
});

test('pairwise: one repetition out of order still reaches 0.05 at 4 against 4 (the declared minimum), never at 3 against 3', () => {
  const [four] = verdicts(pair(), { '2x4': figs(260, 270, 265, 705), '1x8': figs(700, 720, 730, 710) });
  assert.equal(four.result, 'reproduced');
  assert.ok(four.p_value <= 0.05);
  const [three] = verdicts(pair(), { '2x4': figs(260, 270, 265), '1x8': figs(700, 720, 730) });
  assert.equal(three.result, 'inconclusive');
  assert.equal(three.p_value, null);
  assert.match(three.reason, /^3, 3 repetitions, below the 4 this test needs for a verdict: a one-sided Mann-Whitney test reaches 0\.05 with one repetition out of order from 4 repetitions of each of its 2 variants \(REPEAT=4; means 265, 717\)$/);
});

test('pairwise not reproduced: the opposite direction is significant, said plainly', () => {
  const [v] = verdicts(pair(), { '2x4': figs(800, 810, 790, 805), '1x8': figs(700, 720, 730, 710) });
  assert.equal(v.result, 'not_reproduced');
  assert.equal(v.p_value, 1);
  assert.equal(v.p_value_opposite, 1 / 70);
  assert.match(v.reason, /^the opposite held: the p95_ms of 2x4 was above that of 1x8 in every repetition .*: p = 0\.0143 for the opposite direction$/);
});

test('pairwise inconclusive: overlapping repetitions', () => {
  const [v] = verdicts(pair(), { '2x4': figs(700, 260, 735, 705), '1x8': figs(700, 720, 730, 710) });
  assert.equal(v.result, 'inconclusive');
  assert.ok(v.p_value > 0.05 && v.p_value_opposite > 0.05);
  assert.match(v.reason, /^no clear difference: p = [\d.]+ for the p95_ms of 2x4 below that of 1x8, [\d.]+ for above/);
});

test('pairwise: the minimum follows the confidence (at 80%, 2 against 2 may give a verdict)', () => {
  assert.equal(verdicts(pair('lower', 0.8), { '2x4': figs(260, 270), '1x8': figs(700, 720) })[0].result, 'inconclusive', '2/6 > 0.2: one swap would not reach it');
  assert.equal(verdicts(pair('lower', 0.8), { '2x4': figs(260, 270, 265), '1x8': figs(700, 720, 710) })[0].result, 'reproduced');
});

test('higher: the expected direction is up', () => {
  const plan = { confidence: 0.95, expect: [{ claim: 'more throughput', metric: 'throughput_rps', form: 'pairwise', direction: 'higher', variants: ['a', 'b'] }] };
  const f = (...xs) => xs.map((x) => ({ throughput_rps: x }));
  assert.equal(verdicts(plan, { a: f(300, 310, 320, 330), b: f(200, 210, 220, 230) })[0].result, 'reproduced');
  assert.equal(verdicts(plan, { a: f(100, 110, 120, 130), b: f(200, 210, 220, 230) })[0].result, 'not_reproduced');
});

test('average and p95 of the same windows: one direction with two figures, held only when both hold', () => {
  const plan = { confidence: 0.95, expect: [{ claim: '2x4 faster', metric: 'avg_ms', metrics: ['avg_ms', 'p95_ms'], form: 'pairwise', direction: 'lower', variants: ['2x4', '1x8'] }] };
  const [both] = verdicts(plan, { '2x4': figs(260, 270, 265, 262), '1x8': figs(700, 720, 730, 710) });
  assert.equal(both.result, 'reproduced');
  assert.deepEqual(both.metrics, ['avg_ms', 'p95_ms']);
  assert.equal(both.figures.length, 2);
  assert.match(both.test, /on each of avg_ms and p95_ms \(the larger p decides\)/);
  assert.match(both.reason, /avg_ms of 2x4 was below .*; and the p95_ms of 2x4 was below/);
  // the average holds, the p95 does not: the direction does not hold
  const mixed = { '2x4': [{ avg_ms: 10, p95_ms: 700 }, { avg_ms: 11, p95_ms: 760 }, { avg_ms: 12, p95_ms: 690 }, { avg_ms: 10, p95_ms: 740 }], '1x8': figs(700, 720, 730, 710) };
  assert.equal(verdicts(plan, mixed)[0].result, 'inconclusive');
});

test('a family of directions is corrected with Holm: each p adjusted, the decision on the adjusted one', () => {
  const plan = { confidence: 0.95, expect: [pair().expect[0], { ...pair().expect[0], claim: 'second', metric: 'avg_ms' }, { ...pair().expect[0], claim: 'third', metric: 'max_ms' }] };
  const f = (p95, avg, max) => ({ p95_ms: p95, avg_ms: avg, max_ms: max });
  // 5 a side (a family of 3 needs 5): p95 fully separated (1/252), avg with three pairs out of
  // order (U = 3: 7/252), max not at all
  const out = verdicts(plan, {
    '2x4': [f(260, 10, 5), f(270, 11, 9), f(265, 12, 7), f(262, 20.5, 6), f(268, 21.5, 8)],
    '1x8': [f(700, 20, 8), f(720, 21, 4), f(730, 22, 6), f(710, 23, 5), f(715, 24, 7)],
  });
  assert.equal(out[0].family_size, 3);
  assert.equal(out[0].minimum_repetitions, 5);
  assert.ok(Math.abs(out[0].p_adjusted - 3 / 252) < 1e-12, `first step: 3 x p (${out[0].p_adjusted})`);
  assert.ok(Math.abs(out[1].p_adjusted - 14 / 252) < 1e-12, `second step: 2 x p (${out[1].p_adjusted})`);
  assert.equal(out[0].result, 'reproduced');
  assert.equal(out[1].result, 'inconclusive', 'p = 0.028 alone would pass; 0.056 after Holm does not');
  assert.match(out[1].reason, /0\.0278 \(0\.0556 after Holm\)/);
});

test("the minimum in a family is taken at Holm's first step: 4 a side is enough alone, not among 2 or more", () => {
  const one = pair();
  const two = { confidence: 0.95, expect: [one.expect[0], { ...one.expect[0], claim: 'second', metric: 'avg_ms' }] };
  assert.equal(planMinimum(one).repetitions, 4);
  assert.equal(planMinimum(two).repetitions, 5);
  assert.match(planMinimum(two).why, /reaches 0\.025 with one repetition out of order from 5 repetitions/);
  assert.equal(familyLevel(two), 0.025);
  // 4 against 4 in perfect order (p = 1/70 = 0.0143) is below the minimum of a family of 2: no
  // verdict, and why
  const four = { '2x4': [{ p95_ms: 1, avg_ms: 1 }, { p95_ms: 2, avg_ms: 2 }, { p95_ms: 3, avg_ms: 3 }, { p95_ms: 4, avg_ms: 4 }], '1x8': [{ p95_ms: 10, avg_ms: 10 }, { p95_ms: 11, avg_ms: 11 }, { p95_ms: 12, avg_ms: 12 }, { p95_ms: 13, avg_ms: 13 }] };
  const out = verdicts(two, four);
  assert.equal(out[0].result, 'inconclusive');
  assert.match(out[0].reason, /4, 4 repetitions, below the 5 this test needs .*Holm's first step in a family of 2 directions: 0\.05 \/ 2/);
});

test('a missing or incomplete repetition makes the verdict inconclusive, with the reason', () => {
  const [v] = verdicts(pair(), { '2x4': [...figs(260, 270, 275), null], '1x8': figs(700, 720, 730, 710) }, { reasons: { '2x4': [null, null, null, '3 of 100 requests failed (3%), above max_error_rate 1%'] } });
  assert.equal(v.result, 'inconclusive');
  assert.equal(v.p_value, null);
  assert.equal(v.effect, null);
  assert.equal(v.reason, "2x4's repetition 4 has no p95_ms figure (3 of 100 requests failed (3%), above max_error_rate 1%), so no test was run: a verdict needs every repetition");
  const [w] = verdicts(pair(), { '2x4': figs(260, 270, 280, 290), '1x8': [{ avg_ms: 3 }, ...figs(720, 730, 710)] });
  assert.match(w.reason, /^1x8's repetition 1 has no p95_ms figure \(not measured within its window\)/);
  const [x] = verdicts(pair(), { '1x8': figs(700, 720, 730) });
  assert.equal(x.reason, 'no repetition of 2x4 has figures, so no test was run: a verdict needs every repetition');
});

test('trend reproduced: Jonckheere-Terpstra, exact', () => {
  const avg = (...xs) => xs.map((x) => ({ avg_ms: x }));
  const [v] = verdicts(trend(), { s16: avg(741, 730, 760), s8: avg(518, 530, 500), s4: avg(304, 310, 300), s2: avg(223, 220, 230) });
  assert.equal(v.result, 'reproduced');
  assert.equal(v.form, 'trend');
  assert.equal(v.test, 'Jonckheere-Terpstra, one-sided, exact');
  assert.equal(v.statistic.j, 54);
  assert.ok(Math.abs(v.p_value - 1 / 369600) < 1e-15);
  assert.equal(v.effect.of, 's2/s16');
  assert.match(v.reason, /^avg_ms fell along s16, s8, s4, s2 \(means 744, 516, 305, 224 ms; J = 54 of 54; s2 \/ s16 0\.302 \(95% interval [\d.]+ to [\d.]+\)\): p = 2\.71e-6$/);
});

test('trend not reproduced and inconclusive', () => {
  const avg = (...xs) => xs.map((x) => ({ avg_ms: x }));
  const [up] = verdicts(trend(), { s16: avg(100, 110, 105), s8: avg(200, 210, 205), s4: avg(300, 310, 305), s2: avg(400, 410, 405) });
  assert.equal(up.result, 'not_reproduced');
  assert.match(up.reason, /^the opposite held: avg_ms rose along s16, s8, s4, s2/);
  const [flat] = verdicts(trend(), { s16: avg(100, 300, 200), s8: avg(210, 110, 290), s4: avg(190, 305, 120), s2: avg(205, 115, 295) });
  assert.equal(flat.result, 'inconclusive');
  assert.match(flat.reason, /^no clear trend: p = [\d.]+ for avg_ms decreasing along s16, s8, s4, s2, [\d.]+ for increasing/);
});

test('trend below its declared minimum: no verdict, and how many are needed', () => {
  const avg = (x) => [{ avg_ms: x }];
  const plan = { confidence: 0.99, expect: [{ claim: 'falls', metric: 'avg_ms', form: 'trend', direction: 'decreasing', variants: ['a', 'b', 'c'] }] };
  const [v] = verdicts(plan, { a: avg(3), b: avg(2), c: avg(1) });
  assert.equal(v.result, 'inconclusive');
  assert.match(v.reason, /^1, 1, 1 repetitions, below the 3 this test needs for a verdict: a one-sided Jonckheere-Terpstra test reaches 0\.01 with one repetition out of order from 3 repetitions of each of its 3 variants \(REPEAT=3/);
});

test('minRepetitions: Mann-Whitney 4 a side at 0.05, Jonckheere-Terpstra by its variants, t and the curves fixed', () => {
  assert.equal(minRepetitions({ form: 'pairwise', variants: ['a', 'b'] }, 0.05).repetitions, 4);
  assert.equal(minRepetitions({ form: 'pairwise', variants: ['a', 'b'] }, 0.01).repetitions, 5);
  assert.equal(minRepetitions({ form: 'trend', variants: ['a', 'b', 'c'] }, 0.05).repetitions, 2);
  assert.equal(minRepetitions({ form: 'trend', variants: ['a', 'b', 'c', 'd'] }, 0.05).repetitions, 2);
  assert.equal(minRepetitions({ form: 'bound', variants: ['a'] }, 0.05).repetitions, 4);
  assert.equal(minRepetitions({ form: 'linear', variants: ['a', 'b', 'c'] }, 0.05).repetitions, 3);
  assert.equal(minRepetitions({ form: 'peak', variants: ['a', 'b', 'c'] }, 0.05).repetitions, 3);
});

test('one verdict per expectation, in the spec order, each with the fields results.json carries', () => {
  const plan = { confidence: 0.95, expect: [...pair().expect, { ...pair().expect[0], claim: 'avg too', metric: 'avg_ms' }] };
  const out = verdicts(plan, { '2x4': figs(260, 270, 265, 262), '1x8': figs(700, 720, 730, 710) });
  assert.deepEqual(out.map((v) => v.claim), ['2x4 answers faster than 1x8 (p95)', 'avg too']);
  for (const v of out) {
    for (const key of ['claim', 'metric', 'form', 'variants', 'result', 'test', 'confidence', 'p_value', 'p_value_opposite', 'p_adjusted', 'p_adjusted_opposite', 'family_size', 'minimum_repetitions', 'effect', 'reason']) assert.ok(key in v, key);
  }
});

test('bound: a variant\'s mean held to a figure by Student\'s t, one-sided', () => {
  const plan = (bound, direction = 'at_most') => ({ confidence: 0.95, expect: [{ claim: 'stays within 10%', metric: 'even.burst_p95_ratio', form: 'bound', direction, bound, variants: ['shaped'] }] });
  const reps = (...r) => ({ shaped: r.map((x) => ({ by_set: { even: { burst_p95_ratio: x } } })) });
  let [v] = verdicts(plan(1.1), reps(1.01, 1.03, 1.05, 1.02));
  assert.equal(v.result, 'reproduced');
  assert.equal(v.bound, 1.1);
  assert.match(v.test, /Student's t/);
  assert.match(v.reason, /stayed at most 1\.1/);
  [v] = verdicts(plan(1.1), reps(1.4, 1.5, 1.6, 1.45));
  assert.equal(v.result, 'not_reproduced');
  assert.match(v.reason, /was above 1\.1/);
  [v] = verdicts(plan(1.1), reps(1.0, 1.05, 1.3, 1.1));
  assert.equal(v.result, 'inconclusive');
  [v] = verdicts(plan(2, 'at_least'), reps(2.5, 3, 2.8, 2.7));
  assert.equal(v.result, 'reproduced');
  // three repetitions: below the t test's declared minimum, whatever they say
  [v] = verdicts(plan(1.1), reps(1.01, 1.03, 1.05));
  assert.equal(v.result, 'inconclusive');
  [v] = verdicts(plan(1.1), { shaped: [{ by_set: {} }, null] });
  assert.equal(v.result, 'inconclusive');
});

test('bound on two figures of the same windows (the client\'s p95 and Elasticsearch\'s took): held only when both hold', () => {
  const plan = { confidence: 0.95, expect: [{ claim: 'back within 15%', metric: 'neighbours.after_ratio', metrics: ['neighbours.after_ratio', 'neighbours_es.after_ratio'], form: 'bound', direction: 'at_most', bound: 1.15, variants: ['iso'] }] };
  const reps = (pairs) => ({ iso: pairs.map(([a, b]) => ({ neighbours: { after_ratio: a }, neighbours_es: { after_ratio: b } })) });
  let [v] = verdicts(plan, reps([[1.01, 1.0], [1.03, 1.02], [1.05, 1.04], [1.02, 1.01]]));
  assert.equal(v.result, 'reproduced');
  assert.deepEqual([v.metrics, v.figures.length], [['neighbours.after_ratio', 'neighbours_es.after_ratio'], 2]);
  assert.match(v.test, /on each of neighbours\.after_ratio and neighbours_es\.after_ratio \(the larger p decides\)/);
  assert.match(v.reason, /the neighbours\.after_ratio of iso stayed at most 1\.15 .*; and the neighbours_es\.after_ratio of iso stayed at most 1\.15 .*: p = /);
  // one figure held, the other clearly above: neither reproduced nor its opposite
  [v] = verdicts(plan, reps([[1.01, 2.1], [1.03, 2.3], [1.05, 2.0], [1.02, 2.2]]));
  assert.equal(v.result, 'inconclusive');
  assert.match(v.reason, /neighbours\.after_ratio of iso is not clearly at most 1\.15: .*\); the neighbours_es\.after_ratio of iso is not clearly .*\) \(p = .* for the opposite\); more repetitions/);
  // both above: not reproduced, each said
  [v] = verdicts(plan, reps([[2.1, 2.1], [2.3, 2.3], [2.0, 2.0], [2.2, 2.2]]));
  assert.equal(v.result, 'not_reproduced');
  assert.match(v.reason, /neighbours\.after_ratio of iso was above 1\.15 .*; and the neighbours_es\.after_ratio of iso was above 1\.15/);
});

test('pairwise with a margin (times): lower than 1.15 x the other\'s, the values compared with the other\'s scaled', () => {
  const plan = { confidence: 0.95, expect: [{ claim: 'within 15% of the control', metric: 'p95_ms', form: 'pairwise', direction: 'lower', variants: ['iso', 'ctl'], times: 1.15 }] };
  // 5% above the control in every repetition: within the margin, every value under 1.15 x every control value
  let [v] = verdicts(plan, { iso: figs(105, 106, 104, 105.5), ctl: figs(100, 101, 99.5, 100.5) });
  assert.deepEqual([v.result, v.times, v.p_value], ['reproduced', 1.15, 1 / 70]);
  assert.match(v.test, /against the values of ctl x 1\.15$/);
  assert.match(v.reason, /^the p95_ms of iso was below 1\.15 x that of ctl in every repetition \(mean 105 ms vs 100 ms \(x1\.15: 115 ms\), ratio 1\.05 /);
  // 30% above it: not within 15%, said as the opposite
  [v] = verdicts(plan, { iso: figs(130, 131, 129, 130.5), ctl: figs(100, 101, 99.5, 100.5) });
  assert.equal(v.result, 'not_reproduced');
  assert.match(v.reason, /was above 1\.15 x that of ctl in every repetition/);
  // the same data without the margin: plainly higher
  [v] = verdicts({ ...plan, expect: [{ ...plan.expect[0], times: undefined }] }, { iso: figs(105, 106, 104, 105.5), ctl: figs(100, 101, 99.5, 100.5) });
  assert.equal(v.result, 'not_reproduced');
});

// ---- curves over a numeric variable: linear (appbase-write-scaling), peak (azure-shard-count)
const ing = (...docs) => docs.map((d) => ({ ingest: { docs_per_s: d } }));
const linearPlan = () => ({
  confidence: 0.95,
  expect: [{ claim: 'writes grow linearly with nodes', metric: 'docs_per_s', form: 'linear', direction: 'linear', variants: ['n1', 'n2', 'n3', 'n4'], x: [1, 2, 3, 4] }],
});

test('linear reproduced: a straight rise, the slope above 0 by its t-test, the line not rejected by its lack of fit', () => {
  const [v] = verdicts(linearPlan(), { n1: ing(1000, 1050, 980), n2: ing(2000, 2050, 1980), n3: ing(3010, 2990, 3050), n4: ing(4000, 3950, 4020) });
  assert.equal(v.result, 'reproduced');
  assert.equal(v.form, 'linear');
  assert.deepEqual(v.x, [1, 2, 3, 4]);
  assert.ok(v.statistic.slope > 900 && v.statistic.slope < 1100, `slope ${v.statistic.slope}`);
  assert.ok(v.statistic.r2 > 0.99);
  assert.ok(v.statistic.slope_low > 0);
  assert.ok(v.statistic.lack_of_fit.p > 0.05);
  assert.equal(v.statistic.cap_at, null);
  assert.match(v.reason, /rose in a line with x/);
});

test('linear not reproduced when it rises but bends (a laptop out of cores): the lack of fit says so, the cap is named', () => {
  const [v] = verdicts(linearPlan(), { n1: ing(1000, 1010, 990), n2: ing(1900, 1910, 1890), n3: ing(2100, 2110, 2090), n4: ing(2150, 2160, 2140) });
  assert.equal(v.result, 'not_reproduced');
  assert.match(v.reason, /rose with x but not in a line: lack of fit p = /);
  assert.equal(v.statistic.cap_at, 2);
});

test('linear not reproduced when it falls; inconclusive on noise', () => {
  const [flat] = verdicts(linearPlan(), { n1: ing(2000, 2010, 1990), n2: ing(1900, 1910, 1890), n3: ing(1800, 1810, 1790), n4: ing(1700, 1710, 1690) });
  assert.equal(flat.result, 'not_reproduced');
  assert.match(flat.reason, /did not rise with x/);
  const [noise] = verdicts(linearPlan(), { n1: ing(1000, 3000, 2000), n2: ing(3000, 1000, 2000), n3: ing(2000, 3000, 1000), n4: ing(1000, 2000, 3000) });
  assert.equal(noise.result, 'inconclusive');
});

const peakPlan = { confidence: 0.95, expect: [{ claim: 'a tipping point', metric: 'docs_per_s', form: 'peak', direction: 'peak', variants: ['s1', 's2', 's4', 's8', 's16'], x: [1, 2, 4, 8, 16] }] };

test('peak reproduced: a clear rise to an inner variant, then a clear fall (permutation test of the whole sweep)', () => {
  const [v] = verdicts(peakPlan, { s1: ing(100, 105, 102), s2: ing(200, 205, 198), s4: ing(300, 310, 305), s8: ing(250, 255, 248), s16: ing(150, 160, 155) });
  assert.equal(v.result, 'reproduced');
  assert.equal(v.statistic.peak_variant, 's4');
  assert.equal(v.statistic.peak_x, 4);
  assert.match(v.test, /permutation/);
  assert.match(v.reason, /rose to the best mean at x = 4 \(s4\), then fell/);
});

test('peak not reproduced when the best is an end of the sweep and the whole sweep trends to it', () => {
  const [v] = verdicts(peakPlan, { s1: ing(100, 105, 102), s2: ing(200, 205, 198), s4: ing(300, 310, 305), s8: ing(400, 410, 405), s16: ing(500, 510, 505) });
  assert.equal(v.result, 'not_reproduced');
  assert.equal(v.statistic.peak_variant, 's16');
  assert.match(v.reason, /no tipping point within the sweep/);
  const [first] = verdicts(peakPlan, { s1: ing(500, 505, 502), s2: ing(400, 405, 398), s4: ing(300, 310, 305), s8: ing(200, 210, 205), s16: ing(100, 110, 105) });
  assert.equal(first.result, 'not_reproduced');
  assert.match(first.reason, /the smallest x: no rise/);
});

test('peak inconclusive when the fall after an inner best is noise', () => {
  const [v] = verdicts(peakPlan, { s1: ing(100, 105, 102), s2: ing(200, 205, 198), s4: ing(300, 310, 305), s8: ing(305, 290, 299), s16: ing(280, 309, 300) });
  assert.equal(v.result, 'inconclusive');
});

test('the reasons name variants by their labels, as the report does; the machine fields keep their ids', () => {
  const plan = { ...pair(), variants: [{ name: '2x4', label: '2 indices x 4 shards' }, { name: '1x8', label: '1 index x 8 shards' }] };
  const [v] = verdicts(plan, { '2x4': figs(260, 270, 265, 262), '1x8': figs(700, 720, 730, 710) });
  assert.match(v.reason, /^the p95_ms of 2 indices x 4 shards was below that of 1 index x 8 shards in every repetition/);
  assert.deepEqual(v.variants, ['2x4', '1x8']);
  assert.deepEqual(Object.keys(v.means), ['2x4', '1x8']);
});
