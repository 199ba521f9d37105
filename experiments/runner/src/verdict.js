// The verdict of each expected direction, computed from the repetitions' figures, never written
// by hand. Rule, at the spec's confidence c (level 1 - c):
//   p <= 1 - c in the expected direction  -> reproduced
//   p <= 1 - c in the opposite direction  -> not_reproduced (the article's direction does not hold here: a result too)
//   otherwise                             -> inconclusive (and why: too few repetitions, or no clear difference)
// A missing figure (a failed repetition) makes that direction inconclusive: a test on the
// repetitions that happened to succeed would no longer be the planned one.
import { alphaOf, fmtNumber, fmtP, fmtWithUnit } from './format.js';
import { metricDef, metricValue } from './metrics.js';
import { mulberry32 } from '@tenantlab/dataset/random';
import { binomial, bootstrapMeanBound, bootstrapRatioCI, jonckheereTerpstra, mannWhitneyU, mean, multinomial, percentile } from './stats.js';
import { linearRegression, linearRegressionLine, rSquared } from 'simple-statistics';

// p-values are exact fractions like 1/20 compared with a level like 1 - 0.95 in floats
const EPS = 1e-12;
const OPPOSITE = { lower: 'higher', higher: 'lower', decreasing: 'increasing', increasing: 'decreasing' };
const WORD = { lower: 'below', higher: 'above', decreasing: 'fell', increasing: 'rose' };

/** FNV-1a: a bootstrap seed per expectation, so the same results always render the same interval. */
function seedOf(text) {
  let h = 0x811c9dc5;
  for (const ch of text) h = Math.imul(h ^ ch.charCodeAt(0), 0x01000193) >>> 0;
  return h;
}

/** Smallest equal repetition count whose best possible one-sided p reaches alpha. */
function repetitionsNeeded(groups, alpha) {
  for (let r = 1; r <= 20; r++) {
    const splits = groups === 2 ? binomial(2 * r, r) : multinomial(new Array(groups).fill(r));
    if (1 / splits <= alpha + EPS) return r;
  }
  return null;
}

function valuesOf(figures, variant, metric) {
  const reps = figures[variant];
  if (!Array.isArray(reps) || reps.length === 0) return { missing: `no repetition of ${variant} has figures` };
  const values = [];
  for (let i = 0; i < reps.length; i++) {
    const v = metricValue(reps[i], metric);
    if (v === null) return { missing: `${variant} has no ${metric} figure for repetition ${i + 1} (failed or incomplete)` };
    values.push(v);
  }
  return { values };
}

function testName(form, result) {
  if (form === 'linear') return 'least squares over the repetitions, slope interval by bootstrap';
  if (form === 'peak') return 'Jonckheere-Terpstra, one-sided, on each side of the best mean';
  if (form === 'bound') return 'bootstrap of the mean over the repetitions, one-sided bound';
  if (form === 'pairwise') return `Mann-Whitney U, one-sided, ${result?.method === 'normal' ? 'normal approximation' : 'exact'}`;
  if (result?.method === 'monte-carlo') return `Jonckheere-Terpstra, one-sided, Monte Carlo (${result.draws} permutations)`;
  return 'Jonckheere-Terpstra, one-sided, exact';
}

function pairwise(e, samples, confidence) {
  const [subject, than] = e.variants;
  const [a, b] = [samples[subject], samples[than]];
  const alpha = alphaOf(confidence);
  const { unit } = metricDef(e.metric);
  const alt = { lower: 'less', higher: 'greater' };
  const expected = mannWhitneyU(a, b, { alternative: alt[e.direction] });
  const opposite = mannWhitneyU(a, b, { alternative: alt[OPPOSITE[e.direction]] });
  const ci = bootstrapRatioCI(a, b, { confidence, seed: seedOf(`${e.metric}:${e.variants}`) });
  const means = `mean ${fmtWithUnit(mean(a), unit)} vs ${fmtWithUnit(mean(b), unit)}`;
  const separated = (dir) => (dir === 'lower' ? Math.max(...a) < Math.min(...b) : Math.min(...a) > Math.max(...b));
  const said = (dir) => `${subject}'s ${e.metric} was ${WORD[dir]} ${than}'s${separated(dir) ? ' in every repetition' : ''} (${means}, ratio ${fmtNumber(ci.ratio)})`;
  const base = {
    test: testName('pairwise', expected),
    p_value: expected.p,
    p_value_opposite: opposite.p,
    statistic: { u: expected.u },
    means: { [subject]: mean(a), [than]: mean(b) },
    effect: { ratio: ci.ratio, ci_low: ci.low, ci_high: ci.high },
  };
  const minP = 1 / binomial(a.length + b.length, a.length);
  return decide(base, {
    alpha, minP,
    reproduced: () => `${said(e.direction)}: p = ${fmtP(expected.p)} <= ${alpha}`,
    notReproduced: () => `the opposite held: ${said(OPPOSITE[e.direction])}: p = ${fmtP(opposite.p)} <= ${alpha} for the opposite direction`,
    tooFew: () => {
      const need = repetitionsNeeded(2, alpha);
      return `with ${a.length} and ${b.length} repetitions the smallest p a Mann-Whitney test can give is ${fmtP(minP)}, above ${alpha}: run at least ${need} repetitions of each (REPEAT=${need}) (${means})`;
    },
    unclear: () => `no clear difference: p = ${fmtP(expected.p)} for ${subject}'s ${e.metric} ${WORD[e.direction]} ${than}'s, ${fmtP(opposite.p)} for ${WORD[OPPOSITE[e.direction]]}, both above ${alpha} (${means})`,
  });
}

function trend(e, samples, confidence) {
  const groups = e.variants.map((v) => samples[v]);
  const alpha = alphaOf(confidence);
  const { unit } = metricDef(e.metric);
  const seed = seedOf(`${e.metric}:${e.variants}`);
  const expected = jonckheereTerpstra(groups, { alternative: e.direction, seed });
  const opposite = jonckheereTerpstra(groups, { alternative: OPPOSITE[e.direction], seed });
  const first = e.variants[0];
  const last = e.variants[e.variants.length - 1];
  const ci = bootstrapRatioCI(samples[last], samples[first], { confidence, seed });
  const means = `means ${groups.map((g) => fmtNumber(mean(g))).join(', ')}${unit && unit !== 'ratio' ? ` ${unit}` : ''}`;
  const along = e.variants.join(', ');
  const base = {
    test: testName('trend', expected),
    p_value: expected.p,
    p_value_opposite: opposite.p,
    statistic: { j: expected.j, j_max: expected.jMax },
    means: Object.fromEntries(e.variants.map((v, i) => [v, mean(groups[i])])),
    effect: { ratio: ci.ratio, ci_low: ci.low, ci_high: ci.high, of: `${last}/${first}` },
  };
  const minP = 1 / multinomial(groups.map((g) => g.length));
  return decide(base, {
    alpha, minP,
    reproduced: () => `${e.metric} ${WORD[e.direction]} along ${along} (${means}; J = ${fmtNumber(expected.j)} of ${expected.jMax}): p = ${fmtP(expected.p)} <= ${alpha}`,
    notReproduced: () => `the opposite held: ${e.metric} ${WORD[OPPOSITE[e.direction]]} along ${along} (${means}): p = ${fmtP(opposite.p)} <= ${alpha} for the opposite trend`,
    tooFew: () => {
      const need = repetitionsNeeded(groups.length, alpha);
      return `with ${groups.map((g) => g.length).join(', ')} repetitions the smallest p a Jonckheere-Terpstra test can give is ${fmtP(minP)}, above ${alpha}: run at least ${need} repetitions of each (REPEAT=${need}) (${means})`;
    },
    unclear: () => `no clear trend: p = ${fmtP(expected.p)} for ${e.metric} ${e.direction} along ${along}, ${fmtP(opposite.p)} for ${OPPOSITE[e.direction]}, both above ${alpha} (${means})`,
  });
}

// One variant's mean against a bound: held when the one-sided bootstrap bound of its mean at the
// confidence is within it; broken when the opposite bound is past it; else inconclusive.
function bound(e, samples, confidence) {
  const [v] = e.variants;
  const xs = samples[v];
  const { unit } = metricDef(e.metric);
  const b = bootstrapMeanBound(xs, e.bound, { confidence, seed: seedOf(`${e.metric}:${v}:${e.bound}`) });
  const most = e.direction === 'at_most';
  const held = most ? b.high <= e.bound : b.low >= e.bound;
  const broken = most ? b.low > e.bound : b.high < e.bound;
  const values = `${xs.map((x) => fmtNumber(x)).join(', ')}${unit && unit !== 'ratio' && unit !== 'x' ? ` ${unit}` : ''}`;
  const interval = `mean ${fmtNumber(b.mean)}, one-sided ${Math.round(confidence * 100)}% bound ${fmtNumber(most ? b.high : b.low)}`;
  const base = {
    test: testName('bound'),
    p_value: most ? b.pAbove : b.pBelow,
    p_value_opposite: most ? b.pBelow : b.pAbove,
    statistic: { bound: e.bound, low: b.low, high: b.high },
    means: { [v]: b.mean },
    effect: null,
  };
  const word = most ? 'at most' : 'at least';
  if (held) return { ...base, result: 'reproduced', reason: `${v}'s ${e.metric} stayed ${word} ${fmtNumber(e.bound)} (${interval}; repetitions ${values})` };
  if (broken) return { ...base, result: 'not_reproduced', reason: `${v}'s ${e.metric} was ${most ? 'above' : 'below'} ${fmtNumber(e.bound)} (${interval}; repetitions ${values})` };
  return { ...base, result: 'inconclusive', reason: `${v}'s ${e.metric} is not clearly ${word} ${fmtNumber(e.bound)}: ${interval} (repetitions ${values}); more repetitions (REPEAT=) narrow the bound` };
}

/**
 * Least squares of the metric over x, every repetition a point -> { slope, intercept, r2 }; r2 of
 * the means (the curve the report draws), so repetition noise does not hide a straight line.
 */
export function linearFit(x, groups) {
  const points = groups.flatMap((g, i) => g.map((y) => [x[i], y]));
  const { m, b } = linearRegression(points);
  const means = groups.map((g, i) => [x[i], mean(g)]);
  const r2 = rSquared(means, linearRegressionLine({ m, b }));
  return { slope: m, intercept: b, r2: Number.isFinite(r2) ? r2 : 0 };
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

// Rises with x, in a straight line: the slope's bootstrap interval (repetitions resampled per x)
// above 0 and the means' R2 at least min_r2 -> reproduced; a slope whose interval is at or below
// 0 -> not reproduced, as is a clear rise that is not a line (R2 below min_r2 with the slope's
// interval above 0: said so); otherwise inconclusive.
function linear(e, samples, confidence) {
  const groups = e.variants.map((v) => samples[v]);
  const fit = linearFit(e.x, groups);
  const next = mulberry32(seedOf(`${e.metric}:${e.variants}:linear`));
  const slopes = [];
  for (let i = 0; i < 2000; i++) {
    const pts = groups.flatMap((g, j) => g.map(() => [e.x[j], g[Math.floor(next() * g.length)]]));
    slopes.push(linearRegression(pts).m);
  }
  const tail = (1 - confidence) * 100;
  const low = percentile(slopes, tail);
  const high = percentile(slopes, 100 - tail);
  const means = groups.map((g) => mean(g));
  const cap = capOf(e.x, means);
  const { unit } = metricDef(e.metric);
  const curve = `means ${means.map((m, i) => `${fmtNumber(m)} at ${e.x[i]}`).join(', ')}${unit && unit !== 'ratio' ? ` ${unit}` : ''}`;
  const line = `slope ${fmtNumber(fit.slope)} per unit of x (one-sided ${Math.round(confidence * 100)}% interval ${fmtNumber(low)} to ${fmtNumber(high)}), R² ${fmtNumber(fit.r2)}`;
  // on one machine, a bend is where its own cores (or disk) run out: the lab's limit, not the system's
  const capText = cap === null ? 'every step paid' : `the gain per step fell below half the first step's after x = ${cap} (where this machine's own cores cap the lab, not a limit of the system measured)`;
  const base = {
    test: `least squares over the repetitions; slope interval by bootstrap (2000 resamples); R² of the means against ${e.min_r2}`,
    p_value: slopes.filter((v) => v <= 0).length / slopes.length,
    p_value_opposite: slopes.filter((v) => v >= 0).length / slopes.length,
    statistic: { slope: fit.slope, intercept: fit.intercept, r2: fit.r2, slope_low: low, slope_high: high, min_r2: e.min_r2, x: e.x, cap_at: cap },
    means: Object.fromEntries(e.variants.map((v, i) => [v, means[i]])),
    effect: null,
  };
  if (low > 0 && fit.r2 >= e.min_r2) return { ...base, result: 'reproduced', reason: `${e.metric} rose in a line with x (${line}; ${curve}); ${capText}` };
  if (high <= 0) return { ...base, result: 'not_reproduced', reason: `${e.metric} did not rise with x (${line}; ${curve})` };
  if (low > 0) return { ...base, result: 'not_reproduced', reason: `${e.metric} rose with x but not in a line: R² ${fmtNumber(fit.r2)} < ${e.min_r2} (${line}; ${curve}); ${capText}` };
  return { ...base, result: 'inconclusive', reason: `no clear slope: ${line} (${curve}); more repetitions (REPEAT=) narrow the interval` };
}

// A rise to a peak inside the sweep, then a fall: the variant with the best mean is the peak;
// reproduced when it is neither end and the rise up to it and the fall after it are both
// significant trends (Jonckheere-Terpstra; a side of one step is a Mann-Whitney pair); not
// reproduced when the best is an end and the whole sweep trends towards it (no tipping point in
// the sweep); otherwise inconclusive.
function peak(e, samples, confidence) {
  const groups = e.variants.map((v) => samples[v]);
  const means = groups.map((g) => mean(g));
  const def = metricDef(e.metric);
  const up = def.better === 'lower' ? 'decreasing' : 'increasing';
  const down = OPPOSITE[up];
  const best = means.indexOf(def.better === 'lower' ? Math.min(...means) : Math.max(...means));
  const alpha = alphaOf(confidence);
  const seed = seedOf(`${e.metric}:${e.variants}:peak`);
  const side = (from, to, dir) => jonckheereTerpstra(groups.slice(from, to), { alternative: dir, seed }).p;
  const curve = `means ${means.map((m, i) => `${fmtNumber(m)} at ${e.x[i]}`).join(', ')}${def.unit && def.unit !== 'ratio' ? ` ${def.unit}` : ''}`;
  const at = `the best mean at x = ${e.x[best]} (${e.variants[best]})`;
  const base = {
    test: 'Jonckheere-Terpstra, one-sided, on each side of the best mean',
    p_value: null, p_value_opposite: null,
    statistic: { peak_variant: e.variants[best], peak_x: e.x[best], x: e.x },
    means: Object.fromEntries(e.variants.map((v, i) => [v, means[i]])),
    effect: null,
  };
  if (best > 0 && best < groups.length - 1) {
    const pUp = side(0, best + 1, up);
    const pDown = side(best, groups.length, down);
    const out = { ...base, p_value: Math.max(pUp, pDown), statistic: { ...base.statistic, p_rise: pUp, p_fall: pDown } };
    if (pUp <= alpha + EPS && pDown <= alpha + EPS) return { ...out, result: 'reproduced', reason: `${e.metric} rose to ${at}, then fell (p = ${fmtP(pUp)} before, ${fmtP(pDown)} after, both <= ${alpha}; ${curve})` };
    return { ...out, result: 'inconclusive', reason: `${at}, but the rise (p = ${fmtP(pUp)}) or the fall after it (p = ${fmtP(pDown)}) is not clear at ${alpha} (${curve}); more repetitions (REPEAT=) or a wider sweep` };
  }
  const dir = best === 0 ? down : up;
  const p = side(0, groups.length, dir);
  const out = { ...base, p_value_opposite: p };
  const where = best === 0 ? 'the smallest x: no rise before a tipping point' : 'the largest x: no tipping point within the sweep';
  if (p <= alpha + EPS) return { ...out, result: 'not_reproduced', reason: `${at}, ${where} (p = ${fmtP(p)} <= ${alpha} for a ${dir === up ? 'rise' : 'fall'} along the whole sweep; ${curve})` };
  return { ...out, result: 'inconclusive', reason: `${at}, ${where}, but the trend is not clear (p = ${fmtP(p)}; ${curve})` };
}

function decide(base, { alpha, minP, reproduced, notReproduced, tooFew, unclear }) {
  if (base.p_value <= alpha + EPS) return { ...base, result: 'reproduced', reason: reproduced() };
  if (base.p_value_opposite <= alpha + EPS) return { ...base, result: 'not_reproduced', reason: notReproduced() };
  return { ...base, result: 'inconclusive', reason: minP > alpha + EPS ? tooFew() : unclear() };
}

/**
 * plan (from resolveSpec: expect, confidence) and { variantName: [figures of repetition 1, 2, ...] }
 * (a failed repetition's figures null) -> one verdict per expected direction:
 * { claim, metric, form, direction, variants, result, test, confidence, p_value, p_value_opposite,
 *   statistic, means, effect: { ratio, ci_low, ci_high } | null, reason }
 */
export function verdicts(plan, variantsFigures) {
  return plan.expect.map((e) => {
    const head = { claim: e.claim, metric: e.metric, form: e.form, direction: e.direction, variants: [...e.variants], ...(e.form === 'bound' ? { bound: e.bound } : {}), ...(e.x ? { x: [...e.x], x_label: e.x_label ?? 'x' } : {}) };
    const samples = {};
    for (const v of e.variants) {
      const got = valuesOf(variantsFigures, v, e.metric);
      if (got.missing) {
        return {
          ...head,
          result: 'inconclusive',
          test: testName(e.form, null),
          confidence: plan.confidence,
          p_value: null,
          p_value_opposite: null,
          statistic: null,
          means: null,
          effect: null,
          reason: `${got.missing}, so no test was run: a verdict needs every repetition`,
        };
      }
      samples[v] = got.values;
    }
    const forms = { pairwise, bound, linear, peak };
    const computed = (forms[e.form] ?? trend)(e, samples, plan.confidence);
    return { ...head, result: computed.result, test: computed.test, confidence: plan.confidence, ...computed };
  });
}
