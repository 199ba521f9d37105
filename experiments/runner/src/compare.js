// Two runs of one experiment side by side, the way `esrally compare` lays out two races (Metric,
// Task, Baseline, Contender, Diff, Unit, Diff %), with the variant in Task's place, plus what a
// mean alone hides: each side's spread and repetitions, the ratio with its interval (Fieller), a
// two-sided Mann-Whitney test across their repetitions, every difference of environment (a
// machine, commit, lab.env, engine or JVM that differs is part of what is compared), and each
// run's verdicts beside each other. FORMAT text | json | csv | md.
import { UsageError } from './errors.js';
import { fmtNumber, fmtP } from './format.js';
import { metricDef, metricValue } from './metrics.js';
import { loadEngineOf } from './results.js';
import { mannWhitneyU, mean, ratioCI, stdev } from './stats.js';

const DEFAULT_METRICS = ['throughput_rps', 'avg_ms', 'p50_ms', 'p95_ms', 'p99_ms', 'max_ms', 'error_rate', 'query_ms_per_query', 'fetch_ms_per_fetch'];
export const FORMATS = ['text', 'json', 'csv', 'md'];

function valuesOf(variant, metric) {
  if (!variant) return null;
  const xs = variant.repetitions.filter((r) => r.figures && r.complete !== false).map((r) => metricValue(r.figures, metric)).filter((x) => x !== null && Number.isFinite(x));
  return xs.length ? xs : null;
}

const side = (xs) => (xs ? { mean: mean(xs), stdev: xs.length > 1 ? stdev(xs) : null, n: xs.length } : { mean: null, stdev: null, n: 0 });

// What the figures depend on besides the layout, as [label, value] pairs to hold side by side
function environmentFacts(r) {
  const e = r.environment ?? {};
  const engine = loadEngineOf(r);
  const jvm = e.jvm?.nodes?.length ? [...new Set(e.jvm.nodes.map((n) => `${n.version ?? '?'} heap ${n.heap_max_bytes ?? '?'} ${n.gc.join('+')} ${n.flags.join(' ')}`.trim()))].join('; ') : null;
  const d = e.data ?? {};
  const w = r.plan?.workload ?? {};
  return [
    ['CPU model', e.machine?.cpu_model ?? null],
    ['cores', e.machine?.cores ?? null],
    ['memory', e.machine?.memory_bytes ?? null],
    ['runtime', e.runtime ?? null],
    ['node shape', e.shape ?? null],
    ['git commit', e.git_commit ?? null],
    ['lab.env', e.lab_env_sha256 ?? null],
    ['load engine', engine ? `${engine.label} ${engine.version ?? ''}`.trim() : null],
    ['Elasticsearch', e.versions?.elasticsearch ?? null],
    ['JVM', jvm],
    ['data', `${d.profile ?? '?'} scale ${d.scale ?? '-'} seed ${d.seed ?? '?'}`],
    ['workload', `${w.scenario ?? '?'} ${w.model ?? ''} vus ${w.vus ?? '-'} rate ${w.rate ?? '-'} measure ${w.measure ?? '?'}`],
    ['QUICK', Boolean(r.quick)],
  ];
}

/**
 * Two results (baseline a, contender b) of the same experiment ->
 * { experiment, baseline: {run_id, started_at, quick, complete, engine}, contender: {...},
 *   rows: [{ metric, variant, unit, baseline: {mean, stdev, n}, contender: {...}, diff, diff_pct,
 *            ratio, ratio_low, ratio_high, ratio_unbounded, p_value }],
 *   environment: [{ what, baseline, contender }] (the differences only),
 *   verdicts: [{ claim, baseline, contender, baseline_p, contender_p }] }
 * ratio = contender / baseline with its 95% Fieller interval; p_value: two-sided Mann-Whitney of
 * the two runs' repetitions (null below 2 repetitions a side).
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
      const xa = valuesOf(a.variants.find((v) => v.name === name), metric);
      const xb = valuesOf(b.variants.find((v) => v.name === name), metric);
      if (!xa && !xb) continue;
      const base = side(xa);
      const cont = side(xb);
      const diff = xa && xb ? cont.mean - base.mean : null;
      const ci = xa && xb ? ratioCI(xb, xa) : null;
      const p = xa && xb && xa.length > 1 && xb.length > 1 ? mannWhitneyU(xb, xa, { alternative: 'two-sided' }).p : null;
      rows.push({
        metric, variant: name, unit: def.unit, baseline: base, contender: cont, diff,
        diff_pct: diff !== null && base.mean !== 0 ? (diff / Math.abs(base.mean)) * 100 : null,
        ratio: ci?.ratio ?? null, ratio_low: ci?.low ?? null, ratio_high: ci?.high ?? null, ratio_unbounded: ci ? ci.unbounded : null,
        p_value: p,
      });
    }
  }
  const fa = environmentFacts(a);
  const fb = environmentFacts(b);
  const environment = fa.map(([what, va], i) => ({ what, baseline: va, contender: fb[i][1] })).filter((x) => String(x.baseline) !== String(x.contender));
  const claims = [...new Set([...(a.verdicts ?? []).map((v) => v.claim), ...(b.verdicts ?? []).map((v) => v.claim)])];
  const verdicts = claims.map((claim) => {
    const va = a.verdicts.find((v) => v.claim === claim);
    const vb = b.verdicts.find((v) => v.claim === claim);
    return { claim, baseline: va?.result ?? null, contender: vb?.result ?? null, baseline_p: va?.p_value ?? null, contender_p: vb?.p_value ?? null };
  });
  // engine: the load generator's label (Locust, k6 for runs before the Locust engine), null when unrecorded
  const head = (r) => ({ run_id: r.run_id, started_at: r.started_at, quick: r.quick, complete: r.complete, engine: loadEngineOf(r)?.label ?? null });
  return { experiment: a.experiment, baseline: head(a), contender: head(b), rows, environment, verdicts };
}

const signed = (v, suffix = '') => (v === null ? '-' : `${v > 0 ? '+' : ''}${fmtNumber(v)}${suffix}`);
const spread = (s) => (s.mean === null ? '-' : `${fmtNumber(s.mean)} ± ${s.stdev === null ? '-' : fmtNumber(s.stdev)} (n=${s.n})`);
const ratioText = (r) => (r.ratio === null ? '-' : r.ratio_unbounded ? `${fmtNumber(r.ratio)} [unbounded]` : `${fmtNumber(r.ratio)} [${fmtNumber(r.ratio_low)}, ${fmtNumber(r.ratio_high)}]`);

/** Plain-text table with every column padded; numbers right-aligned. */
export function textTable(head, rows, { right = [] } = {}) {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const line = (cells) => `| ${cells.map((c, i) => (right.includes(i) ? String(c).padStart(widths[i]) : String(c).padEnd(widths[i]))).join(' | ')} |`;
  return [line(head), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)].join('\n');
}

const HEAD = ['Metric', 'Variant', 'Baseline', 'Contender', 'Diff', 'Unit', 'Diff %', 'Ratio [95% CI]', 'p (MW)'];
const cells = (r) => [r.metric, r.variant, spread(r.baseline), spread(r.contender), signed(r.diff), r.unit, signed(r.diff_pct, '%'), ratioText(r), fmtP(r.p_value)];

function title(c) {
  // two load generators (a run measured with k6 against one with Locust): said on each side,
  // since the generator is part of what is compared
  const engines = c.baseline.engine !== c.contender.engine;
  const tag = (s) => `${s.run_id}${s.quick ? ' (QUICK)' : ''}${s.complete ? '' : ' (incomplete)'}${engines ? ` (measured with ${s.engine ?? 'an unrecorded load engine'})` : ''}`;
  return `${c.experiment}: baseline ${tag(c.baseline)}, contender ${tag(c.contender)}`;
}

const envLines = (c) => (c.environment.length
  ? c.environment.map((d) => `environment differs: ${d.what}: ${d.baseline ?? '-'} -> ${d.contender ?? '-'}`)
  : ['environment: the same machine, commit, lab.env, engine, JVM, data and workload']);

/** A comparison -> the text `tenantlab-experiment compare` prints (FORMAT=text). */
export function formatCompare(cmp) {
  const c = Array.isArray(cmp) ? { rows: cmp, verdicts: [], environment: [] } : cmp;
  const out = [];
  if (c.experiment) out.push(title(c), ...envLines(c), '');
  out.push(textTable(HEAD, c.rows.map(cells), { right: [2, 3, 4, 6, 7, 8] }));
  out.push('', 'Baseline and Contender: mean ± sample standard deviation (repetitions); Ratio: contender / baseline with its 95% Fieller interval; p (MW): two-sided Mann-Whitney U across the two runs\' repetitions.');
  if (c.verdicts?.length) {
    const res = (result, p) => (result === null ? '-' : `${result}${p === null ? '' : ` (p = ${fmtP(p)})`}`);
    out.push('', textTable(['Claim', 'Baseline', 'Contender'], c.verdicts.map((v) => [v.claim, res(v.baseline, v.baseline_p), res(v.contender, v.contender_p)])));
  }
  return `${out.join('\n')}\n`;
}

const csvCell = (v) => {
  const s = v === null || v === undefined ? '' : String(v);
  return /[",\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
};

/** A comparison in FORMAT (text | json | csv | md). */
export function renderCompare(cmp, format = 'text') {
  if (format === 'json') return `${JSON.stringify(cmp, null, 2)}\n`;
  if (format === 'csv') {
    const head = ['metric', 'variant', 'unit', 'baseline_mean', 'baseline_stdev', 'baseline_n', 'contender_mean', 'contender_stdev', 'contender_n', 'diff', 'diff_pct', 'ratio', 'ratio_low', 'ratio_high', 'ratio_unbounded', 'p_value'];
    const rows = cmp.rows.map((r) => [r.metric, r.variant, r.unit, r.baseline.mean, r.baseline.stdev, r.baseline.n, r.contender.mean, r.contender.stdev, r.contender.n, r.diff, r.diff_pct, r.ratio, r.ratio_low, r.ratio_high, r.ratio_unbounded, r.p_value]);
    return `${[head, ...rows].map((r) => r.map(csvCell).join(',')).join('\n')}\n`;
  }
  if (format === 'md') {
    const esc = (s) => String(s).replaceAll('|', '\\|');
    const table = (head, rows) => [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.map(esc).join(' | ')} |`)].join('\n');
    const out = [`## ${title(cmp)}`, '', ...envLines(cmp).map((l) => `- ${l}`), '', table(HEAD, cmp.rows.map(cells))];
    if (cmp.verdicts.length) out.push('', table(['Claim', 'Baseline', 'Contender'], cmp.verdicts.map((v) => [v.claim, v.baseline ?? '-', v.contender ?? '-'])));
    return `${out.join('\n')}\n`;
  }
  if (format === 'text') return formatCompare(cmp);
  throw new UsageError(`FORMAT=${format}: want one of ${FORMATS.join(', ')}`);
}
