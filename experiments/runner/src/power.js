// `make experiment-plan NAME=`: how many repetitions, and how long a window, an experiment needs
// to detect the article's effect with 80% power within the time budget, from the spread of its
// committed run. The power is simulated with the runner's own verdicts() on the whole family
// (Holm included): each variant's figures drawn normal around the effect's means with the
// committed run's coefficient of variation. Stated assumptions, printed with the plan:
// - the effect is the article's where it gives a figure for every variant of a direction, else
//   the lab's own committed means (the article gives none, or only some);
// - the spread is the committed run's coefficient of variation per variant (its first round left
//   out when that run had no cold round: it was the warm-up, not the noise);
// - a longer window shrinks the spread as 1/sqrt(window) (independent noise within a window): an
//   optimistic bound, since a drift between windows does not shrink.
import { alphaOf, fmtDuration, fmtNumber } from './format.js';
import { metricValue, setMetricValue } from './metrics.js';
import { estimatedSeconds } from './spec.js';
import { mean, normalStream, stdev } from './stats.js';
import { planMinimum, verdicts } from './verdict.js';

export const POWER = 0.8;
export const BUDGET_S = 30 * 60;
const SIMS = 300;
const WINDOW_FACTORS = [1, 1.5, 2];

/** The committed run's figures of `metric` per variant (a run without a cold round loses its first round). */
function observed(results, metric) {
  const out = {};
  const noCold = !results.plan?.rounds;
  for (const v of results.variants) {
    const reps = v.repetitions.filter((r) => r.figures && r.complete !== false);
    const kept = noCold && reps.length >= 3 ? reps.filter((r) => (r.measured_round ?? r.round) !== 1) : reps;
    const xs = kept.map((r) => metricValue(r.figures, metric)).filter((x) => x !== null && Number.isFinite(x));
    if (xs.length) out[v.name] = xs;
  }
  return out;
}

/**
 * What the simulation draws for one metric, for every variant a direction judges by it:
 * { means: {variant: mean}, cv: {variant: cv}, source: 'article' | 'lab', spread }. The article's
 * figures when it gives one for every such variant (set on the lab's scale: the first variant's
 * lab mean), else the committed run's means.
 */
export function effectOf(plan, metric, results) {
  const variants = [...new Set(plan.expect.filter((e) => (e.metrics ?? [e.metric]).includes(metric)).flatMap((e) => e.variants))];
  const bounded = plan.expect.some((e) => e.form === 'bound' && e.metric === metric);
  const obs = results ? observed(results, metric) : {};
  const published = Object.fromEntries(plan.variants.map((v) => [v.name, v.published?.[metric]]));
  const fromArticle = !bounded && variants.every((v) => typeof published[v] === 'number');
  const cvOf = (v) => {
    const xs = obs[v];
    if (!xs || xs.length < 2 || mean(xs) === 0) return null;
    return stdev(xs) / Math.abs(mean(xs));
  };
  const known = variants.map(cvOf).filter((x) => x !== null).sort((x, y) => x - y);
  // a variant without a spread of its own takes the median one (10% with none at all)
  const fallback = known.length ? known[Math.floor(known.length / 2)] : 0.1;
  const cv = Object.fromEntries(variants.map((v) => [v, cvOf(v) ?? fallback]));
  let means;
  if (fromArticle) {
    const anchor = variants.find((v) => obs[v]);
    const scale = anchor ? mean(obs[anchor]) / published[anchor] : 1;
    means = Object.fromEntries(variants.map((v) => [v, published[v] * scale]));
  } else means = Object.fromEntries(variants.map((v) => [v, obs[v] ? mean(obs[v]) : null]));
  return { means, cv, source: fromArticle ? 'article' : 'lab', spread: known.length ? 'committed run' : 'assumed 10%' };
}

/** Share of simulated runs in which each direction is reproduced, at `reps` repetitions and window factor `w`. */
export function simulatePower(plan, effects, { reps, w = 1, sims = SIMS, seed = 7 }) {
  const z = normalStream(seed);
  const hits = new Array(plan.expect.length).fill(0);
  const metrics = [...new Set(plan.expect.flatMap((e) => e.metrics ?? [e.metric]))];
  for (let s = 0; s < sims; s++) {
    const figures = Object.fromEntries(plan.variants.map((v) => [v.name, Array.from({ length: reps }, () => ({}))]));
    for (const m of metrics) {
      const eff = effects[m];
      for (const v of plan.variants) {
        const mu = eff?.means[v.name];
        if (mu === null || mu === undefined) continue;
        const sd = Math.abs(mu) * eff.cv[v.name] / Math.sqrt(w);
        for (const f of figures[v.name]) setMetricValue(f, m, mu + sd * z());
      }
    }
    verdicts({ ...plan, expect: plan.expect }, figures).forEach((v, i) => { if (v.result === 'reproduced') hits[i]++; });
  }
  return hits.map((h) => h / sims);
}

/**
 * The plan for one experiment -> { lines: [...], repetitions, window_factor, minutes, power: [...] }
 * `results`: its committed run (null when there is none).
 */
export function planExperiment(plan, results, { budgetS = BUDGET_S } = {}) {
  const alpha = alphaOf(plan.confidence);
  const effects = {};
  const lines = [];
  for (const m of new Set(plan.expect.flatMap((e) => e.metrics ?? [e.metric]))) effects[m] = effectOf(plan, m, results);
  const floor = planMinimum(plan).repetitions;
  const runnable = plan.expect.every((e) => (e.metrics ?? [e.metric]).every((m) => e.variants.every((v) => effects[m].means[v] !== null && effects[m].means[v] !== undefined)));
  lines.push(`${plan.name}: ${plan.expect.length} direction${plan.expect.length === 1 ? '' : 's'}, one Holm family at ${alpha}; at least ${floor} repetitions (the tests' declared minimum at Holm's first step, ${alpha} / ${plan.expect.length})`);
  for (const e of plan.expect) {
    for (const m of e.metrics ?? [e.metric]) {
      const eff = effects[m];
      const means = e.variants.map((v) => `${v} ${fmtNumber(eff.means[v])}`).join(', ');
      const cvs = e.variants.map((v) => `${fmtNumber(eff.cv[v] * 100)}%`).join(', ');
      lines.push(`  "${e.claim}" (${m}): effect from ${eff.source === 'article' ? "the article's figures" : "the lab's committed means (the article gives no figure for every variant)"}: ${means}; spread (${eff.spread}) ${cvs}`);
    }
  }
  if (!runnable) {
    lines.push('  no committed run with every variant measured: nothing to plan from (run it once, commit it, plan again)');
    return { lines, repetitions: floor, window_factor: 1, minutes: null, power: null };
  }
  const timeOf = (reps, w) => estimatedSeconds({ ...plan, repetitions: reps, workload: { ...plan.workload, measure_s: plan.workload.measure_s * w } });
  let best = null;
  const tried = [];
  for (const w of WINDOW_FACTORS) {
    for (let reps = floor; reps <= 12; reps++) {
      const seconds = timeOf(reps, w);
      if (seconds > budgetS) break;
      const power = simulatePower(plan, effects, { reps, w });
      tried.push({ reps, w, seconds, power });
      if (power.every((p) => p >= POWER)) {
        if (!best || seconds < best.seconds) best = { reps, w, seconds, power };
        break;
      }
    }
  }
  const fmtPower = (power) => plan.expect.map((e, i) => `"${e.claim}" ${fmtNumber(power[i])}`).join(', ');
  if (best) {
    lines.push(`  plan: ${best.reps} repetitions, windows of ${fmtDuration(plan.workload.measure_s * best.w)} (x${best.w} the spec's), about ${fmtDuration(best.seconds)} (budget ${fmtDuration(budgetS)}): power ${fmtPower(best.power)}`);
    return { lines, repetitions: best.reps, window_factor: best.w, minutes: best.seconds / 60, power: best.power };
  }
  // within the budget nothing reaches 80% for every direction: the best there is, and what it misses
  const within = tried.sort((a, b) => Math.min(...b.power) - Math.min(...a.power) || a.seconds - b.seconds)[0];
  if (!within) {
    lines.push(`  even ${floor} repetitions take about ${fmtDuration(timeOf(floor, 1))}, past the budget of ${fmtDuration(budgetS)}: the spec's windows or variants must shrink`);
    return { lines, repetitions: floor, window_factor: 1, minutes: timeOf(floor, 1) / 60, power: null };
  }
  const missed = plan.expect.filter((e, i) => within.power[i] < POWER).map((e) => `"${e.claim}"`);
  lines.push(`  plan: ${within.reps} repetitions, windows x${within.w}, about ${fmtDuration(within.seconds)}: power ${fmtPower(within.power)}; the budget of ${fmtDuration(budgetS)} leaves ${missed.join(', ')} below ${POWER}: an effect of this size there is missed more than ${Math.round((1 - POWER) * 100)}% of the time`);
  return { lines, repetitions: within.reps, window_factor: within.w, minutes: within.seconds / 60, power: within.power };
}
