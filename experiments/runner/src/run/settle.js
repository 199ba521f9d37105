// Settling: after its cold round, a lab just started (or just restarted by the test before it)
// can still answer far slower than it will a few minutes later (the demo's first window on a
// fresh lab: p95 13.9 s and 97% of arrivals late, against 80 ms four windows on). So before the
// first measured window, short unmeasured windows of the first variant run until two in a row
// agree: each with late arrivals within the spec's max_late_rate, and the second's p95 within
// `tolerance` of the first's. Bounded: after `maxPasses` the run goes on and says it was not
// steady. Search workloads only (a write window changes the data).
import { windowsUntilSteady } from './measure-search.js';

export const SETTLE = Object.freeze({ windowS: 10, tolerance: 0.25, maxPasses: 8 });
// A QUICK run (a smoke run: no verdict) settles in shorter windows and fewer of them: it only
// needs its windows measured, not comparable. make demo (QUICK too) settles as a full run does:
// its story is told on the neighbours' figures.
export const SETTLE_QUICK = Object.freeze({ windowS: 5, tolerance: 0.25, maxPasses: 4 });

/** How a run settles: a full run's and the demo's (SETTLE), or a smoke run's (SETTLE_QUICK). */
export const settleOf = (plan, { narrate = false } = {}) => (plan.quick && !narrate ? SETTLE_QUICK : SETTLE);

/** One settle window's figures -> { p95_ms, late_share } (null p95 when it measured nothing). */
export function passOf(figures) {
  const sent = figures?.requests ?? 0;
  return { p95_ms: sent > 0 ? figures.p95_ms ?? null : null, late_share: sent > 0 ? (figures.late_arrivals ?? 0) / sent : 1 };
}

/** Whether the last two passes agree: both within maxLate, p95s within `tolerance` of each other. */
export function settled(passes, { tolerance = SETTLE.tolerance, maxLate = 0.05 } = {}) {
  if (passes.length < 2) return false;
  const [a, b] = passes.slice(-2);
  if (a.late_share > maxLate || b.late_share > maxLate) return false;
  if (!(a.p95_ms > 0) || !(b.p95_ms > 0)) return false;
  return Math.abs(b.p95_ms / a.p95_ms - 1) <= tolerance;
}

/**
 * Settle windows of variant `v` into warmDir (deleted after) until `settled` -> results.settle:
 * { variant, window_s, tolerance, max_late_rate, max_passes, passes: [{p95_ms, late_share}], steady }.
 */
export async function settleSearch(run, v, warmDir, opts = SETTLE) {
  const { plan, log } = run;
  const maxLate = plan.workload.max_late_rate; // spec.js gives every workload one
  const workload = { ...plan.workload, measure: `${opts.windowS}s`, measure_s: opts.windowS };
  const out = { variant: v.name, window_s: opts.windowS, tolerance: opts.tolerance, max_late_rate: maxLate, max_passes: opts.maxPasses };
  Object.assign(out, await windowsUntilSteady(run, v, warmDir, workload, 'settle', {
    maxPasses: opts.maxPasses, passOf,
    steady: (passes) => settled(passes, { tolerance: opts.tolerance, maxLate }),
    say: (pass, n, steady) => `settling: ${v.name} window ${n}: p95 ${pass.p95_ms ?? '-'} ms, ${(pass.late_share * 100).toFixed(1)}% late${steady ? ' (steady)' : ''}`,
  }));
  if (!out.steady) log(`settling: not steady after ${out.passes.length} windows of ${opts.windowS} s; measuring anyway (the report says so)`);
  return out;
}
