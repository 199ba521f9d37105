// Two runs of one experiment side by side, the way `esrally compare` lays out two races (Metric,
// Task, Baseline, Contender, Diff, Unit, Diff %), with the variant in Task's place, and each
// run's verdicts beside each other: did a change of the runner, the lab or the machine move a
// figure or flip a verdict?
import { UsageError } from './errors.js';
import { fmtNumber, fmtP } from './format.js';
import { metricDef } from './metrics.js';
import { loadEngineOf, summarize } from './results.js';

const DEFAULT_METRICS = ['throughput_rps', 'avg_ms', 'p50_ms', 'p95_ms', 'p99_ms', 'max_ms', 'error_rate', 'query_ms_per_query', 'fetch_ms_per_fetch'];

function meanOf(variant, metric) {
  if (!variant) return null;
  return summarize(variant.repetitions, [metric])[metric].mean;
}

/**
 * Two results (baseline a, contender b) of the same experiment ->
 * { experiment, baseline: {run_id, started_at, quick, complete, engine}, contender: {...},
 *   rows: [{ metric, variant, baseline, contender, diff, unit, diff_pct }],
 *   verdicts: [{ claim, baseline: result, contender: result, baseline_p, contender_p }] }
 * Rows cover every variant of either run (a side that lacks it is null) for each metric either
 * run reports; diff = contender - baseline, diff_pct relative to the baseline.
 */
export function compareRuns(a, b, { metrics } = {}) {
  if (a.experiment !== b.experiment) {
    throw new UsageError(`cannot compare runs of different experiments: ${a.experiment} (${a.run_id}) and ${b.experiment} (${b.run_id})`);
  }
  const wanted = metrics ?? [...new Set([...DEFAULT_METRICS, ...(a.plan.report?.metrics ?? []), ...(b.plan.report?.metrics ?? [])])];
  const names = [...new Set([...a.variants.map((v) => v.name), ...b.variants.map((v) => v.name)])];
  const rows = [];
  for (const metric of wanted) {
    const def = metricDef(metric);
    if (!def) continue;
    for (const name of names) {
      const base = meanOf(a.variants.find((v) => v.name === name), metric);
      const cont = meanOf(b.variants.find((v) => v.name === name), metric);
      if (base === null && cont === null) continue;
      const diff = base !== null && cont !== null ? cont - base : null;
      const pct = diff !== null && base !== 0 ? (diff / Math.abs(base)) * 100 : null;
      rows.push({ metric, variant: name, baseline: base, contender: cont, diff, unit: def.unit, diff_pct: pct });
    }
  }
  const claims = [...new Set([...a.verdicts.map((v) => v.claim), ...b.verdicts.map((v) => v.claim)])];
  const verdicts = claims.map((claim) => {
    const va = a.verdicts.find((v) => v.claim === claim);
    const vb = b.verdicts.find((v) => v.claim === claim);
    return { claim, baseline: va?.result ?? null, contender: vb?.result ?? null, baseline_p: va?.p_value ?? null, contender_p: vb?.p_value ?? null };
  });
  // engine: the load generator's label (Locust, k6 for runs before the Locust engine), null when unrecorded
  const side = (r) => ({ run_id: r.run_id, started_at: r.started_at, quick: r.quick, complete: r.complete, engine: loadEngineOf(r)?.label ?? null });
  return { experiment: a.experiment, baseline: side(a), contender: side(b), rows, verdicts };
}

const signed = (v, suffix = '') => (v === null ? '-' : `${v > 0 ? '+' : ''}${fmtNumber(v)}${suffix}`);

/** Plain-text table with every column padded; numbers right-aligned. */
export function textTable(head, rows, { right = [] } = {}) {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const line = (cells) => `| ${cells.map((c, i) => (right.includes(i) ? String(c).padStart(widths[i]) : String(c).padEnd(widths[i]))).join(' | ')} |`;
  return [line(head), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)].join('\n');
}

/** A comparison (or just its rows) -> the text `tenantlab-experiment compare` prints. */
export function formatCompare(cmp) {
  const c = Array.isArray(cmp) ? { rows: cmp, verdicts: [] } : cmp;
  const out = [];
  if (c.experiment) {
    // two load generators (a run measured with k6 against one with Locust): said on each side,
    // since the generator is part of what is compared
    const engines = c.baseline.engine !== c.contender.engine;
    const tag = (s) => `${s.run_id}${s.quick ? ' (QUICK)' : ''}${s.complete ? '' : ' (incomplete)'}${engines ? ` (measured with ${s.engine ?? 'an unrecorded load engine'})` : ''}`;
    out.push(`${c.experiment}: baseline ${tag(c.baseline)}, contender ${tag(c.contender)}`, '');
  }
  out.push(textTable(
    ['Metric', 'Variant', 'Baseline', 'Contender', 'Diff', 'Unit', 'Diff %'],
    c.rows.map((r) => [r.metric, r.variant, fmtNumber(r.baseline), fmtNumber(r.contender), signed(r.diff), r.unit, signed(r.diff_pct, '%')]),
    { right: [2, 3, 4, 6] },
  ));
  if (c.verdicts.length) {
    const res = (result, p) => (result === null ? '-' : `${result}${p === null ? '' : ` (p = ${fmtP(p)})`}`);
    out.push('', textTable(['Claim', 'Baseline', 'Contender'], c.verdicts.map((v) => [v.claim, res(v.baseline, v.baseline_p), res(v.contender, v.contender_p)])));
  }
  return `${out.join('\n')}\n`;
}
