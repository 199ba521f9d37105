import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  binomial, holm, jonckheereTerpstra, mannWhitneyU, mean, median, multinomial,
  normalSf, percentile, ranks, ratioCI, rsd, slopeTest, stdev, tMeanBound,
} from '../src/stats.js';

const close = (actual, expected, tol = 1e-9, what = '') => assert.ok(Math.abs(actual - expected) <= tol, `${what} ${actual} != ${expected} (tolerance ${tol})`);

test('descriptive figures', () => {
  const xs = [2, 4, 4, 4, 5, 5, 7, 9];
  assert.equal(mean(xs), 5);
  assert.equal(median(xs), 4.5);
  assert.equal(median([3, 1, 2]), 2);
  // sample standard deviation: sqrt(32 / 7); the population one would be 2
  close(stdev(xs), Math.sqrt(32 / 7));
  close(rsd(xs), (Math.sqrt(32 / 7) / 5) * 100);
  assert.ok(Number.isNaN(stdev([1])), 'no spread from one value');
  assert.ok(Number.isNaN(mean([])));
});

test('percentile interpolates linearly between order statistics (numpy default)', () => {
  assert.equal(percentile([1, 2, 3, 4], 25), 1.75);
  assert.equal(percentile([15, 20, 35, 40, 50], 40), 29);
  assert.equal(percentile([15, 20, 35, 40, 50], 0), 15);
  assert.equal(percentile([15, 20, 35, 40, 50], 100), 50);
  assert.equal(percentile([50, 15, 40, 20, 35], 50), 35, 'unsorted input');
  close(percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 95), 9.55);
});

test('counting helpers', () => {
  assert.equal(binomial(6, 3), 20);
  assert.equal(binomial(40, 20), 137846528820);
  assert.equal(binomial(5, 7), 0);
  assert.equal(multinomial([3, 3, 3, 3]), 369600);
  assert.equal(multinomial([2, 2, 2]), 90);
  assert.deepEqual(ranks([10, 20, 20, 30]), [1, 2.5, 2.5, 4]);
  close(normalSf(0), 0.5, 1e-7);
  close(normalSf(1.959963985), 0.025, 1e-7);
  close(normalSf(-1.644853627), 0.95, 1e-7);
});

test('Mann-Whitney U: complete separation of 3 vs 3 gives exact one-sided p = 1/20', () => {
  const r = mannWhitneyU([1, 2, 3], [4, 5, 6], { alternative: 'less' });
  assert.deepEqual(r, { u: 0, p: 0.05, method: 'exact', n1: 3, n2: 3 });
  assert.equal(mannWhitneyU([1, 2, 3], [4, 5, 6], { alternative: 'greater' }).p, 1);
  assert.equal(mannWhitneyU([1, 2, 3], [4, 5, 6]).p, 0.1, 'two-sided doubles the smaller tail');
  assert.equal(mannWhitneyU([4, 5, 6], [1, 2, 3], { alternative: 'greater' }).p, 0.05);
});

test('Mann-Whitney U: 2 vs 2 can never reach 0.05 (smallest one-sided p = 1/6)', () => {
  close(mannWhitneyU([1, 2], [3, 4], { alternative: 'less' }).p, 1 / 6);
  close(mannWhitneyU([1], [2], { alternative: 'less' }).p, 1 / 2);
});

test('Mann-Whitney U: scipy documentation example (males vs females)', () => {
  const males = [19, 22, 16, 29, 24];
  const females = [20, 11, 17, 12];
  // scipy.stats.mannwhitneyu(males, females, method="exact") -> statistic=17.0, pvalue=0.1111111111111111
  const exact = mannWhitneyU(males, females);
  assert.equal(exact.u, 17);
  close(exact.p, 0.1111111111111111, 1e-12);
  assert.equal(exact.method, 'exact');
  // method="asymptotic" (continuity correction) -> pvalue=0.11134688653314041
  const normal = mannWhitneyU(males, females, { method: 'normal' });
  assert.equal(normal.method, 'normal');
  close(normal.p, 0.11134688653314041, 1e-6);
  // one-sided: P(U >= 17) = P(U <= 3) = 7/126 (U counts 0..3 in a 4x5 box: 1 + 1 + 2 + 3)
  close(mannWhitneyU(males, females, { alternative: 'greater' }).p, 7 / 126, 1e-12);
});

test('Mann-Whitney U with ties: exact permutation p agrees with enumerating every split', () => {
  const a = [1, 2, 2, 3];
  const b = [2, 3, 4, 5];
  const r = mannWhitneyU(a, b, { alternative: 'less' });
  assert.equal(r.u, 2.5);
  // brute force: every way to pick 4 of the 8 pooled values as sample a
  const pooled = [...a, ...b];
  const uOf = (xs, ys) => xs.reduce((s, x) => s + ys.reduce((t, y) => t + (x > y ? 1 : x === y ? 0.5 : 0), 0), 0);
  let total = 0;
  let hits = 0;
  for (let mask = 0; mask < 256; mask++) {
    const bits = [...Array(8).keys()].filter((i) => mask & (1 << i));
    if (bits.length !== 4) continue;
    total++;
    const xs = bits.map((i) => pooled[i]);
    const ys = [...Array(8).keys()].filter((i) => !(mask & (1 << i))).map((i) => pooled[i]);
    if (uOf(xs, ys) <= 2.5) hits++;
  }
  assert.equal(total, 70);
  close(r.p, hits / total, 1e-12);
  assert.equal(r.p, 0.1);
});

test('Mann-Whitney U: normal approximation beyond 25 per sample, with tie correction', () => {
  const a = Array.from({ length: 30 }, (_, i) => i);
  const b = Array.from({ length: 30 }, (_, i) => i + 10);
  const r = mannWhitneyU(a, b, { alternative: 'less' });
  assert.equal(r.method, 'normal');
  // pairs (x in a, y in b) with x > y: for y = 10..28, 29 - y of them = 1 + ... + 19 = 190;
  // 20 shared values tie, a half each: U = 200
  assert.equal(r.u, 200);
  // mu = 450; sigma^2 = 900/12 * (61 - sum(t^3 - t)/(60*59)) with 20 pairs tied: sum = 20 * 6 = 120
  const sigma = Math.sqrt(75 * (61 - 120 / 3540));
  close(r.p, normalSf((900 - 200 - 450 - 0.5) / sigma), 1e-12);
  close(r.p, 1.12e-4, 1e-5, 'z = 249.5 / 67.6 = 3.69');
  // the exact distribution agrees closely at this size
  close(mannWhitneyU(a, b, { alternative: 'less', method: 'exact' }).p, r.p, 3e-4);
  assert.equal(mannWhitneyU([5, 5, 5], [5, 5, 5], { method: 'normal' }).p, 1, 'all tied: no evidence');
  assert.equal(mannWhitneyU([5, 5, 5], [5, 5, 5], { alternative: 'less' }).p, 1);
});

test('Mann-Whitney U rejects what is not a sample', () => {
  assert.throws(() => mannWhitneyU([], [1]), TypeError);
  assert.throws(() => mannWhitneyU([1, null], [1]), TypeError);
  assert.throws(() => mannWhitneyU([1], [2], { alternative: 'smaller' }), TypeError);
});

test('Jonckheere-Terpstra: hand-counted exact answers', () => {
  // three groups of one: 3! orders, J = 3 only for 1 < 2 < 3
  assert.deepEqual(jonckheereTerpstra([[1], [2], [3]]), { j: 3, jMax: 3, p: 1 / 6, method: 'exact' });
  // J = 1 (one pair in order): P(J >= 1) = 5/6
  close(jonckheereTerpstra([[3], [1], [2]]).p, 5 / 6, 1e-12);
  // three groups of two, perfectly ordered: one of 6!/(2!2!2!) = 90 splits
  close(jonckheereTerpstra([[1, 2], [3, 4], [5, 6]]).p, 1 / 90, 1e-12);
  // four groups of three, perfectly decreasing: one of 12!/(3!^4) = 369,600
  const dec = jonckheereTerpstra([[12, 11, 10], [9, 8, 7], [6, 5, 4], [3, 2, 1]], { alternative: 'decreasing' });
  assert.equal(dec.j, 54);
  assert.equal(dec.jMax, 54);
  close(dec.p, 1 / 369600, 1e-15);
  close(jonckheereTerpstra([[12, 11, 10], [9, 8, 7], [6, 5, 4], [3, 2, 1]], { alternative: 'increasing' }).p, 1, 1e-12);
});

test('Jonckheere-Terpstra with two groups is the one-sided Mann-Whitney test', () => {
  const a = [19, 22, 16, 29, 24];
  const b = [20, 11, 17, 12];
  close(jonckheereTerpstra([b, a], { alternative: 'increasing' }).p, mannWhitneyU(a, b, { alternative: 'greater' }).p, 1e-12);
  close(jonckheereTerpstra([a, b], { alternative: 'decreasing' }).p, mannWhitneyU(a, b, { alternative: 'greater' }).p, 1e-12);
});

test('Jonckheere-Terpstra with ties: exact enumeration, and a seeded Monte Carlo estimate that agrees', () => {
  const groups = [[1, 2, 2], [2, 3, 3], [3, 4, 4]];
  const exact = jonckheereTerpstra(groups);
  assert.equal(exact.method, 'exact');
  assert.equal(exact.j, 25);
  close(exact.p, 9 / 1680, 1e-12);
  // the no-ties convolution and the enumeration agree where both apply
  const untied = [[1, 2, 2.1], [2.2, 3, 3.1], [3.2, 4, 4.1]];
  close(jonckheereTerpstra(untied).p, 1 / 1680, 1e-12);

  const big = [[1, 2, 2, 3], [2, 3, 3, 4], [3, 4, 4, 5], [4, 5, 6, 6]]; // 63M splits: Monte Carlo
  const mc = jonckheereTerpstra(big, { seed: 3 });
  assert.equal(mc.method, 'monte-carlo');
  assert.ok(mc.draws >= 10000);
  assert.deepEqual(jonckheereTerpstra(big, { seed: 3 }), mc, 'the same seed, the same estimate');
  assert.ok(mc.p > 0 && mc.p < 0.001, `strong trend: ${mc.p}`);
  const weak = jonckheereTerpstra([[1, 2, 3, 3], [1, 2, 3, 3], [1, 2, 3, 3], [1, 2, 3, 3]], { seed: 3 });
  assert.ok(weak.p > 0.3, `no trend: ${weak.p}`);
  assert.throws(() => jonckheereTerpstra(big, { draws: 500 }), TypeError);
});

// referenceTQuantile(p, df): Student's t quantile by Simpson's rule on the density (x = tan u
// maps the line onto (-pi/2, pi/2)) and bisection: slow, plain, and independent of src/stats.js
function referenceTQuantile(p, df) {
  const dens = (x) => (1 + (x * x) / df) ** (-(df + 1) / 2);
  const simpson = (f, a, b, n = 20000) => {
    const h = (b - a) / n;
    let sum = f(a) + f(b);
    for (let i = 1; i < n; i++) sum += f(a + i * h) * (i % 2 ? 4 : 2);
    return (sum * h) / 3;
  };
  const onU = (u) => dens(Math.tan(u)) / Math.cos(u) ** 2;
  const half = simpson(onU, 0, Math.PI / 2 - 1e-9);
  const cdf = (x) => 0.5 + simpson(onU, 0, Math.atan(x), 4000) / (2 * half);
  let lo = 0, hi = 50;
  for (let i = 0; i < 60; i++) { const mid = (lo + hi) / 2; if (cdf(mid) < p) lo = mid; else hi = mid; }
  return (lo + hi) / 2;
}

test("Fieller's interval of the ratio of means: the roots of its quadratic, unbounded when the denominator may be zero", () => {
  // no spread: the interval is the ratio itself
  assert.deepEqual(ratioCI([1, 1, 1], [2, 2, 2]), { ratio: 0.5, low: 0.5, high: 0.5, unbounded: false, method: 'fieller' });
  const a = [48, 50, 52, 47, 53];
  const b = [220, 223, 226, 219, 227];
  const r = ratioCI(a, b);
  close(r.ratio, 250 / 1115, 1e-12);
  assert.ok(r.low < r.ratio && r.ratio < r.high, JSON.stringify(r));
  // each end solves (ma - q mb)^2 = t^2 (va + q^2 vb), t at the Welch-Satterthwaite df of the ratio
  const va = stdev(a) ** 2 / 5;
  const vb = stdev(b) ** 2 / 5;
  const df = (va + r.ratio ** 2 * vb) ** 2 / (va ** 2 / 4 + r.ratio ** 4 * vb ** 2 / 4);
  // t from a reference of its own (the density integrated numerically), not from the module
  // under test: a wrong quantile there would move both sides of the check together
  const t = referenceTQuantile(0.975, df);
  for (const q of [r.low, r.high]) close((50 - q * 223) ** 2, t * t * (va + q * q * vb), 1e-6, 'root');
  const wide = ratioCI(a, b, { confidence: 0.99 });
  assert.ok(wide.low <= r.low && wide.high >= r.high, '99% is at least as wide as 95%');
  assert.deepEqual(ratioCI([1, 2], [0, 0]), { ratio: null, low: null, high: null, unbounded: true, method: 'fieller' });
  assert.equal(ratioCI([10, 11, 12], [-1, 1, 2]).unbounded, true);
  assert.equal(ratioCI([10], [20, 21]).unbounded, true, 'one value: no spread to bound it by');
  // a numerator of zeros (azure-refresh's merge time at 30 s): the ratio is 0, its interval [0, 0]
  // (the df is 0/0 at r = 0; before, the interval came out NaN)
  assert.deepEqual(ratioCI([0, 0, 0, 0], [80000, 90000, 95000, 91000]), { ratio: 0, low: 0, high: 0, unbounded: false, method: 'fieller' });
  // and the denominator's spread still counts when it could be zero
  assert.equal(ratioCI([0, 0, 0], [-1, 1, 2]).unbounded, true);
});

test("Student's t bound of a mean: the one-sided bounds and p-values", () => {
  const b = tMeanBound([1, 2, 3, 4], 2);
  close(b.mean, 2.5, 1e-12);
  // t(0.95, 3) = 2.353363, se = 1.290994 / 2
  close(b.high, 2.5 + 2.353363 * 0.6454972, 1e-5);
  close(b.low, 2.5 - 2.353363 * 0.6454972, 1e-5);
  assert.ok(b.pBelow < 0.5 && b.pAbove > 0.5, 'the mean is above the limit');
  close(b.pAbove + b.pBelow, 1, 1e-12);
  assert.deepEqual(tMeanBound([3, 3, 3], 2), { mean: 3, low: 3, high: 3, pAbove: 1, pBelow: 0, df: 2 });
  assert.equal(tMeanBound([3], 2).high, Infinity);
});

test("a slope's t-test and the lack of fit of a line", () => {
  const line = slopeTest([1, 2, 3], [[1, 1.2], [2, 2.2], [3, 3.2]]);
  close(line.slope, 1, 1e-12);
  close(line.intercept, 0.1, 1e-12);
  assert.ok(line.pIncreasing < 0.001);
  close(line.lackOfFit.f, 0, 1e-9);
  close(line.lackOfFit.p, 1, 1e-9);
  const bent = slopeTest([1, 2, 3], [[1, 1.1], [3, 3.1], [3.2, 3.3]]);
  assert.ok(bent.lackOfFit.p < 0.01, `a bend: ${bent.lackOfFit.p}`);
  assert.equal(slopeTest([1, 2], [[1, 2], [3, 4]]).lackOfFit, null, 'two x values: no test of the line');
});

test("Holm's step-down adjustment", () => {
  const adj = holm([0.01, 0.04, 0.03]);
  close(adj[0], 0.03, 1e-12);
  close(adj[1], 0.06, 1e-12);
  close(adj[2], 0.06, 1e-12);
  assert.deepEqual(holm([0.5, null]), [0.5, null], 'a direction without a test is not counted');
  assert.deepEqual(holm([0.6, 0.9]), [1, 1], 'capped at 1, never below the step before');
});
