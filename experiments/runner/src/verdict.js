// The verdict of each expected direction, computed from the repetitions' figures, never written
// by hand. The protocol, stated in every report (protocolText):
// - Each form is a test whose false-positive rate is at most its level (checked by simulation
//   in test/calibration.test.js): Mann-Whitney U (pairwise), Jonckheere-Terpstra (trend), Student's
//   t on the mean (bound), the slope's t-test with a lack-of-fit F test (linear), a permutation
//   test of the whole sweep (peak).
// - The directions of one experiment are one family: their p-values are adjusted with Holm's
//   step-down method, the expected directions' and the opposite directions' each as a family.
// - Figures of the same windows (average and p95) are one direction with two figures: it holds
//   when every figure holds (the larger p decides), the opposite when every figure shows it.
// - A form declares the repetitions it needs (minRepetitions): below them no verdict is given.
//   In a family of m directions the level a test must reach first is Holm's first step, alpha / m,
//   so the minimum is taken there (familyLevel): 4 against 4 reaches 0.05 with one repetition out
//   of order, but not 0.05 / 2.
// Decision at the spec's confidence c (level 1 - c), on the adjusted p-values:
//   p <= 1 - c in the expected direction  -> reproduced
//   p <= 1 - c in the opposite direction  -> not_reproduced (the article's direction does not hold here: a result too)
//   otherwise                             -> inconclusive (and why)
// A missing figure (a failed or incomplete repetition) makes that direction inconclusive: a test
// on the repetitions that happened to succeed would no longer be the planned one.
import { alphaOf, fmtNumber, fmtP, fmtWithUnit } from './format.js';
import { metricDef, metricValue } from './metrics.js';
import { mulberry32 } from '@tenantlab/dataset/random';
import { binomial, holm, jonckheereTerpstra, mannWhitneyU, mean, multinomial, ratioCI, rSquaredOfMeans, slopeTest, tMeanBound } from './stats.js';

// p-values are exact fractions like 1/20 compared with a level like 1 - 0.95 in floats
const EPS = 1e-12;
const OPPOSITE = { lower: 'higher', higher: 'lower', decreasing: 'increasing', increasing: 'decreasing' };
const WORD = { lower: 'below', higher: 'above', decreasing: 'fell', increasing: 'rose' };
export const PEAK_DRAWS = 2000;

/** FNV-1a: a permutation seed per expectation, so the same results always render the same verdict. */
function seedOf(text) {
  let h = 0x811c9dc5;
  for (const ch of text) h = Math.imul(h ^ ch.charCodeAt(0), 0x01000193) >>> 0;
  return h;
}

/**
 * The repetitions per variant a direction needs before it may give a verdict at level alpha.
 * Rank tests (pairwise, trend): the smallest equal count at which a result with one repetition
 * out of order (one adjacent pair swapped) still reaches alpha: k / (ways to split the values) <=
 * alpha; for Mann-Whitney at 0.05 that is 4 per side (3 against 3 reaches 0.05 only with every
 * repetition in order, one swap gives 0.1). Student's t (bound): 4 (3 degrees of freedom; below,
 * the bound is too wide to hold anything a laptop measures). A line: 3 per x (the lack-of-fit
 * test needs the repetitions' own spread at every x). A peak: 3 per variant (a permutation test
 * of the whole sweep, whose smallest p at 3 x 3 values is below 0.001).
 * -> { repetitions, why }
 */
export function minRepetitions(e, alpha) {
  if (e.form === 'bound') return { repetitions: 4, why: "Student's t on the mean needs 4 repetitions (3 degrees of freedom)" };
  if (e.form === 'linear') return { repetitions: 3, why: 'the lack-of-fit test of a line needs 3 repetitions at every x' };
  if (e.form === 'peak') return { repetitions: 3, why: 'the permutation test of a peak needs 3 repetitions of every variant' };
  const k = e.variants.length;
  const test = e.form === 'pairwise' ? 'Mann-Whitney' : 'Jonckheere-Terpstra';
  for (let r = 2; r <= 20; r++) {
    const splits = k === 2 ? binomial(2 * r, r) : multinomial(new Array(k).fill(r));
    if (k / splits <= alpha + EPS) return { repetitions: r, why: `a one-sided ${test} test reaches ${levelText(alpha)} with one repetition out of order from ${r} repetitions of each of its ${k} variants` };
  }
  return { repetitions: 20, why: `a ${test} test of ${k} variants` };
}

/**
 * The level each direction of a plan must be able to reach: Holm's first step, the spec's level
 * divided by the number of directions (one family). A design whose smallest possible p-value is
 * above it gives no verdict in that family whatever it measures.
 */
export function familyLevel(plan) {
  return alphaOf(plan.confidence) / Math.max(1, plan.expect.length);
}

// why the level is below the spec's, said where a minimum is named
function familyNote(plan) {
  const m = plan.expect.length;
  return m > 1 ? ` (Holm's first step in a family of ${m} directions: ${alphaOf(plan.confidence)} / ${m})` : '';
}

/** The largest minRepetitions over a plan's directions, at its family level -> { repetitions, why } (why names the direction). */
export function planMinimum(plan) {
  const level = familyLevel(plan);
  let best = { repetitions: 1, why: null };
  for (const e of plan.expect) {
    const m = minRepetitions(e, level);
    if (m.repetitions > best.repetitions) best = { repetitions: m.repetitions, why: `"${e.claim}": ${m.why}${familyNote(plan)}` };
  }
  return best;
}

// 0.05 / 3 reads as what it is, not as 0.016666666666666666
function levelText(level) {
  return Number(level.toPrecision(3)).toString();
}

function valuesOf(figures, reasons, variant, metric) {
  const reps = figures[variant];
  if (!Array.isArray(reps) || reps.length === 0) return { missing: `no repetition of ${variant} has figures` };
  const values = [];
  for (let i = 0; i < reps.length; i++) {
    const v = reps[i] ? metricValue(reps[i], metric) : null;
    if (v === null) {
      // a complete repetition may still lack a figure its window could not hold (a move that
      // ended after the window has no "after")
      const why = reasons?.[variant]?.[i] ?? (reps[i] ? 'not measured within its window' : 'failed or incomplete');
      return { missing: `${variant}'s repetition ${i + 1} has no ${metric} figure (${why})` };
    }
    values.push(v);
  }
  return { values };
}

const ratioEffect = (ci, of) => ({ ratio: ci.ratio, ci_low: ci.low, ci_high: ci.high, unbounded: ci.unbounded, method: 'Fieller', ...(of ? { of } : {}) });

// --- the forms: each -> { base: { test, p_value, p_value_opposite, statistic, means, effect }, say } ---

// `times` (a margin, e.g. 1.15: "lower than 1.15 x the other's", within 15% of it): the test
// compares the subject's values with the other's scaled by it, a non-inferiority test on the
// ratio; its level holds when the two differ by a scale (test/calibration.test.js)
function pairwiseOne(e, metric, samples, confidence) {
  const [subject, than] = e.variants;
  const k = e.times ?? 1;
  const [a, b] = [samples[subject], samples[than]];
  const bk = b.map((x) => x * k);
  const alt = { lower: 'less', higher: 'greater' };
  const expected = mannWhitneyU(a, bk, { alternative: alt[e.direction] });
  const opposite = mannWhitneyU(a, bk, { alternative: alt[OPPOSITE[e.direction]] });
  const ci = ratioCI(a, b, { confidence });
  const { unit } = metricDef(metric);
  const scaled = k === 1 ? '' : ` (x${fmtNumber(k)}: ${fmtWithUnit(mean(bk), unit)})`;
  const means = `mean ${fmtWithUnit(mean(a), unit)} vs ${fmtWithUnit(mean(b), unit)}${scaled}`;
  const separated = (dir) => (dir === 'lower' ? Math.max(...a) < Math.min(...bk) : Math.min(...a) > Math.max(...bk));
  const L = e.label ?? ((v) => v);
  const of = k === 1 ? `that of ${L(than)}` : `${fmtNumber(k)} x that of ${L(than)}`;
  return {
    metric,
    test: `Mann-Whitney U, one-sided, ${expected.method === 'normal' ? 'normal approximation' : 'exact'}${k === 1 ? '' : `, against the values of ${L(than)} x ${fmtNumber(k)}`}`,
    p_value: expected.p,
    p_value_opposite: opposite.p,
    statistic: { u: expected.u },
    means: { [subject]: mean(a), [than]: mean(b) },
    effect: ratioEffect(ci),
    said: (dir) => `the ${metric} of ${L(subject)} was ${WORD[dir]} ${of}${separated(dir) ? ' in every repetition' : ''} (${means}, ratio ${fmtNumber(ci.ratio)} ${ciText(ci, confidence)})`,
    means_text: means,
  };
}

function trendOne(e, metric, samples, confidence) {
  const groups = e.variants.map((v) => samples[v]);
  const seed = seedOf(`${metric}:${e.variants}`);
  const expected = jonckheereTerpstra(groups, { alternative: e.direction, seed });
  const opposite = jonckheereTerpstra(groups, { alternative: OPPOSITE[e.direction], seed });
  const first = e.variants[0];
  const last = e.variants[e.variants.length - 1];
  const ci = ratioCI(samples[last], samples[first], { confidence });
  const { unit } = metricDef(metric);
  const means = `means ${groups.map((g) => fmtNumber(mean(g))).join(', ')}${unit && unit !== 'ratio' ? ` ${unit}` : ''}`;
  const L = e.label ?? ((v) => v);
  const along = e.variants.map(L).join(', ');
  return {
    metric,
    test: expected.method === 'monte-carlo' ? `Jonckheere-Terpstra, one-sided, Monte Carlo (${expected.draws} permutations)` : 'Jonckheere-Terpstra, one-sided, exact',
    p_value: expected.p,
    p_value_opposite: opposite.p,
    statistic: { j: expected.j, j_max: expected.jMax },
    means: Object.fromEntries(e.variants.map((v, i) => [v, mean(groups[i])])),
    effect: ratioEffect(ci, `${last}/${first}`),
    said: (dir) => `${metric} ${WORD[dir]} along ${along} (${means}; J = ${fmtNumber(expected.j)} of ${expected.jMax}; ${L(last)} / ${L(first)} ${fmtNumber(ci.ratio)} ${ciText(ci, confidence)})`,
    means_text: means,
  };
}

const ciText = (ci, confidence) => (ci.ratio === null ? '' : ci.unbounded ? `(${Math.round(confidence * 100)}% interval unbounded)` : `(${Math.round(confidence * 100)}% interval ${fmtNumber(ci.low)} to ${fmtNumber(ci.high)})`);

// pairwise and trend, over one or more figures of the same windows: every figure's test, the
// larger p of each side decides (an intersection-union test: no correction needed)
function ranked(one) {
  return (e, samplesByMetric, confidence) => {
    const metrics = e.metrics ?? [e.metric];
    const L = e.label ?? ((v) => v);
    const each = metrics.map((m) => one(e, m, samplesByMetric[m], confidence));
    const [first] = each;
    const p = Math.max(...each.map((x) => x.p_value));
    const pOpp = Math.max(...each.map((x) => x.p_value_opposite));
    const both = (fn) => each.map(fn).join('; and ');
    const base = {
      test: first.test + (each.length > 1 ? `, on each of ${metrics.join(' and ')} (the larger p decides)` : ''),
      p_value: p,
      p_value_opposite: pOpp,
      statistic: first.statistic,
      means: first.means,
      effect: first.effect,
      ...(each.length > 1 ? { figures: each.map(({ said, means_text, ...rest }) => rest) } : {}),
    };
    return {
      base,
      say: {
        reproduced: (adj) => `${both((x) => x.said(e.direction))}: p = ${pText(p, adj)}`,
        notReproduced: (adj) => `the opposite held: ${both((x) => x.said(OPPOSITE[e.direction]))}: p = ${pText(pOpp, adj)} for the opposite direction`,
        unclear: (adj, adjOpp) => `no clear ${e.form === 'pairwise' ? 'difference' : 'trend'}: p = ${pText(p, adj)} for ${e.form === 'pairwise' ? `the ${metrics.join(' and ')} of ${L(e.variants[0])} ${WORD[e.direction]} ${e.times ? `${fmtNumber(e.times)} x ` : ''}that of ${L(e.variants[1])}` : `${metrics.join(' and ')} ${e.direction} along ${e.variants.map(L).join(', ')}`}, ${pText(pOpp, adjOpp)} for ${e.form === 'pairwise' ? WORD[OPPOSITE[e.direction]] : OPPOSITE[e.direction]} (${each.map((x) => x.means_text).join('; ')})`,
      },
    };
  };
}

// "0.029" or "0.029, 0.057 adjusted" when the family adjusted it
function pText(raw, adj) {
  if (adj === undefined || adj === null || Math.abs(adj - raw) < EPS) return fmtP(raw);
  return `${fmtP(raw)} (${fmtP(adj)} after Holm)`;
}

// One variant's mean against a bound: Student's t, one-sided; over one or more figures of the
// same windows (the client's p95 and Elasticsearch's own), each figure's test, the larger p of
// each side deciding, as for the ranked forms.
function boundOne(e, metric, xs, confidence) {
  const [v] = e.variants;
  const name = (e.label ?? ((x) => x))(v);
  const { unit } = metricDef(metric);
  const b = tMeanBound(xs, e.bound, { confidence });
  const most = e.direction === 'at_most';
  const values = `${xs.map((x) => fmtNumber(x)).join(', ')}${unit && unit !== 'ratio' && unit !== 'x' ? ` ${unit}` : ''}`;
  const interval = `mean ${fmtNumber(b.mean)}, one-sided ${Math.round(confidence * 100)}% bound ${fmtNumber(most ? b.high : b.low)}`;
  const word = most ? 'at most' : 'at least';
  return {
    metric,
    test: "Student's t on the mean over the repetitions, one-sided",
    p_value: most ? b.pAbove : b.pBelow,
    p_value_opposite: most ? b.pBelow : b.pAbove,
    statistic: { bound: e.bound, low: b.low, high: b.high, df: b.df },
    means: { [v]: b.mean },
    effect: null,
    held: `the ${metric} of ${name} stayed ${word} ${fmtNumber(e.bound)} (${interval}; repetitions ${values})`,
    broken: `the ${metric} of ${name} was ${most ? 'above' : 'below'} ${fmtNumber(e.bound)} (${interval}; repetitions ${values})`,
    // left open: the wrapper closes it with the p-values (one figure) or a parenthesis (several)
    unclear: `the ${metric} of ${name} is not clearly ${word} ${fmtNumber(e.bound)}: ${interval} (repetitions ${values}`,
  };
}

function bound(e, samples, confidence) {
  const metrics = e.metrics ?? [e.metric];
  const each = metrics.map((m) => boundOne(e, m, samples[m][e.variants[0]], confidence));
  const p = Math.max(...each.map((x) => x.p_value));
  const pOpp = Math.max(...each.map((x) => x.p_value_opposite));
  const rest = ({ held, broken, unclear, ...r }) => r;
  const [first] = each;
  return {
    base: {
      ...rest(first),
      test: first.test + (each.length > 1 ? `, on each of ${metrics.join(' and ')} (the larger p decides)` : ''),
      p_value: p,
      p_value_opposite: pOpp,
      ...(each.length > 1 ? { figures: each.map(rest) } : {}),
    },
    say: {
      reproduced: (adj) => `${each.map((x) => x.held).join('; and ')}: p = ${pText(p, adj)}`,
      notReproduced: (adj) => `${each.map((x) => x.broken).join('; and ')}: p = ${pText(pOpp, adj)}`,
      unclear: (adj, adjOpp) => {
        const ps = `p = ${pText(p, adj)}, ${pText(pOpp, adjOpp)} for the opposite`;
        const what = each.length === 1 ? `${first.unclear}; ${ps})` : `${each.map((x) => `${x.unclear})`).join('; ')} (${ps})`;
        return `${what}; more repetitions (REPEAT=) narrow the bound`;
      },
    },
  };
}

/**
 * Where the curve stops paying: the first x whose step from the one before gains less than half
 * the first step's gain per unit of x (or loses), null when every step pays. On a laptop this is
 * where its own cores run out, not where Elasticsearch stops scaling.
 */
export function capOf(x, means) {
  if (means.length < 2) return null;
  const gain = (i) => (means[i] - means[i - 1]) / (x[i] - x[i - 1]);
  const first = gain(1);
  if (first <= 0) return x[0];
  for (let i = 2; i < means.length; i++) if (gain(i) < first / 2) return x[i - 1];
  return null;
}

/** Least squares of the metric over x, every repetition a point -> { slope, intercept, r2 } (r2 of the means: the curve the report draws). */
export function linearFit(x, groups) {
  const t = slopeTest(x, groups);
  return { slope: t.slope, intercept: t.intercept, r2: rSquaredOfMeans(x, groups, t) };
}

// Rises with x, in a straight line: the slope's one-sided t-test, and the lack-of-fit F test of
// the line against the repetitions' own spread. Reproduced: the slope is above 0 and the line
// fits (lack of fit not significant). Not reproduced: the slope is below 0, or the rise is not a
// line (lack of fit significant): two ways, so each is tested at half the level (Bonferroni).
function linear(e, samples, confidence) {
  const groups = e.variants.map((v) => samples[e.metric][v]);
  const alpha = alphaOf(confidence);
  const t = slopeTest(e.x, groups, { confidence });
  const r2 = rSquaredOfMeans(e.x, groups, t);
  const means = groups.map((g) => mean(g));
  const cap = capOf(e.x, means);
  const { unit } = metricDef(e.metric);
  const lof = t.lackOfFit;
  const curve = `means ${means.map((m, i) => `${fmtNumber(m)} at ${e.x[i]}`).join(', ')}${unit && unit !== 'ratio' ? ` ${unit}` : ''}`;
  const line = `slope ${fmtNumber(t.slope)} per unit of x (one-sided ${Math.round(confidence * 100)}% bounds ${fmtNumber(t.low)} to ${fmtNumber(t.high)}), R² of the means ${fmtNumber(r2)}, lack of fit p = ${lof ? fmtP(lof.p) : '-'}`;
  // on one machine, a bend is where its own cores (or disk) run out: the lab's limit, not the system's
  const capText = cap === null ? 'every step paid' : `the gain per step fell below half the first step's after x = ${cap} (where this machine's own cores cap the lab, not a limit of the system measured)`;
  const lofP = lof ? lof.p : 1;
  const pOpp = Math.min(1, 2 * Math.min(t.pDecreasing, t.pIncreasing <= alpha ? lofP : 1));
  const notLine = lofP <= alpha / 2 + EPS;
  return {
    base: {
      test: "least squares over the repetitions: the slope's one-sided t-test, and the lack-of-fit F test of a line (pure error of the repetitions)",
      p_value: t.pIncreasing,
      p_value_opposite: pOpp,
      statistic: { slope: t.slope, intercept: t.intercept, r2, slope_low: t.low, slope_high: t.high, df: t.df, lack_of_fit: lof, x: e.x, cap_at: cap },
      means: Object.fromEntries(e.variants.map((v, i) => [v, means[i]])),
      effect: null,
    },
    // the rise holds but is not a line: the lack of fit decides, not the slope
    gate: lofP <= alpha + EPS ? { reason: `${e.metric} rose with x but the line does not fit: lack of fit p = ${fmtP(lofP)} <= ${alpha} (${line}; ${curve}); ${capText}` } : null,
    say: {
      reproduced: (adj) => `${e.metric} rose in a line with x (${line}; ${curve}): p = ${pText(t.pIncreasing, adj)}; ${capText}`,
      notReproduced: (adj) => (notLine && t.pIncreasing <= alpha
        ? `${e.metric} rose with x but not in a line: lack of fit p = ${fmtP(lofP)} (${line}; ${curve}); p = ${pText(pOpp, adj)}; ${capText}`
        : `${e.metric} did not rise with x (${line}; ${curve}): p = ${pText(pOpp, adj)} for a fall`),
      unclear: () => `no clear line: ${line} (${curve}); more repetitions (REPEAT=) narrow the slope`,
    },
  };
}

// standardised Jonckheere-Terpstra J of groups (no tie correction: a statistic for the permutation test)
function jZ(groups, up) {
  let j = 0;
  for (let i = 0; i < groups.length; i++) {
    for (let k = i + 1; k < groups.length; k++) {
      for (const x of groups[i]) for (const y of groups[k]) j += (up ? x < y : x > y) ? 1 : x === y ? 0.5 : 0;
    }
  }
  const n = groups.map((g) => g.length);
  const N = n.reduce((s, v) => s + v, 0);
  const sq = n.reduce((s, v) => s + v * v, 0);
  const e = (N * N - sq) / 4;
  const v = (N * N * (2 * N + 3) - n.reduce((s, m) => s + m * m * (2 * m + 3), 0)) / 72;
  return v > 0 ? (j - e) / Math.sqrt(v) : 0;
}

/**
 * The peak statistic of a sweep: the variant with the best mean; when it is inside the sweep,
 * the weaker of the rise up to it and the fall after it (standardised J), else -Infinity.
 */
function peakStatistic(groups, better) {
  const means = groups.map((g) => mean(g));
  const best = means.indexOf(better === 'lower' ? Math.min(...means) : Math.max(...means));
  if (best === 0 || best === groups.length - 1) return { best, t: -Infinity };
  const up = better !== 'lower';
  return { best, t: Math.min(jZ(groups.slice(0, best + 1), up), jZ(groups.slice(best), !up)) };
}

/**
 * A permutation test of "rises to a peak inside the sweep, then falls": the statistic of the
 * data against the same statistic over `draws` shuffles of the values across variants (seeded).
 * Picking the best mean and then testing both sides on the same data is accounted for, since
 * every shuffle picks its own. -> { best, t, p }
 */
export function peakPermutation(groups, better, { draws = PEAK_DRAWS, seed = 1 } = {}) {
  const obs = peakStatistic(groups, better);
  if (obs.t === -Infinity) return { ...obs, p: 1 };
  const pooled = groups.flat();
  const sizes = groups.map((g) => g.length);
  const next = mulberry32(seed);
  let hits = 0;
  for (let d = 0; d < draws; d++) {
    for (let i = pooled.length - 1; i > 0; i--) {
      const k = Math.floor(next() * (i + 1));
      [pooled[i], pooled[k]] = [pooled[k], pooled[i]];
    }
    let at = 0;
    const g = sizes.map((n) => pooled.slice(at, (at += n)));
    if (peakStatistic(g, better).t >= obs.t - EPS) hits++;
  }
  return { ...obs, p: (hits + 1) / (draws + 1) };
}

// A rise to a peak inside the sweep, then a fall (peakPermutation). Not reproduced: the best is
// an end and the whole sweep trends towards it (Jonckheere-Terpstra, its direction picked from
// the data, so doubled).
function peak(e, samples, confidence) {
  const groups = e.variants.map((v) => samples[e.metric][v]);
  const means = groups.map((g) => mean(g));
  const def = metricDef(e.metric);
  const up = def.better === 'lower' ? 'decreasing' : 'increasing';
  const down = OPPOSITE[up];
  const seed = seedOf(`${e.metric}:${e.variants}:peak`);
  const perm = peakPermutation(groups, def.better, { seed });
  const { best } = perm;
  const curve = `means ${means.map((m, i) => `${fmtNumber(m)} at ${e.x[i]}`).join(', ')}${def.unit && def.unit !== 'ratio' ? ` ${def.unit}` : ''}`;
  const at = `the best mean at x = ${e.x[best]} (${(e.label ?? ((v) => v))(e.variants[best])})`;
  const interior = best > 0 && best < groups.length - 1;
  const end = interior ? null : jonckheereTerpstra(groups, { alternative: best === 0 ? down : up, seed });
  const pOpp = end ? Math.min(1, 2 * end.p) : 1;
  const where = best === 0 ? 'the smallest x: no rise before a tipping point' : 'the largest x: no tipping point within the sweep';
  return {
    base: {
      test: `permutation test of a peak inside the sweep (${PEAK_DRAWS} shuffles; the weaker of the rise to the best mean and the fall after it, standardised Jonckheere-Terpstra J); an end as the best: Jonckheere-Terpstra along the whole sweep, doubled`,
      p_value: perm.p,
      p_value_opposite: pOpp,
      statistic: { peak_variant: e.variants[best], peak_x: e.x[best], x: e.x, z_weaker_side: Number.isFinite(perm.t) ? perm.t : null },
      means: Object.fromEntries(e.variants.map((v, i) => [v, means[i]])),
      effect: null,
    },
    say: {
      reproduced: (adj) => `${e.metric} rose to ${at}, then fell (${curve}): p = ${pText(perm.p, adj)}`,
      notReproduced: (adj) => `${at}, ${where} (p = ${pText(pOpp, adj)} for a trend along the whole sweep; ${curve})`,
      unclear: () => (interior
        ? `${at}, but the rise to it and the fall after it are not clear together: p = ${fmtP(perm.p)} (${curve}); more repetitions (REPEAT=) or a wider sweep`
        : `${at}, ${where}, but the trend is not clear (p = ${fmtP(pOpp)}; ${curve})`),
    },
  };
}

const FORMS = { pairwise: ranked(pairwiseOne), trend: ranked(trendOne), bound, linear, peak };
// the test a direction would have run, named where none could run
const TEST_NAMES = {
  pairwise: 'Mann-Whitney U, one-sided, exact',
  trend: 'Jonckheere-Terpstra, one-sided, exact',
  bound: "Student's t on the mean over the repetitions, one-sided",
  linear: "least squares over the repetitions: the slope's one-sided t-test, and the lack-of-fit F test of a line (pure error of the repetitions)",
  peak: 'permutation test of a peak inside the sweep',
};

/**
 * A stored run measured with fewer repetitions than its family now needs (the minimum was taken
 * at the spec's level before it was taken at Holm's first step): { have, need, family } or null.
 * Its verdicts keep the minimum of their day; the report and the published table say so.
 */
export function familyShortfall(results) {
  const plan = results.plan ?? {};
  if (!plan.expect?.length || !plan.rounds || plan.smoke || results.quick) return null;
  const need = planMinimum({ confidence: plan.confidence, expect: plan.expect }).repetitions;
  return plan.repetitions < need ? { have: plan.repetitions, need, family: plan.expect.length } : null;
}

/** How verdicts are reached, one paragraph for the report (what a reviewer reads first). */
export function protocolText(plan, verdictList = []) {
  const alpha = alphaOf(plan.confidence);
  const m = verdictList.filter((v) => v.p_value !== null).length || plan.expect.length;
  return `Each expected direction is a one-sided test at level ${alpha} whose false-positive rate is checked by simulation in the runner's tests. `
    + `The ${plan.expect.length} direction${plan.expect.length === 1 ? '' : 's'} of this experiment ${plan.expect.length === 1 ? 'is its own family' : `are one family: the ${m} p-values are adjusted with Holm's step-down method (the expected and the opposite directions each as a family)`}; `
    + 'figures of the same windows (average and p95) are one direction that holds when every figure holds. '
    + 'Ratios come with Fieller intervals (unbounded when the denominator cannot be told from zero). '
    + `A direction below its declared minimum of repetitions (the count at which its test reaches ${plan.expect.length === 1 ? 'the level' : "Holm's first step, the level divided by the family's size,"} with one repetition out of order), or with a failed or incomplete repetition, is inconclusive.`
    + (plan.took_p95 === 'grouped'
      ? " Window p95s of the client's time are nearest-rank; Elasticsearch's took is whole milliseconds, floored, so its p95 is read as grouped data: each t spread over [t, t + 1), interpolated inside the bin of rank 0.95 n."
      : '');
}

/**
 * plan (from resolveSpec: expect, confidence) and { variantName: [figures of repetition 1, 2, ...] }
 * (a failed or incomplete repetition's figures null; `reasons`: the same shape, why) -> one verdict
 * per expected direction:
 * { claim, metric, metrics?, form, direction, variants, result, test, confidence, p_value,
 *   p_value_opposite, p_adjusted, p_adjusted_opposite, family_size, statistic, means,
 *   effect: { ratio, ci_low, ci_high, unbounded } | null, minimum_repetitions, reason }
 */
export function verdicts(plan, variantsFigures, { reasons } = {}) {
  const alpha = alphaOf(plan.confidence);
  const level = familyLevel(plan);
  const inFamily = familyNote(plan);
  // the reasons name variants as the report does, by their labels
  const labels = new Map((plan.variants ?? []).map((v) => [v.name, v.label ?? v.name]));
  const computed = plan.expect.map((e) => {
    const head = {
      claim: e.claim, metric: e.metric, ...(e.metrics ? { metrics: [...e.metrics] } : {}), form: e.form, direction: e.direction, variants: [...e.variants],
      ...(e.form === 'bound' ? { bound: e.bound } : {}), ...(e.times ? { times: e.times } : {}), ...(e.x ? { x: [...e.x], x_label: e.x_label ?? 'x' } : {}),
    };
    const min = minRepetitions(e, level);
    if (inFamily) min.why += inFamily;
    const none = (reason) => ({ head, result: { result: 'inconclusive', test: TEST_NAMES[e.form], p_value: null, p_value_opposite: null, statistic: null, means: null, effect: null, reason }, min });
    const samples = {};
    for (const metric of e.metrics ?? [e.metric]) {
      samples[metric] = {};
      for (const v of e.variants) {
        const got = valuesOf(variantsFigures, reasons, v, metric);
        if (got.missing) return none(`${got.missing}, so no test was run: a verdict needs every repetition`);
        samples[metric][v] = got.values;
      }
    }
    const counts = e.variants.map((v) => samples[e.metric][v].length);
    if (Math.min(...counts) < min.repetitions) {
      const means = e.variants.map((v) => fmtNumber(mean(samples[e.metric][v]))).join(', ');
      return none(`${counts.join(', ')} repetitions, below the ${min.repetitions} this test needs for a verdict: ${min.why} (REPEAT=${min.repetitions}; means ${means})`);
    }
    return { head, form: FORMS[e.form]({ ...e, label: (v) => labels.get(v) ?? v }, samples, plan.confidence), min };
  });
  // the family: Holm over the directions that ran a test, each side apart
  const adj = holm(computed.map((c) => c.form?.base.p_value ?? null));
  const adjOpp = holm(computed.map((c) => c.form?.base.p_value_opposite ?? null));
  const family = computed.filter((c) => c.form).length;
  return computed.map((c, i) => {
    const common = { confidence: plan.confidence, family_size: family, minimum_repetitions: c.min.repetitions };
    if (!c.form) return { ...c.head, ...c.result, ...common, p_adjusted: null, p_adjusted_opposite: null };
    const { base, say, gate } = c.form;
    const out = { ...c.head, ...base, ...common, p_adjusted: adj[i], p_adjusted_opposite: adjOpp[i] };
    if (adj[i] <= alpha + EPS && !gate) return { ...out, result: 'reproduced', reason: say.reproduced(adj[i]) };
    if (adjOpp[i] <= alpha + EPS) return { ...out, result: 'not_reproduced', reason: say.notReproduced(adjOpp[i]) };
    if (adj[i] <= alpha + EPS && gate) return { ...out, result: 'inconclusive', reason: gate.reason };
    return { ...out, result: 'inconclusive', reason: say.unclear(adj[i], adjOpp[i]) };
  });
}
