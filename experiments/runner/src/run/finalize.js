// Phase 4 of a run, whatever happened before it (a failed repetition, Ctrl-C, a node gone): each
// variant's summary and the verdicts, computed from the repetitions, the runner's own share of
// the machine, results.json (held against its schema: a mismatch is a warning, the figures are
// kept), the report; then everything the run created is deleted (its indices and with them
// their aliases, its closed-loop allocators' templates, the write bodies) and a lab of its own
// stopped. And the table the terminal shows at the end.
import { rmSync } from 'node:fs';
import { cpus } from 'node:os';
import { esReason } from '@tenantlab/contract/errors';
import { textTable } from '../compare.js';
import { verdictLine, writeReport } from '../report.js';
import { fmtNumber } from '../format.js';
import { metricValue } from '../metrics.js';
import { loopOutcomes, summarize, validateResults } from '../results.js';
import { median } from '../stats.js';
import { verdicts as computeVerdicts } from '../verdict.js';
import { forEachUrlBatch } from '@tenantlab/contract/bounded';

/** Phase 4 (see the header). `started`, `cpuAtStart`: when the run began, and the process's CPU then. */
export async function finishRun(run, { started, cpuAtStart }) {
  const { lab, layouts, log } = run;
  const problems = finalize(run.results, run.plan, { started, cpuAtStart, measured: run.measured });
  for (const p of problems) log(`warning: results.json does not follow its schema: ${p}`);
  for (const line of flaggedAndMovedLines(run.results, { demo: run.narrate })) log(line);
  run.write();
  try {
    await writeReport(run.dir, run.results);
  } catch (err) {
    log(`report not written: ${err.message}`);
  }
  for (const [vname, a] of layouts.allocators) {
    await a.stop().catch(() => {});
    // what the allocator made under its prefix, and its index template (the allocator's templateName)
    const prefix = `${run.prefix}${vname}-`;
    await deleteRunIndices(lab.client, prefix);
    await lab.client.indices.deleteIndexTemplate({ name: `${prefix}products` }).catch(() => {});
  }
  await deleteRunIndices(lab.client, run.prefix, log);
  if (layouts.bodies) rmSync(layouts.bodies.dir, { recursive: true, force: true });
  await lab.client.close();
  await lab.stop();
}

/**
 * The closed loop's outcome at a glance, one line per auto-isolating variant: in how many of its
 * repetitions the burst store was flagged and moved (its isolation figures: flag_s set and
 * moved). A repetition without figures counts as not moved. `demo` (make demo) tags the line as
 * the narration's; with several such variants each line names its variant.
 */
export function flaggedAndMovedLines(results, { demo = false } = {}) {
  const loops = loopOutcomes(results);
  return loops.map(({ variant, moved, of }) => `${demo ? '[demo] ' : ''}${loops.length > 1 ? `${variant.name}: ` : ''}flagged and moved in ${moved} of ${of} repetitions`);
}

/** results.json's closing figures: summaries, verdicts, the runner's CPU. -> the schema's complaints */
function finalize(results, plan, { started, cpuAtStart, measured }) {
  const metrics = plan.report?.metrics;
  for (const v of results.variants) {
    const done = v.repetitions.filter((r) => r.figures);
    v.summary = summarize(done.map((r) => r.figures), metrics);
  }
  const figures = Object.fromEntries(results.variants.map((v) => [v.name, v.repetitions.map((r) => (r.figures && r.complete ? r.figures : null))]));
  const reasons = Object.fromEntries(results.variants.map((v) => [v.name, v.repetitions.map((r) => r.incomplete_reason ?? null)]));
  results.position_effect = positionEffect(results, plan);
  if (plan.smoke) {
    // a QUICK run (or the demo): tiny data and short windows answer "does it run", not the question
    results.verdicts = [];
    results.smoke = smokeOf(results);
  } else {
    results.verdicts = computeVerdicts(plan, figures, { reasons }).map((v) => withPosition(v, results.position_effect));
  }
  results.finished_at = new Date().toISOString();
  const cores = cpus().length;
  const used = process.cpuUsage(cpuAtStart);
  results.runner = {
    // shares of the whole machine (all cores) during the measured windows
    cpu_percent: measured.wall ? Math.round((measured.cpu / (measured.wall * cores)) * 1000) / 10 : null,
    // the load generator's (Locust's) share, measured from /proc while it ran
    generator_cpu_percent: measured.wall ? Math.round((measured.loadCpu / (measured.wall * cores)) * 1000) / 10 : null,
    wall_seconds: Math.round((Date.now() - started) / 1000),
    total_cpu_seconds: Math.round(((used.user + used.system) / 1e6) * 10) / 10,
  };
  return validateResults(results);
}

/** A smoke run's outcome: every variant measured in every repetition, or which was not. */
export function smokeOf(results) {
  const failed = results.variants.flatMap((v) => v.repetitions.map((r, i) => (r.complete && r.figures ? null : `${v.name} repetition ${i + 1}: ${r.incomplete_reason ?? 'no figures'}`))).filter(Boolean);
  return failed.length
    ? { result: 'failed', reason: failed.join('; ') }
    : { result: 'passed', reason: `every variant measured in every repetition; a QUICK run (or the demo) gives no verdict: run without QUICK for one` };
}

export const POSITION_TOLERANCE = 0.1;

/**
 * Is the first measured round still off, after the cold round? For each direction's metric, each
 * variant's figure in round 1 against the median of its later rounds: a direction is flagged when
 * every variant it compares is more than POSITION_TOLERANCE off, the same way (a warm-up left in
 * the data moves them all alike); a direction of one variant (a bound) when every variant of the
 * run is. Judged per direction, not per metric: a lab that warms during round 1 leaves its first
 * windows off and its last one warm (noisy-neighbour, 2026-11-27: isolated 2.96x and elsewhere
 * 2.26x their later rounds, left-alone, third in that round, 1.04x), and the comparison of the
 * first two must say so. Needs three rounds.
 * -> { tolerance, metrics: { metric: { variant: ratio } }, flagged: [metric], directions: [claim] }
 */
export function positionEffect(results, plan) {
  const out = { tolerance: POSITION_TOLERANCE, metrics: {}, flagged: [], directions: [] };
  const metrics = [...new Set((plan.expect ?? []).map((e) => e.metric))];
  for (const metric of metrics) {
    const ratios = {};
    for (const v of results.variants) {
      const reps = v.repetitions.filter((r) => r.complete && r.figures);
      if (reps.length < 3) continue;
      const value = (r) => metricValue(r.figures, metric);
      const first = reps.find((r) => (r.measured_round ?? r.round) === 1);
      const later = reps.filter((r) => r !== first).map(value).filter((x) => x !== null);
      if (!first || value(first) === null || later.length < 2) continue;
      const m = median(later);
      if (m) ratios[v.name] = value(first) / m;
    }
    if (Object.keys(ratios).length) out.metrics[metric] = ratios;
  }
  const offAlike = (rs) => rs.length >= 2 && (rs.every((r) => r > 1 + POSITION_TOLERANCE) || rs.every((r) => r < 1 - POSITION_TOLERANCE));
  for (const e of plan.expect ?? []) {
    const ratios = out.metrics[e.metric] ?? {};
    const names = e.variants.length >= 2 ? e.variants : Object.keys(ratios);
    const rs = names.map((n) => ratios[n]).filter((r) => r !== undefined);
    if (rs.length === names.length && offAlike(rs)) {
      out.directions.push(e.claim);
      if (!out.flagged.includes(e.metric)) out.flagged.push(e.metric);
    }
  }
  return out;
}

/** A verdict whose direction's first measured round still differed says so. */
function withPosition(v, pos) {
  if (!(pos?.directions ?? []).includes(v.claim)) return v;
  const of = v.variants.length >= 2 ? v.variants : Object.keys(pos.metrics[v.metric]);
  const ratios = of.map((n) => `${n} ${fmtNumber(pos.metrics[v.metric][n])}x`).join(', ');
  return { ...v, position_effect: true, reason: `${v.reason}. Note: the first measured round still differed from the later ones (${ratios} of their median), so part of this may be a warm-up effect` };
}

/**
 * Deletes every index (and with it every alias) whose name starts with the run's prefix, by
 * name: Elasticsearch refuses wildcard deletes (action.destructive_requires_name).
 */
export async function deleteRunIndices(client, prefix, log = () => {}) {
  try {
    const rows = await client.cat.indices({ index: `${prefix}*`, format: 'json', h: 'index', expand_wildcards: 'all' });
    const indices = rows.map((r) => r.index).filter((i) => i.startsWith(prefix));
    await forEachUrlBatch(indices, (index) => client.indices.delete({ index }));
  } catch (err) {
    log(`warning: could not delete the run's indices ${prefix}*: ${esReason(err)}; list them with: curl '<es>/_cat/indices/${prefix}*'`);
  }
}

/** What the terminal shows at the end: each variant's figures (mean and spread), the verdicts. */
export function closingText(results) {
  const cell = (s) => (s && s.mean !== null && s.mean !== undefined ? `${s.mean.toFixed(1)} ± ${(s.stdev ?? 0).toFixed(1)}` : '-');
  const reps = (v) => `${v.repetitions.filter((r) => r.complete).length}/${v.repetitions.length}`;
  // the columns of the workload: bulks and documents for ingest, indices for many-shards
  const kind = results.plan.workload?.scenario;
  const columns = kind === 'ingest'
    ? [['shards', (v) => v.layout?.primary_shards ?? '-'], ['replicas', (v) => v.settings.replicas], ['docs/s', (v) => cell(v.summary.docs_per_s)], ['bulks/s', (v) => cell(v.summary.bulk_ops_per_s)],
      ['avg ms', (v) => cell(v.summary.avg_ms)], ['p95 ms', (v) => cell(v.summary.p95_ms)], ['rejected', (v) => cell(v.summary.docs_rejected)]]
    : kind === 'many-shards'
      ? [['indices', (v) => v.settings.indices], ['indices/s', (v) => cell(v.summary.indices_per_s)], ['create avg ms', (v) => cell(v.summary.avg_ms)], ['create p95 ms', (v) => cell(v.summary.p95_ms)],
        ['state KB', (v) => (v.summary.cluster_state_bytes?.mean ? Math.round(v.summary.cluster_state_bytes.mean / 1024) : '-')], ['master heap MB', (v) => cell(v.summary.master_heap_max_mb)]]
      : [['shards', (v) => v.layout?.primary_shards ?? '-'], ['median shard', (v) => (v.layout?.median_shard_bytes ? `${Math.round(v.layout.median_shard_bytes / 1024)} KB` : '-')],
        ['avg ms', (v) => cell(v.summary.avg_ms)], ['p95 ms', (v) => cell(v.summary.p95_ms)], ['p99 ms', (v) => cell(v.summary.p99_ms)], ['req/s', (v) => cell(v.summary.throughput_rps)]];
  const rows = results.variants.map((v) => [v.label ?? v.name, ...columns.map(([, f]) => f(v)), reps(v)]);
  const table = textTable(['variant', ...columns.map(([h]) => h), 'reps'], rows, { right: columns.map((_, i) => i + 1) });
  const verdicts = results.smoke ? [`  smoke ${results.smoke.result}: ${results.smoke.reason}`] : results.verdicts.map((v) => `  ${verdictLine(v).replaceAll('**', '')}`);
  return [
    '',
    `${results.experiment}${results.quick ? ' (QUICK)' : ''}: mean ± stdev over the repetitions${results.complete ? '' : ` — INCOMPLETE: ${results.incomplete_reason}`}`,
    table,
    '',
    'verdicts:',
    ...verdicts,
  ].join('\n');
}
