// The verdict of each expected direction, computed from the repetitions' figures, never written
// by hand. Rule, at the spec's confidence c (level 1 - c):
//   p <= 1 - c in the expected direction  -> reproduced
//   p <= 1 - c in the opposite direction  -> not_reproduced (the article's direction does not hold here: a result too)
//   otherwise                             -> inconclusive (and why: too few repetitions, or no clear difference)
// A missing figure (a failed repetition) makes that direction inconclusive: a test on the
// repetitions that happened to succeed would no longer be the planned one.
import { alphaOf, fmtNumber, fmtP, fmtWithUnit } from './format.js';
import { metricDef, metricValue } from './metrics.js';
import { binomial, bootstrapMeanBound, bootstrapRatioCI, jonckheereTerpstra, mannWhitneyU, mean, multinomial } from './stats.js';

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
    const head = { claim: e.claim, metric: e.metric, form: e.form, direction: e.direction, variants: [...e.variants], ...(e.form === 'bound' ? { bound: e.bound } : {}) };
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
    const computed = e.form === 'pairwise' ? pairwise(e, samples, plan.confidence) : e.form === 'bound' ? bound(e, samples, plan.confidence) : trend(e, samples, plan.confidence);
    return { ...head, result: computed.result, test: computed.test, confidence: plan.confidence, ...computed };
  });
}
