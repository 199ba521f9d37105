// The statistics behind a verdict: descriptive figures across repetitions, Mann-Whitney U for
// "A below B", Jonckheere-Terpstra for "falls along A, B, C", and a bootstrap interval of the
// ratio of means. Plain numbers only; the resampling draws from a seeded stream (the dataset
// package's mulberry32), so a report is the same every time it is rendered. Conventions follow
// scipy.stats (mannwhitneyu's U is the first sample's; `less` means the first sample tends to be
// smaller) so figures can be checked against it.
import { mulberry32 } from '@tenantlab/dataset/random';

export const sum = (xs) => xs.reduce((s, x) => s + x, 0);

export function mean(xs) {
  return xs.length ? sum(xs) / xs.length : NaN;
}

/** The p-th percentile (0..100), linear interpolation between order statistics (numpy's default). */
export function percentile(xs, p) {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const pos = (Math.min(Math.max(p, 0), 100) / 100) * (s.length - 1);
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return s[lo] + (s[hi] - s[lo]) * (pos - lo);
}

export const median = (xs) => percentile(xs, 50);

/** Sample standard deviation (n - 1); NaN below two values. */
export function stdev(xs) {
  if (xs.length < 2) return NaN;
  const m = mean(xs);
  return Math.sqrt(sum(xs.map((x) => (x - m) ** 2)) / (xs.length - 1));
}

/** Relative standard deviation in percent of the mean (as OpenSearch Benchmark reports it). */
export function rsd(xs) {
  const m = mean(xs);
  return m === 0 ? NaN : (stdev(xs) / Math.abs(m)) * 100;
}

/** n choose k as a float (exact while below 2^53). */
export function binomial(n, k) {
  if (k < 0 || k > n) return 0;
  let r = 1;
  for (let i = 1; i <= Math.min(k, n - k); i++) r = (r * (n - Math.min(k, n - k) + i)) / i;
  return Math.round(r);
}

/** The number of distinct ways to split sum(sizes) values into groups of these sizes. */
export function multinomial(sizes) {
  let total = 0;
  let r = 1;
  for (const n of sizes) {
    total += n;
    r *= binomial(total, n);
  }
  return r;
}

// erfc with fractional error below 1.2e-7 (Numerical Recipes' erfcc, Chebyshev fit)
function erfc(x) {
  const z = Math.abs(x);
  const t = 1 / (1 + 0.5 * z);
  const r = t * Math.exp(-z * z - 1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418
    + t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))));
  return x >= 0 ? r : 2 - r;
}

/** P(Z > z) for a standard normal Z. */
export const normalSf = (z) => 0.5 * erfc(z / Math.SQRT2);

/** Midranks (1-based; tied values share the mean of their ranks) of xs, in xs's order. */
export function ranks(xs) {
  const idx = xs.map((x, i) => i).sort((i, j) => xs[i] - xs[j]);
  const out = new Array(xs.length);
  for (let i = 0; i < idx.length;) {
    let j = i;
    while (j + 1 < idx.length && xs[idx[j + 1]] === xs[idx[i]]) j++;
    for (let k = i; k <= j; k++) out[idx[k]] = (i + j + 2) / 2;
    i = j + 1;
  }
  return out;
}

function checkSample(xs, what) {
  if (!Array.isArray(xs) || xs.length === 0 || !xs.every((x) => typeof x === 'number' && Number.isFinite(x))) {
    throw new TypeError(`${what} must be a non-empty list of finite numbers`);
  }
}

const ALTERNATIVES = ['less', 'greater', 'two-sided'];
// Exact below this many distinct splits of the pooled sample (C(40, 20), 20 vs 20 repetitions,
// is 1.4e11 and still exact); the counts are doubles, exact up to 2^53.
const EXACT_MAX_SPLITS = 1e15;
const EXACT_MAX_N = 25;

/**
 * Mann-Whitney U test of samples a and b. u is a's statistic: pairs (x in a, y in b) with x > y,
 * ties counting a half (scipy's U1). alternative 'less': a tends to be smaller than b (u small).
 * Exact (the permutation distribution of a's rank sum, ties included, by dynamic programming)
 * while both samples have at most 25 values; beyond, the normal approximation with tie and
 * continuity correction, as scipy's 'asymptotic'. `method` forces one: 'exact' | 'normal'.
 * -> { u, p, method: 'exact'|'normal', n1, n2 }
 */
export function mannWhitneyU(a, b, { alternative = 'two-sided', method = 'auto' } = {}) {
  checkSample(a, 'a');
  checkSample(b, 'b');
  if (!ALTERNATIVES.includes(alternative)) throw new TypeError(`alternative must be one of ${ALTERNATIVES.join(', ')}`);
  const n1 = a.length;
  const n2 = b.length;
  const r = ranks([...a, ...b]);
  const r1 = sum(r.slice(0, n1));
  const u = r1 - (n1 * (n1 + 1)) / 2;
  const exact = method === 'exact' || (method === 'auto' && n1 <= EXACT_MAX_N && n2 <= EXACT_MAX_N && binomial(n1 + n2, n1) <= EXACT_MAX_SPLITS);
  const p = exact ? mwuExactP(r, n1, u, alternative) : mwuNormalP(r, n1, n2, u, alternative);
  return { u, p: Math.min(1, p), method: exact ? 'exact' : 'normal', n1, n2 };
}

// P-value from the exact distribution of the first sample's rank sum over every split of the
// pooled midranks (doubled so they are integers): ways[k][s] = splits of the first i values that
// put k of them in sample a with doubled rank sum s.
function mwuExactP(r, n1, u, alternative) {
  const r2 = r.map((x) => Math.round(x * 2));
  const maxSum = sum([...r2].sort((x, y) => y - x).slice(0, n1));
  const ways = Array.from({ length: n1 + 1 }, () => new Float64Array(maxSum + 1));
  ways[0][0] = 1;
  r2.forEach((rank, i) => {
    for (let k = Math.min(i + 1, n1); k >= 1; k--) {
      const from = ways[k - 1];
      const to = ways[k];
      for (let s = maxSum - rank; s >= 0; s--) if (from[s]) to[s + rank] += from[s];
    }
  });
  const total = binomial(r.length, n1);
  const u2obs = Math.round(u * 2);
  const offset = n1 * (n1 + 1); // doubled n1(n1+1)/2
  let le = 0;
  let ge = 0;
  ways[n1].forEach((count, s) => {
    if (!count) return;
    const u2 = s - offset;
    if (u2 <= u2obs) le += count;
    if (u2 >= u2obs) ge += count;
  });
  if (alternative === 'less') return le / total;
  if (alternative === 'greater') return ge / total;
  return Math.min(1, (2 * Math.min(le, ge)) / total);
}

function mwuNormalP(r, n1, n2, u, alternative) {
  const n = n1 + n2;
  const mu = (n1 * n2) / 2;
  const tieTerm = sum(tieSizes(r).map((t) => t ** 3 - t));
  const sigma = Math.sqrt(((n1 * n2) / 12) * (n + 1 - tieTerm / (n * (n - 1))));
  if (sigma === 0) return 1; // every value tied: no evidence either way
  if (alternative === 'greater') return normalSf((u - mu - 0.5) / sigma);
  if (alternative === 'less') return normalSf((n1 * n2 - u - mu - 0.5) / sigma);
  return 2 * normalSf((Math.max(u, n1 * n2 - u) - mu - 0.5) / sigma);
}

function tieSizes(values) {
  const counts = new Map();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  return [...counts.values()].filter((t) => t > 1);
}

// Exact U distribution without ties: counts of U = 0..n1*n2 are the coefficients of the Gaussian
// binomial [n1+n2 choose n1]_q = prod_{i=1..n1} (1 - q^(n2+i)) / (1 - q^i).
function uCounts(n1, n2) {
  let poly = [1];
  for (let i = 1; i <= n1; i++) {
    const k = n2 + i;
    const next = new Array(i * n2 + 1 + i).fill(0);
    poly.forEach((c, j) => {
      next[j] += c;
      next[j + k] -= c;
    });
    for (let j = i; j < next.length; j++) next[j] += next[j - i];
    poly = next.slice(0, i * n2 + 1);
  }
  return poly;
}

const TREND_ALTERNATIVES = ['increasing', 'decreasing'];
const JT_ENUMERATE_MAX = 500000;
export const JT_DRAWS = 20000;

/**
 * Jonckheere-Terpstra test for an ordered trend across groups (each group: one variant's values
 * across repetitions, in the expected order). alternative 'decreasing': values fall from the
 * first group to the last. j counts, over every pair of groups i < k, the pairs of values in the
 * expected direction (ties a half); jMax is the count if every pair were. The p-value is exact
 * when no value is tied (the null distribution of J is the convolution of independent
 * Mann-Whitney distributions, group k against all groups before it), exact by enumerating every
 * split when tied and there are at most 500,000 splits, otherwise a seeded Monte Carlo
 * permutation estimate from `draws` (>= 10,000) shuffles.
 * -> { j, jMax, p, method: 'exact'|'monte-carlo', draws? }
 */
export function jonckheereTerpstra(groups, { alternative = 'increasing', draws = JT_DRAWS, seed = 1 } = {}) {
  if (!Array.isArray(groups) || groups.length < 2) throw new TypeError('groups must be a list of at least two samples');
  groups.forEach((g, i) => checkSample(g, `groups[${i}]`));
  if (!TREND_ALTERNATIVES.includes(alternative)) throw new TypeError(`alternative must be one of ${TREND_ALTERNATIVES.join(', ')}`);
  if (!(draws >= 10000)) throw new TypeError('draws must be at least 10000');
  // a decreasing trend is an increasing one of the negated values
  const gs = alternative === 'decreasing' ? groups.map((g) => g.map((x) => -x)) : groups;
  const sizes = gs.map((g) => g.length);
  const pooled = gs.flat();
  const labels = sizes.flatMap((n, i) => new Array(n).fill(i));
  const j2 = jDoubled(pooled, labels);
  let jMax = 0;
  for (let i = 0; i < sizes.length; i++) for (let k = i + 1; k < sizes.length; k++) jMax += sizes[i] * sizes[k];
  const out = { j: j2 / 2, jMax };
  if (tieSizes(pooled).length === 0) return { ...out, p: jtExactNoTies(sizes, j2 / 2), method: 'exact' };
  if (multinomial(sizes) <= JT_ENUMERATE_MAX) return { ...out, p: jtEnumerate(pooled, sizes, j2), method: 'exact' };
  const next = mulberry32(seed);
  const perm = [...labels];
  let hits = 0;
  for (let d = 0; d < draws; d++) {
    for (let i = perm.length - 1; i > 0; i--) {
      const k = Math.floor(next() * (i + 1));
      [perm[i], perm[k]] = [perm[k], perm[i]];
    }
    if (jDoubled(pooled, perm) >= j2) hits++;
  }
  return { ...out, p: (hits + 1) / (draws + 1), method: 'monte-carlo', draws };
}

// 2 * J for values labelled with their group: pairs in increasing group order, x < y counting 2, ties 1
function jDoubled(values, labels) {
  let j2 = 0;
  for (let p = 0; p < values.length; p++) {
    for (let q = 0; q < values.length; q++) {
      if (labels[p] < labels[q]) j2 += values[p] < values[q] ? 2 : values[p] === values[q] ? 1 : 0;
    }
  }
  return j2;
}

function jtExactNoTies(sizes, j) {
  // J = sum over k >= 1 of U(groups before k < group k); independent under the null hypothesis
  let dist = [1];
  let before = sizes[0];
  for (const n of sizes.slice(1)) {
    const counts = uCounts(before, n);
    const total = binomial(before + n, n);
    const next = new Array(dist.length + counts.length - 1).fill(0);
    dist.forEach((pa, x) => counts.forEach((c, y) => {
      next[x + y] += pa * (c / total);
    }));
    dist = next;
    before += n;
  }
  let p = 0;
  for (let x = Math.ceil(j - 1e-9); x < dist.length; x++) p += dist[x];
  return p;
}

function jtEnumerate(pooled, sizes, j2obs) {
  const n = pooled.length;
  // cmp2[p][q]: doubled contribution of value p in a lower group than value q
  const cmp2 = pooled.map((x) => pooled.map((y) => (x < y ? 2 : x === y ? 1 : 0)));
  const left = [...sizes];
  const label = new Array(n);
  let total = 0;
  let hits = 0;
  const walk = (p, j2) => {
    if (p === n) {
      total++;
      if (j2 >= j2obs) hits++;
      return;
    }
    for (let g = 0; g < left.length; g++) {
      if (!left[g]) continue;
      let add = 0;
      for (let q = 0; q < p; q++) {
        if (label[q] < g) add += cmp2[q][p];
        else if (label[q] > g) add += cmp2[p][q];
      }
      left[g]--;
      label[p] = g;
      walk(p + 1, j2 + add);
      left[g]++;
    }
  };
  walk(0, 0);
  return hits / total;
}

/**
 * Percentile bootstrap confidence interval of mean(a) / mean(b): both samples resampled with
 * replacement `iterations` times from a seeded stream. -> { ratio, low, high }; all null when
 * mean(b) is 0 (no ratio).
 */
export function bootstrapRatioCI(a, b, { confidence = 0.95, iterations = 10000, seed = 1 } = {}) {
  checkSample(a, 'a');
  checkSample(b, 'b');
  const mb = mean(b);
  if (mb === 0) return { ratio: null, low: null, high: null };
  const next = mulberry32(seed);
  const resampledMean = (xs) => {
    let s = 0;
    for (let i = 0; i < xs.length; i++) s += xs[Math.floor(next() * xs.length)];
    return s / xs.length;
  };
  const ratios = [];
  for (let i = 0; i < iterations; i++) {
    const ra = resampledMean(a);
    const rb = resampledMean(b);
    if (rb !== 0) ratios.push(ra / rb);
  }
  const tail = ((1 - confidence) / 2) * 100;
  return { ratio: mean(a) / mb, low: percentile(ratios, tail), high: percentile(ratios, 100 - tail) };
}

/**
 * One sample against a bound (a spec's `at_most` / `at_least`): the bootstrap distribution of
 * the sample's mean (percentile method, seeded). -> { mean, low, high, pAbove, pBelow }, where
 * low and high are the one-sided bounds at `confidence` (the mean is above low, below high,
 * with that confidence) and pAbove / pBelow the share of resampled means above / below `limit`.
 */
export function bootstrapMeanBound(xs, limit, { confidence = 0.95, iterations = 10000, seed = 1 } = {}) {
  checkSample(xs, 'xs');
  const next = mulberry32(seed);
  const means = [];
  for (let i = 0; i < iterations; i++) {
    let s = 0;
    for (let j = 0; j < xs.length; j++) s += xs[Math.floor(next() * xs.length)];
    means.push(s / xs.length);
  }
  const above = means.filter((m) => m > limit).length / iterations;
  const below = means.filter((m) => m < limit).length / iterations;
  return { mean: mean(xs), low: percentile(means, (1 - confidence) * 100), high: percentile(means, confidence * 100), pAbove: above, pBelow: below };
}
