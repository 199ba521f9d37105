// The statistics behind a verdict: descriptive figures across repetitions, Mann-Whitney U for
// "A below B", Jonckheere-Terpstra for "falls along A, B, C", Fieller's interval of the ratio of
// means, Student's t for a mean against a bound and for a slope, Holm's correction of a family.
// Plain numbers only; every permutation draws from a seeded stream (the dataset package's
// mulberry32), so a report is the same every time it is rendered. Conventions follow
// scipy.stats (mannwhitneyu's U is the first sample's; `less` means the first sample tends to be
// smaller) so figures can be checked against it.
import { mulberry32 } from '@tenantlab/dataset/random';
import fCdf from '@stdlib/stats-base-dists-f-cdf';
import studentTCdf from '@stdlib/stats-base-dists-t-cdf';
import studentTQuantile from '@stdlib/stats-base-dists-t-quantile';

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

/** Student's t: P(T <= x) with df degrees of freedom, and its quantile (@stdlib). */
export const tCdf = (x, df) => studentTCdf(x, df);
export const tQuantile = (p, df) => studentTQuantile(p, df);

// sample variance of the mean (s^2 / n); NaN below two values
const varOfMean = (xs) => (xs.length < 2 ? NaN : stdev(xs) ** 2 / xs.length);

/**
 * Two-sided confidence interval of mean(a) / mean(b) by Fieller's theorem for independent samples
 * with unequal variances (degrees of freedom by Welch-Satterthwaite at the estimated ratio). It
 * holds its coverage at 3 or 4 repetitions where a percentile bootstrap covered 80-86%, and a
 * denominator that cannot be told from zero at this confidence makes the interval unbounded
 * (low and high null, `unbounded: true`) instead of dropping the resamples that hit zero.
 * -> { ratio, low, high, unbounded, method: 'fieller' }; ratio null when mean(b) is 0.
 */
export function ratioCI(a, b, { confidence = 0.95 } = {}) {
  checkSample(a, 'a');
  checkSample(b, 'b');
  const ma = mean(a);
  const mb = mean(b);
  const out = (ratio, low, high) => ({ ratio, low, high, unbounded: low === null || high === null, method: 'fieller' });
  if (mb === 0) return out(null, null, null);
  const ratio = ma / mb;
  if (a.length < 2 || b.length < 2) return out(ratio, null, null);
  const va = varOfMean(a);
  const vb = varOfMean(b);
  if (va === 0 && vb === 0) return out(ratio, ratio, ratio);
  // Welch-Satterthwaite; at r = 0 with a spread-free numerator (azure-refresh: no merge at all
  // at 30 s) it is 0/0, and its limit is the denominator's degrees of freedom
  const dfOf = (r) => {
    const den = (va ** 2) / (a.length - 1) + (r ** 4 * vb ** 2) / (b.length - 1);
    return den > 0 ? (va + r * r * vb) ** 2 / den : (va === 0 ? b.length - 1 : a.length - 1);
  };
  const t = tQuantile(1 - (1 - confidence) / 2, dfOf(ratio));
  // (ma - r mb)^2 = t^2 (va + r^2 vb), a quadratic in r
  const A = mb * mb - t * t * vb;
  if (A <= 0) return out(ratio, null, null);
  const B = -2 * ma * mb;
  const C = ma * ma - t * t * va;
  const root = Math.sqrt(Math.max(0, B * B - 4 * A * C));
  return out(ratio, (-B - root) / (2 * A), (-B + root) / (2 * A));
}

/**
 * One sample's mean against a limit (a spec's `at_most` / `at_least`): Student's t, one-sided.
 * -> { mean, low, high, pAbove, pBelow, df }: low and high are the one-sided bounds at
 * `confidence` (the mean is above low, below high, with that confidence); pAbove is the p-value
 * of "the mean is below the limit" (small when it clearly is), pBelow of "above". A sample with
 * no spread is decided by its mean alone; one value gives no bound (low -Infinity, high Infinity).
 */
export function tMeanBound(xs, limit, { confidence = 0.95 } = {}) {
  checkSample(xs, 'xs');
  const m = mean(xs);
  const df = xs.length - 1;
  if (df < 1) return { mean: m, low: -Infinity, high: Infinity, pAbove: 1, pBelow: 1, df };
  const se = Math.sqrt(varOfMean(xs));
  // no spread (every repetition the same, e.g. no rejection at all): the mean decides exactly
  if (se === 0) return { mean: m, low: m, high: m, pAbove: m <= limit ? 0 : 1, pBelow: m >= limit ? 0 : 1, df };
  const q = tQuantile(confidence, df);
  const t = (m - limit) / se;
  return { mean: m, low: m - q * se, high: m + q * se, pAbove: tCdf(t, df), pBelow: 1 - tCdf(t, df), df };
}

/**
 * Least squares of y over x with every repetition a point, and two tests: the slope's one-sided
 * t-tests (df = points - 2), and the lack of fit of a straight line against the repetitions' own
 * spread at each x (the pure-error F test; needs three x values and a repeated one).
 * -> { slope, intercept, se, df, pIncreasing, pDecreasing, low, high (one-sided bounds of the
 *   slope at `confidence`), lackOfFit: { f, df1, df2, p } | null }
 */
export function slopeTest(x, groups, { confidence = 0.95 } = {}) {
  const pts = groups.flatMap((g, i) => g.map((y) => [x[i], y]));
  const n = pts.length;
  const mx = mean(pts.map((p) => p[0]));
  const my = mean(pts.map((p) => p[1]));
  const sxx = sum(pts.map(([px]) => (px - mx) ** 2));
  const slope = sum(pts.map(([px, py]) => (px - mx) * (py - my))) / sxx;
  const intercept = my - slope * mx;
  const sse = sum(pts.map(([px, py]) => (py - intercept - slope * px) ** 2));
  const df = n - 2;
  const se = df > 0 ? Math.sqrt(sse / df / sxx) : NaN;
  let pIncreasing = 1;
  let pDecreasing = 1;
  let low = -Infinity;
  let high = Infinity;
  if (df > 0 && se > 0) {
    const t = slope / se;
    pIncreasing = 1 - tCdf(t, df);
    pDecreasing = tCdf(t, df);
    const q = tQuantile(confidence, df);
    low = slope - q * se;
    high = slope + q * se;
  } else if (df > 0) {
    pIncreasing = slope > 0 ? 0 : 1;
    pDecreasing = slope < 0 ? 0 : 1;
    low = slope;
    high = slope;
  }
  const ssPure = sum(groups.map((g) => sum(g.map((y) => (y - mean(g)) ** 2))));
  const df1 = groups.length - 2;
  const df2 = n - groups.length;
  let lackOfFit = null;
  if (df1 >= 1 && df2 >= 1) {
    const ssLack = Math.max(0, sse - ssPure);
    if (ssPure === 0) lackOfFit = { f: ssLack > 0 ? Infinity : 0, df1, df2, p: ssLack > 0 ? 0 : 1 };
    else {
      const f = (ssLack / df1) / (ssPure / df2);
      lackOfFit = { f, df1, df2, p: 1 - fCdf(f, df1, df2) };
    }
  }
  return { slope, intercept, se, df, pIncreasing, pDecreasing, low, high, lackOfFit };
}

/**
 * Holm's step-down adjustment of a family's p-values (nulls stay null, and are not counted):
 * the smallest p times m, the next times m - 1, ..., each at least the one before, at most 1.
 * Controls the chance of any false claim in the family at the level, as Bonferroni does, with
 * more power.
 */
export function holm(ps) {
  const idx = ps.map((p, i) => [p, i]).filter(([p]) => p !== null && p !== undefined && Number.isFinite(p)).sort((x, y) => x[0] - y[0]);
  const m = idx.length;
  const out = ps.map((p) => (p === null || p === undefined || !Number.isFinite(p) ? null : p));
  let running = 0;
  idx.forEach(([p, i], rank) => {
    running = Math.max(running, Math.min(1, (m - rank) * p));
    out[i] = running;
  });
  return out;
}

/** Standard normal draws from a seeded uniform stream (Box-Muller), for the calibration tests and the planner. */
export function normalStream(seed) {
  const next = mulberry32(seed);
  let spare = null;
  return () => {
    if (spare !== null) {
      const s = spare;
      spare = null;
      return s;
    }
    let u = 0;
    while (u === 0) u = next();
    const v = next();
    const r = Math.sqrt(-2 * Math.log(u));
    spare = r * Math.sin(2 * Math.PI * v);
    return r * Math.cos(2 * Math.PI * v);
  };
}

/** R² of the variants' means against a fitted line { slope, intercept } (the curve a report draws); 0 when the means do not vary. */
export function rSquaredOfMeans(x, groups, { slope, intercept }) {
  const means = groups.map((g) => mean(g));
  const m = mean(means);
  const ssTot = sum(means.map((y) => (y - m) ** 2));
  if (ssTot === 0) return 0;
  const ssRes = sum(means.map((y, i) => (y - intercept - slope * x[i]) ** 2));
  return 1 - ssRes / ssTot;
}
