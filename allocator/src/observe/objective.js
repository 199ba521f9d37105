// Whether a group meets its latency objective, and by which signal. Pure.
//
// The signal is the p95 over the observation window of what the group's shoppers feel: their own
// requests while a load run streams its per-group histograms to Prometheus (load-latency.js),
// else the allocator's storefront-shaped probe searches (probe.js). A group misses its objective
// when that p95 is above the absolute objective (hot.objectiveMs) or above its relative limit:
// hot.relative times its own baseline p95 (baseline.js), and at least hot.minRiseMs above it, so
// an idle group's jitter (8 ms against 5) never counts. `missed` names the signal that crossed,
// the absolute one first.

/** Fewest probe searches in the window before their p95 is a figure (fewer: the third slowest of 3 is a max). */
export const MIN_PROBES = 5;

const r1 = (x) => (x === null || x === undefined || !Number.isFinite(x) ? null : Math.round(x * 10) / 10);

/** The signal a group is judged by now: { signal: 'load'|'probe'|null, p95_ms }. */
export function judgedSignal({ loadP95 = null, probe = null }) {
  if (Number.isFinite(loadP95)) return { signal: 'load', p95_ms: loadP95 };
  if (probe && probe.count >= MIN_PROBES && Number.isFinite(probe.p95_ms)) return { signal: 'probe', p95_ms: probe.p95_ms };
  return { signal: null, p95_ms: null };
}

/** The p95 above which a group misses its relative objective, or null without a ready baseline. */
export function relativeLimit(baseline, hot) {
  if (!baseline?.ready && !baseline?.stale) return null;
  if (!Number.isFinite(baseline.p95_ms)) return null;
  return r1(Math.max(baseline.p95_ms * hot.relative, baseline.p95_ms + hot.minRiseMs));
}

/**
 * { p95_ms, signal, objective_ms, baseline_p95_ms, relative, relative_limit_ms, meets_objective,
 *   missed: 'absolute'|'relative'|null }; meets_objective null when there is no signal.
 */
export function judgeObjective({ p95, signal, objectiveMs, baseline, hot }) {
  const limit = relativeLimit(baseline, hot);
  const base = { p95_ms: r1(p95), signal, objective_ms: objectiveMs, baseline_p95_ms: limit === null ? null : baseline.p95_ms, relative: hot.relative, relative_limit_ms: limit };
  if (p95 === null || p95 === undefined) return { ...base, meets_objective: null, missed: null };
  const missed = p95 > objectiveMs ? 'absolute' : limit !== null && p95 > limit ? 'relative' : null;
  return { ...base, meets_objective: missed === null, missed };
}

/** One line: the group's p95 against both objectives, as flags, plans and logs say it. */
export function objectiveLine(group, j) {
  const source = j.signal === 'load' ? "shoppers' p95" : 'p95 of the probe searches';
  const rel = j.relative_limit_ms === null ? 'no baseline yet' : `baseline ${j.baseline_p95_ms} ms x ${j.relative} = ${j.relative_limit_ms} ms`;
  const crossed = j.missed === 'absolute' ? ' (absolute objective crossed)' : j.missed === 'relative' ? ' (relative objective crossed)' : '';
  return `${group}'s ${source} is ${j.p95_ms} ms against an objective of ${j.objective_ms} ms and ${rel}${crossed}`;
}
