// Calibration: a spec's rates as shares of what the lab answers when saturated, measured on the
// lab the run measures, after its cold round (run saturated: there is no rate yet) and before
// the settling windows. Fixed rates are one machine's: noisy-neighbour's
// 120 page views/s and a bot at 100 pages/s were about 40% and 32% of an Intel Xeon lab's
// saturation; on an AMD EPYC lab four to six times faster the same rates made no noisy
// neighbour at all (the crawled group at half its quota). Rally's target throughput is absolute
// too; its users find it by running the track unthrottled first, which is what this does:
// closed shoppers with no think time (the storefront's own mix, the first variant's stores),
// windows until the last two set no new high (5% above the best before them), the median of the
// last three the saturation rate. Each rate
// given as `{ saturation: share }` becomes share x that rate (whole requests/s, at least 1),
// and results.json keeps the windows and the rates they gave (results.calibration).
import { RunError } from '../errors.js';
import { CALIBRATION, CALIBRATION_QUICK } from '../spec.js';
import { windowsUntilSteady } from './measure-search.js';

/** How a run calibrates: a full run's windows, or a QUICK run's shorter ones (the demo's too: an 8-s window of a few shoppers with no think time is already a thousand page views or more). */
export const calibrationOf = (plan) => (plan.quick ? CALIBRATION_QUICK : CALIBRATION);

/**
 * Whether the lab stopped getting faster: the last `windows - 1` windows measured something and
 * set no new high more than `tolerance` above the best window before them. A lab warming up sets
 * one window after window (83 -> 634 page views/s in 17 windows of 8 s on a lab just started);
 * a warm one's 8-s windows scatter by up to 10% (634, 594, 538, 594) with no trend, which a
 * rule on their spread would take for warming.
 */
export function calibrated(passes, { tolerance = CALIBRATION.tolerance, windows = CALIBRATION.windows } = {}) {
  if (passes.length < windows) return false;
  const recent = passes.slice(-(windows - 1)).map((p) => p.throughput_rps);
  const before = passes.slice(0, -(windows - 1)).map((p) => p.throughput_rps);
  if (!recent.every((x) => x > 0)) return false;
  return Math.max(...recent) <= Math.max(...before) * (1 + tolerance) + 1e-9;
}

/** The saturation the windows measured: the median of the last `windows` (one scattered window does not set the rates). */
export function saturationOf(passes, { windows = CALIBRATION.windows } = {}) {
  const last = passes.slice(-windows).map((p) => p.throughput_rps).sort((a, b) => a - b);
  const mid = Math.floor(last.length / 2);
  const m = last.length % 2 ? last[mid] : (last[mid - 1] + last[mid]) / 2;
  return Math.round(m * 100) / 100;
}

/** A share of the saturation rate as the load engine takes it: whole requests/s, at least 1. */
export const rateAt = (saturationRps, share) => Math.max(1, Math.round(saturationRps * share));

/**
 * The plan's rates from the measured saturation, set in place (the plan and results.json share
 * the workload and burst objects): -> { workload: rate | null, bursts: { variant: rate } }.
 */
export function applyCalibration(plan, saturationRps) {
  const out = { workload: null, bursts: {} };
  if (plan.workload.rate_of_saturation) {
    plan.workload.rate = rateAt(saturationRps, plan.workload.rate_of_saturation);
    out.workload = plan.workload.rate;
  }
  for (const v of plan.variants) {
    if (!v.burst?.rate_of_saturation) continue;
    v.burst.rate = rateAt(saturationRps, v.burst.rate_of_saturation);
    out.bursts[v.name] = v.burst.rate;
  }
  return out;
}

/**
 * The workload at saturation: closed shoppers (`vus`) with no think time, the plan's phases
 * unless `phases` gives others ({ rampS, warmS, windowS }). The cold round of a lab not yet
 * calibrated runs it too (there is no rate yet; a saturated lab warms at least as well).
 */
export function saturatingWorkload(workload, vus, phases = null) {
  const w = { ...workload, model: 'closed', vus, think_ms: 0, rate: null };
  if (!phases) return w;
  return { ...w, ramp_up: `${phases.rampS}s`, ramp_up_s: phases.rampS, warmup: `${phases.warmS}s`, warmup_s: phases.warmS, measure: `${phases.windowS}s`, measure_s: phases.windowS };
}

/**
 * Measures the lab's saturation with variant `v`'s stores (windows into a folder deleted after)
 * and sets the plan's rates -> results.calibration: { variant, vus, window_s, tolerance,
 * max_passes, passes: [{ throughput_rps, p95_ms }], steady, saturation_rps, rate, burst_rates }.
 * Not steady after max_passes: the median of the last windows is used and the report says so.
 */
export async function calibrateRates(run, v, dir, opts = calibrationOf(run.plan)) {
  const { plan, log } = run;
  const out = { variant: v.name, vus: opts.vus, window_s: opts.windowS, tolerance: opts.tolerance, windows: opts.windows, max_passes: opts.maxPasses };
  Object.assign(out, await saturationWindows(run, v, dir, opts, 'calibrating'));
  const saturation = saturationOf(out.passes, { windows: opts.windows });
  if (!(saturation > 0)) throw new RunError(`calibration: ${v.name}'s ${out.passes.length} windows answered nothing; is the lab up?`);
  out.saturation_rps = saturation;
  const rates = applyCalibration(plan, saturation);
  out.rate = rates.workload;
  out.burst_rates = rates.bursts;
  const bots = [...new Set(Object.values(rates.bursts))];
  const said = [rates.workload !== null ? `the storefront at ${rates.workload}/s (${share(plan.workload.rate_of_saturation)})` : null,
    bots.length === 1 ? `the bot at ${bots[0]}/s (${share(plan.variants.find((x) => x.burst?.rate_of_saturation).burst.rate_of_saturation)})`
      : Object.entries(rates.bursts).map(([n, r]) => `${n}'s bot at ${r}/s`).join(', ') || null].filter(Boolean);
  log(`calibrated: the lab answers ${saturation} page views/s saturated${out.steady ? '' : ` (not steady after ${out.passes.length} windows: the median of the last ${opts.windows})`}; ${said.join(', ')}`);
  return out;
}

const share = (x) => `${Math.round(x * 1000) / 10}% of it`;

/** Windows of `v`'s stores at saturation until the lab stops getting faster (calibrated; opts: CALIBRATION's), at most opts.maxPasses -> { passes, steady }. */
function saturationWindows(run, v, dir, opts, what) {
  return windowsUntilSteady(run, v, dir, saturatingWorkload(run.plan.workload, opts.vus, opts), 'calibrate', {
    maxPasses: opts.maxPasses,
    passOf: (f) => ({ throughput_rps: f?.requests ? f.throughput_rps : 0, p95_ms: f?.requests ? f.p95_ms ?? null : null }),
    steady: (passes) => calibrated(passes, { tolerance: opts.tolerance, windows: opts.windows }),
    say: (pass, n, steady) => `${what}: ${v.name} window ${n}: ${pass.throughput_rps} page views/s with ${opts.vus} shoppers and no think time, p95 ${pass.p95_ms ?? '-'} ms${steady ? ' (steady)' : ''}`,
  });
}

/**
 * The lab's saturation measured again after the last measured round of a full run, with the
 * calibration's own windows and variant: how far the lab moved while the run measured it, so a
 * report can say what share of the lab's saturation its rates were by the end (on 0.35-core
 * nodes the lab kept getting faster for half an hour: 122 -> 491 page views/s in eight 40-s
 * windows, and noisy-neighbour's bot harmed less round after round). -> results.calibration.closing:
 * { passes, steady, saturation_rps, ratio } (ratio: against the calibration's saturation), or
 * null when those windows answered nothing (the run's figures stand; the log says so).
 */
export async function closingSaturation(run, v, dir, calibration, opts = CALIBRATION) {
  const out = await saturationWindows(run, v, dir, opts, 'closing calibration');
  const saturation = saturationOf(out.passes, { windows: opts.windows });
  if (!(saturation > 0)) {
    run.log(`closing calibration: ${v.name}'s ${out.passes.length} windows answered nothing; the report states the calibration only`);
    return null;
  }
  const ratio = Math.round((saturation / calibration.saturation_rps) * 100) / 100;
  run.log(`closing calibration: the lab answers ${saturation} page views/s saturated after the last round, ${ratio}x the calibration's ${calibration.saturation_rps}`);
  return { ...out, saturation_rps: saturation, ratio };
}
