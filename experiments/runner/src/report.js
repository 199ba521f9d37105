// A run's report from its results.json: report.md, a self-contained report.html (the same
// content, charts inlined, no external asset) and the charts as SVG files. Both documents are
// rendered from one list of blocks so they cannot drift apart.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { burstTimeline, curveOverX, latencyByVariant, latencyOverTime, publishedVsLab } from './charts.js';
import { fmtBytes, fmtDuration, fmtNumber, fmtP, fmtWithUnit } from './format.js';
import { DEFAULT_REPORT_METRICS, columnDef, metricDef, metricValue } from './metrics.js';
import { generatorCpuOf, loadEngineOf, summarize } from './results.js';
import { familyShortfall, protocolText } from './verdict.js';

// per workload: what a repetition's raw row and its Elasticsearch row show
const RAW_METRICS = {
  // late_arrivals (the Locust engine) or dropped_iterations (results measured with k6): whichever the run has
  search: ['requests', 'throughput_rps', 'errors', 'error_rate', 'avg_ms', 'p50_ms', 'p95_ms', 'p99_ms', 'max_ms', 'late_arrivals', 'dropped_iterations'],
  ingest: ['requests', 'bulk_ops_per_s', 'docs_per_s', 'docs_indexed', 'docs_rejected', 'docs_failed', 'avg_ms', 'p50_ms', 'p95_ms', 'p99_ms', 'max_ms'],
  'many-shards': ['indices_created', 'create_elapsed_s', 'indices_per_s', 'avg_ms', 'p95_ms', 'max_ms', 'errors', 'delete_s'],
};
const ES_METRICS = {
  search: ['query_ms_per_query', 'fetch_ms_per_fetch', 'search_queue_max', 'search_rejected', 'gc_ms'],
  ingest: ['indexing_docs_per_s', 'merges', 'merge_ms', 'refreshes', 'refresh_ms', 'segment_count', 'write_queue_max', 'write_rejected', 'indexing_pressure_rejected', 'gc_ms'],
  'many-shards': ['cluster_state_bytes', 'master_heap_max_mb', 'master_gc_ms', 'pending_tasks_max'],
};
const workloadOf = (results) => (['ingest', 'many-shards'].includes(results.plan.workload?.scenario) ? results.plan.workload.scenario : 'search');

// --- blocks -> Markdown / HTML -------------------------------------------------------------------
// A block is { h, text } | { p } | { list } | { table: { head, rows } } | { svg: { file, alt, markup } }.
// Text may use **bold**, `code` and [text](url); nothing else.

const escapeHtml = (s) => String(s).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);

function inlineHtml(text) {
  return escapeHtml(text)
    .replace(/`([^`]+)`/g, '<code>$1</code>')
    .replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>')
    .replace(/\[([^\]]+)\]\(([^)\s]+)\)/g, '<a href="$2">$1</a>');
}

/** A Markdown table, by hand: a header row, the separator, one row per line; pipes escaped. */
export function markdownTable(head, rows) {
  const cell = (v) => String(v ?? '-').replaceAll('|', '\\|').replaceAll('\n', ' ');
  const line = (cells) => `| ${cells.map(cell).join(' | ')} |`;
  return [line(head), `|${head.map(() => '---').join('|')}|`, ...rows.map(line)].join('\n');
}

export function renderMarkdown(blocks) {
  return `${blocks.map((b) => {
    if (b.h) return `${'#'.repeat(b.h)} ${b.text}`;
    if (b.p !== undefined) return b.p;
    if (b.list) return b.list.map((item) => `- ${item}`).join('\n');
    if (b.table) return markdownTable(b.table.head, b.table.rows);
    if (b.svg) return `![${b.svg.alt}](${b.svg.file})`;
    throw new TypeError(`unknown block ${JSON.stringify(Object.keys(b))}`);
  }).join('\n\n')}\n`;
}

const CSS = `body{font:14px/1.45 system-ui,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}
h1{font-size:1.5em}h2{font-size:1.2em;margin-top:1.8em;border-bottom:1px solid #ddd}
table{border-collapse:collapse;margin:.6em 0;font-size:13px}th,td{border:1px solid #ccc;padding:3px 8px;text-align:left}
th{background:#f3f3f3}td{font-variant-numeric:tabular-nums}code{background:#f3f3f3;padding:0 3px}
figure{margin:1em 0}figcaption{font-size:12px;color:#555}svg{max-width:100%;height:auto}
.scroll{overflow-x:auto;max-width:100%}.scroll:focus{outline:2px solid #4a7bd0}`;

export function renderHtml(blocks, title) {
  const body = blocks.map((b) => {
    if (b.h) return `<h${b.h}>${inlineHtml(b.text)}</h${b.h}>`;
    if (b.p !== undefined) return `<p>${inlineHtml(b.p)}</p>`;
    if (b.list) return `<ul>\n${b.list.map((i) => `<li>${inlineHtml(i)}</li>`).join('\n')}\n</ul>`;
    if (b.table) {
      const head = `<tr>${b.table.head.map((h) => `<th>${inlineHtml(h)}</th>`).join('')}</tr>`;
      const rows = b.table.rows.map((r) => `<tr>${r.map((c) => `<td>${inlineHtml(c ?? '-')}</td>`).join('')}</tr>`).join('\n');
      // a table wider than the page scrolls inside its own box (a keyboard reaches it too), never the page
      return `<div class="scroll" tabindex="0" role="region" aria-label="table: ${escapeHtml(b.table.head.slice(0, 3).join(', '))}">\n<table>\n${head}\n${rows}\n</table>\n</div>`;
    }
    if (b.svg) return `<figure>${b.svg.markup}<figcaption>${escapeHtml(b.svg.alt)} (${escapeHtml(b.svg.file)})</figcaption></figure>`;
    throw new TypeError(`unknown block ${JSON.stringify(Object.keys(b))}`);
  }).join('\n');
  return `<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<title>${escapeHtml(title)}</title>\n<style>\n${CSS}\n</style>\n</head>\n<body>\n${body}\n</body>\n</html>\n`;
}

// --- the report's content ------------------------------------------------------------------------

const labelOf = (v) => v.label || v.name;
const headOf = (m) => {
  const d = metricDef(m) ?? columnDef(m);
  return d.unit && !['ratio', 'bytes', 'req', 'iter', 'tasks', ''].includes(d.unit) ? `${d.label} (${d.unit})` : d.label;
};
const cellOf = (v, unit) => (unit === 'ratio' ? fmtWithUnit(v, unit) : unit === 'bytes' ? fmtBytes(v) : fmtNumber(v));

export function verdictLine(v) {
  const adjusted = v.p_adjusted !== undefined && v.p_adjusted !== null && v.family_size > 1 ? `, ${fmtP(v.p_adjusted)} after Holm over ${v.family_size} directions` : '';
  const p = v.p_value === null ? 'no test run' : `p = ${fmtP(v.p_value)}${adjusted}`;
  const level = `${Math.round(v.confidence * 1000) / 10}% CI`;
  const e = v.effect && v.effect.ratio !== null
    ? v.effect.unbounded
      ? `; ratio ${fmtNumber(v.effect.ratio)}${v.effect.of ? ` (${v.effect.of})` : ''}, ${level} unbounded (the denominator cannot be told from zero)`
      : v.effect.ci_low !== null ? `; ratio ${fmtNumber(v.effect.ratio)}${v.effect.of ? ` (${v.effect.of})` : ''}, ${level} ${fmtNumber(v.effect.ci_low)}-${fmtNumber(v.effect.ci_high)}` : ''
    : '';
  // the reason may start with a variant name (s8, 2x4): kept as written, after a dash
  return `**${v.result}**: ${v.claim} (${v.test ?? 'no test'}, ${p}${e}) — ${v.reason}.`;
}

function articleTable(results, columns, summaries) {
  const head = ['variant'];
  const getters = [(v) => labelOf(v)];
  for (const name of columns) {
    const def = columnDef(name);
    if (!def || name === 'name') continue;
    head.push(headOf(name));
    if (def.kind === 'variant') getters.push((v) => (name === 'label' ? labelOf(v) : v.name));
    else if (def.kind === 'setting') getters.push((v) => v.settings[name]);
    else if (def.kind === 'layout') getters.push((v) => cellOf(v.layout?.[name] ?? null, def.unit));
    else {
      getters.push((v) => cellOf(summaries[v.name][name]?.mean ?? null, def.unit));
      if (results.variants.some((v) => typeof v.published?.[name] === 'number')) {
        head.push(`${headOf(name)}, article`);
        getters.push((v) => cellOf(v.published?.[name] ?? null, def.unit));
      }
    }
  }
  return { head, rows: results.variants.map((v) => getters.map((g) => g(v))) };
}

function metricsTable(results, metrics, summaries) {
  const head = ['variant', 'repetitions', ...metrics.map(headOf)];
  const rows = results.variants.map((v) => {
    const s = summaries[v.name];
    const n = Math.max(0, ...metrics.map((m) => s[m].n));
    return [labelOf(v), `${n} of ${v.repetitions.length}`, ...metrics.map((m) => {
      const { unit } = metricDef(m);
      const x = s[m];
      if (x.n === 0) return '-';
      const spread = x.stdev === null ? '' : ` ± ${cellOf(x.stdev, unit)}`;
      const rel = x.rsd === null ? '' : ` (rsd ${fmtNumber(x.rsd, { digits: 2 })}%)`;
      return `${cellOf(x.mean, unit)}${spread}${rel}`;
    })];
  });
  return { head, rows };
}

/** Every repetition in the order the rounds ran (round, then the spec's variant order). */
function repetitionsInOrder(results) {
  return results.variants
    .flatMap((v, vi) => v.repetitions.map((rep) => ({ v, vi, rep })))
    .sort((a, b) => a.rep.round - b.rep.round || a.vi - b.vi);
}

function rawTable(results) {
  const optional = ['late_arrivals', 'dropped_iterations'];
  const metrics = RAW_METRICS[workloadOf(results)].filter((m) => !optional.includes(m) || results.variants.some((v) => v.repetitions.some((r) => metricValue(r.figures, m) !== null)));
  const head = ['round', 'variant', 'started', 'complete', ...metrics.map(headOf)];
  const rows = repetitionsInOrder(results).map(({ v, rep }) => [
    rep.round, labelOf(v), rep.started_at ?? '-', `${rep.complete ? 'yes' : `no${rep.incomplete_reason ? `: ${rep.incomplete_reason}` : ''}`}${rep.retried ? ` (second attempt; the first: ${rep.retried})` : ''}`,
    ...metrics.map((m) => cellOf(metricValue(rep.figures, m), metricDef(m).unit)),
  ]);
  return { head, rows };
}

function byTypeTable(results) {
  const rows = [];
  for (const { v, rep } of repetitionsInOrder(results)) {
    for (const [type, f] of Object.entries(rep.figures?.by_type ?? {})) {
      rows.push([rep.round, labelOf(v), type, fmtNumber(f.requests ?? null), fmtNumber(f.avg_ms ?? null), fmtNumber(f.p95_ms ?? null)]);
    }
  }
  return rows.length ? { head: ['round', 'variant', 'query type', 'requests', 'average (ms)', 'p95 (ms)'], rows } : null;
}

function esTable(results) {
  const metrics = ES_METRICS[workloadOf(results)];
  const rows = repetitionsInOrder(results).filter(({ rep }) => rep.figures?.es || rep.figures?.many_shards).map(({ v, rep }) => {
    const es = rep.figures.es ?? {};
    const cpu = Object.entries(es.cpu_percent_by_node ?? {}).map(([n, c]) => `${n} ${fmtNumber(c)}%`).join(', ') || '-';
    return [rep.round, labelOf(v), ...metrics.map((m) => cellOf(metricValue(rep.figures, m), metricDef(m).unit)), cpu];
  });
  return rows.length ? { head: ['round', 'variant', ...metrics.map(headOf), 'CPU by node'], rows } : null;
}

/** Which load generator measured the run, in words (a run measured with k6 says so). */
export function engineLine(results) {
  const e = loadEngineOf(results);
  if (!e) return 'load engine: not recorded';
  const what = `${e.label}${e.version ? ` ${e.version}` : ''}`;
  return e.k6Era ? `load engine: ${what}: measured with k6 (before the Locust engine)` : `load engine: ${what}`;
}

function environmentList(results) {
  const { machine, data } = results.environment;
  const engine = loadEngineOf(results);
  // the engine has a line of its own (results measured with k6 keep its version under versions)
  const versions = Object.entries(results.environment.versions).filter(([k]) => !(k === 'k6' && engine?.k6Era));
  const w = results.plan.workload;
  const kind = workloadOf(results);
  const load = kind === 'ingest' ? `${w.clients} clients, each sending its next bulk of ${w.bulk_docs} documents when the last is answered (rejections counted, never retried)`
    : kind === 'many-shards' ? `${w.clients} clients creating indices of 1 shard and 0 replicas, ${w.docs_per_index} documents into each; bounded by ${w.measure}`
      : w.model === 'open' ? `open model, ${fmtNumber(w.rate)} requests/s${w.rate_of_saturation ? ` (${fmtNumber(w.rate_of_saturation * 100)}% of the lab's measured saturation)` : ''}` : `closed model, ${w.vus} VUs, think time ${fmtNumber(w.think_ms)} ms`;
  const dataLine = kind === 'search'
    ? `data: profile ${data.profile}, scale ${data.scale}, seed ${data.seed}: ${fmtNumber(data.stores)} stores, ${fmtNumber(data.documents)} documents, ${fmtBytes(data.bytes)} (the same documents in every variant)`
    : `data: document profile ${data.profile} (${data.kind}), seed ${data.seed}: documents of about ${fmtNumber(data.document_bytes)} bytes, bulks of about ${fmtBytes(data.bulk_bytes)}; new indices for every repetition, deleted after it`;
  const phases = kind === 'many-shards' ? 'until every index is made' : `ramp-up ${w.ramp_up}, warm-up ${w.warmup} (excluded), measured ${w.measure}`;
  const r = results.runner;
  return [
    `machine: ${machine.cores} cores, ${fmtBytes(machine.memory_bytes)} memory, ${machine.cpu_model}, ${machine.os}`,
    `lab: ${results.lab.mode === 'own' ? 'a lab of its own' : 'the running lab, checked quiet'} at ${results.lab.es_url}, runtime ${results.environment.runtime}`,
    `versions: ${versions.map(([k, v]) => `${k} ${v ?? '?'}`).join(', ')}`,
    engineLine(results),
    `lab.env sha256: \`${results.environment.lab_env_sha256 ?? '?'}\`; git commit: \`${results.environment.git_commit ?? '?'}\``,
    dataLine,
    `workload: ${w.scenario}, ${load}; ${phases}`,
    `plan: ${results.plan.repetitions} repetitions, ${roundsText(results)}; confidence ${results.plan.confidence}${results.quick ? '; QUICK run (small data, short phases)' : ''}`,
    ...(results.environment.shape !== undefined ? [`node shape: ${results.environment.shape ?? 'not recorded'}`] : []),
    ...jvmLines(results.environment.jvm),
    ...(results.environment.git_clean !== undefined ? [`tree: ${results.environment.git_clean ? 'clean' : 'with uncommitted changes'}; publishable: ${results.environment.publishable?.ok ? 'yes' : 'no'}${results.environment.publishable?.override ? ' (PUBLISH=force)' : ''}`] : []),
    `runner: ${fmtNumber(r.cpu_percent)}% CPU while measuring (${engine?.label ?? 'load generator'} ${fmtNumber(generatorCpuOf(r))}%), wall time ${r.wall_seconds === null ? '-' : fmtDuration(r.wall_seconds)}`,
  ];
}

/** The order of every round in words; runs before randomised rounds show their one interleaved order. */
export function roundsText(results) {
  const { rounds, order, order_seed: seed } = results.plan;
  if (!rounds) return `interleaved (${order.slice(0, results.variants.length * 2).join(', ')}${order.length > results.variants.length * 2 ? ', ...' : ''})`;
  return `rounds in an order drawn from seed ${seed} (${rounds.map((r, i) => `${i + 1}: ${r.join(', ')}`).join('; ')})`;
}

/**
 * results.calibration in words, for the report's protocol paragraph ('' when the rates were the
 * spec's own): the windows that measured the lab's saturation and the rates they gave.
 */
export function calibrationText(results) {
  const c = results.calibration;
  if (!c?.passes?.length) return '';
  const rps = c.passes.map((p) => fmtNumber(p.throughput_rps)).join(', ');
  const w = results.plan.workload;
  const rates = [
    c.rate !== null && c.rate !== undefined ? `the storefront at ${fmtNumber(c.rate)} page views/s (${fmtNumber(w.rate_of_saturation * 100)}%)` : null,
    ...[...new Map(results.variants.filter((v) => c.burst_rates?.[v.name] !== undefined).map((v) => [c.burst_rates[v.name], v.burst.rate_of_saturation])).entries()]
      .map(([rate, share]) => `the bot at ${fmtNumber(rate)} pages/s (${fmtNumber(share * 100)}%)`),
  ].filter(Boolean).join(', ');
  // runs before 2026-11-29 15:00 stopped at two windows within the tolerance and took the last one's figure
  const tol = fmtNumber(c.tolerance * 100);
  const rule = c.windows ? `until ${IN_A_ROW[c.windows - 1] ?? `${c.windows - 1} in a row`} set no new high more than ${tol}% above the best before them` : `until two in a row agreed within ${tol}%`;
  const used = c.windows ? `the median of the last ${NUMBER[c.windows] ?? c.windows}` : "the last window's figure";
  const head = `The rates are shares of the lab's saturation, measured on it after a cold round run saturated: ${c.passes.length} windows of ${c.window_s} s of ${c.variant}'s stores with ${c.vus} shoppers and no think time ${rule} (${rps} page views/s)`;
  const saturation = `saturation${c.windows ? ` (${used})` : ''} ${fmtNumber(c.saturation_rps)} page views/s`;
  return `${head}${c.steady ? '' : `, **never steady** (${used} was used)`}: ${saturation}, so ${rates}. `;
}

const NUMBER = { 2: 'two', 3: 'three', 4: 'four' };

const IN_A_ROW = { 1: 'the last window', 2: 'two in a row', 3: 'three in a row' };

/** results.calibration.closing in words: where the lab's saturation was after the last round, and the rates' shares of it then. */
function closingText(results) {
  const c = results.calibration;
  const k = c?.closing;
  if (!k?.passes?.length) return '';
  const shares = [
    c.rate !== null && c.rate !== undefined ? `the storefront ${fmtNumber((c.rate / k.saturation_rps) * 100)}%` : null,
    ...[...new Set(Object.values(c.burst_rates ?? {}))].map((r) => `the bot ${fmtNumber((r / k.saturation_rps) * 100)}%`),
  ].filter(Boolean).join(', ');
  const moved = Math.abs(k.ratio - 1) <= c.tolerance ? 'within the calibration\'s tolerance of it' : `**the lab got ${k.ratio > 1 ? 'faster: the rates were smaller' : 'slower: the rates were larger'} shares of it by the end**`;
  return `After the last round the same windows measured ${fmtNumber(k.saturation_rps)} page views/s (${k.passes.map((p) => fmtNumber(p.throughput_rps)).join(', ')}${k.steady ? '' : ', never steady'}), ${fmtNumber(k.ratio)}x the calibration's, ${moved}${shares ? ` (${shares} of it)` : ''}. `;
}

/** results.settle in words, for the report's protocol paragraph ('' when the run had none). */
function settleText(s) {
  if (!s?.passes?.length) return '';
  const p95s = s.passes.map((p) => (p.p95_ms == null ? '-' : Math.round(p.p95_ms))).join(', ');
  const head = `Then ${s.passes.length} unmeasured windows of ${s.window_s} s of ${s.variant} until two in a row had at most ${s.max_late_rate * 100}% late arrivals and p95s within ${s.tolerance * 100}% of each other`;
  return s.steady ? `${head} (p95 ${p95s} ms). ` : `${head}, **never steady** (p95 ${p95s} ms): the first measured windows may still be a cold lab's. `;
}

// a run of fewer repetitions than its family needs today: its verdicts are of the rule of their day
function shortfallText(results) {
  const s = familyShortfall(results);
  return s ? `**This run has ${s.have} repetitions per variant, measured before the minimum was taken at Holm's first step, which asks ${s.need} for a family of ${s.family}: its verdicts were reached under the earlier minimum, and it is to be re-run.** ` : '';
}

/** The cold round and the position check, for the protocol paragraph. */
function orderText(results) {
  const budget = results.plan.over_budget ? `The full run is planned over the 30-minute budget: ${results.plan.over_budget}. ` : '';
  const cold = `${budget}${results.plan.cold_round ? `Before the first measured round: ${results.plan.cold_round}. ` : ''}${calibrationText(results)}${settleText(results.settle)}${closingText(results)}`;
  const pos = results.position_effect;
  if (!pos) return cold;
  const which = pos.directions ? pos.directions.map((c) => `"${c}"`).join(', ') : pos.flagged.join(', ');
  const flagged = pos.flagged.length
    ? `The first measured round still differed from the later ones for ${which} (every variant it compares more than ${pos.tolerance * 100}% off the same way); the verdicts on it say so.`
    : `The first measured round did not differ from the later ones by more than ${pos.tolerance * 100}% the same way for every variant a direction compares.`;
  return `${cold}Each round ran every variant once, in the order given under Environment. ${flagged}`;
}

function jvmLines(jvm) {
  if (!jvm?.nodes?.length) return [];
  const key = (n) => `${n.vm ?? 'JVM'} ${n.version ?? '?'}, heap ${fmtBytes(n.heap_max_bytes)}, ${n.gc.join(' + ') || 'collector ?'}${n.flags.length ? ` (${n.flags.join(' ')})` : ''}`;
  const groups = new Map();
  for (const n of jvm.nodes) groups.set(key(n), [...(groups.get(key(n)) ?? []), n.name]);
  return [...groups.entries()].map(([k, names]) => `JVM: ${k} on ${names.join(', ')}`);
}

/**
 * many-shards: the first index count whose creation rate fell below half the best one's, or that
 * none did within the sweep; and how close the master's heap came to its limit. null otherwise.
 */
export function degradation(results, summaries) {
  if (results.plan.workload?.scenario !== 'many-shards') return null;
  const rows = results.variants.map((v) => ({ n: v.settings.indices, rate: summaries[v.name]?.indices_per_s?.mean ?? null, heap: summaries[v.name]?.master_heap_max_mb?.mean ?? null,
    limit: v.repetitions.find((r) => r.figures?.many_shards?.master_heap_limit_mb)?.figures.many_shards.master_heap_limit_mb ?? null }))
    .filter((r) => r.rate !== null).sort((a, b) => a.n - b.n);
  if (!rows.length) return null;
  const best = Math.max(...rows.map((r) => r.rate));
  const low = rows.find((r) => r.rate < best / 2);
  const last = rows[rows.length - 1];
  const heap = last.heap !== null && last.limit ? ` The master's heap in use peaked at ${fmtNumber(last.heap)} MB of ${fmtNumber(last.limit)} at ${fmtNumber(last.n)} indices.` : '';
  return (low
    ? `Creation fell below half its best rate (${fmtNumber(best)} indices/s) at ${fmtNumber(low.n)} indices (${fmtNumber(low.rate)} indices/s).`
    : `No degradation within the sweep: at ${fmtNumber(last.n)} indices, the largest, creation ran at ${fmtNumber(last.rate)} indices/s, ${fmtNumber((last.rate / best) * 100)}% of the best (${fmtNumber(best)}); half the best is where this report would name it.`) + heap;
}

/** The charts of a run: [{ file, alt, markup }], those with nothing to draw left out. */
export async function chartsOf(results, metrics) {
  const msMetrics = ['avg_ms', 'p95_ms'].filter((m) => metrics.includes(m));
  const charted = msMetrics.length ? msMetrics : metrics.filter((m) => metricDef(m).unit === 'ms').slice(0, 1);
  const out = [];
  for (const m of charted) {
    out.push({ file: `latency-by-variant-${m}.svg`, alt: `${metricDef(m).label} per variant, every repetition`, markup: await latencyByVariant(results, m) });
  }
  // queries/s per cell (a throughput sweep), each store half's figures where the spec asks, and
  // the write workloads' rates and costs
  const perVariant = (x) => x === 'throughput_rps' || /^(odd|even)\.(avg_ms|burst_p95_ratio)$/.test(x) || /^(neighbours|others)\.(after_ratio|recovered_share)$/.test(x)
    || ['docs_per_s', 'bulk_ops_per_s', 'indices_per_s', 'docs_rejected', 'merge_ms', 'cluster_state_bytes', 'master_heap_max_mb'].includes(x);
  for (const m of metrics.filter(perVariant)) {
    out.push({ file: `by-variant-${m.replace('.', '-')}.svg`, alt: `${metricDef(m).label} per variant, every repetition`, markup: await latencyByVariant(results, m) });
  }
  // a curve over a numeric variable (data nodes, shards): the repetitions against x, the fitted line
  // or the peak; a smoke run (no verdict) still draws its means over x from the spec's directions
  const curves = results.smoke ? (results.plan.expect ?? []) : results.verdicts;
  for (const v of curves.filter((x) => (x.form === 'linear' || x.form === 'peak') && x.x)) {
    out.push({ file: `curve-${v.form}-${v.metric}.svg`, alt: `${metricDef(v.metric).label} against x (${v.form === 'linear' ? 'the least-squares line' : 'the best mean marked'})`, markup: await curveOverX(results, v) });
  }
  out.push({ file: 'latency-over-time.svg', alt: 'average latency over the measured window', markup: await latencyOverTime(results, 'avg_ms') });
  out.push({ file: 'burst-timeline.svg', alt: 'p95 per store half over the measured window, the burst shaded', markup: await burstTimeline(results) });
  const published = new Set(results.variants.flatMap((v) => Object.keys(v.published ?? {})));
  for (const m of [...published].filter((x) => metricDef(x))) {
    out.push({ file: `published-vs-lab-${m}.svg`, alt: `${metricDef(m).label}: the article's figures beside the lab's, relative to the first variant`, markup: await publishedVsLab(results, m) });
  }
  return out.filter((c) => c.markup);
}

/** results -> the report's blocks (the charts already rendered). */
export function reportBlocks(results, charts) {
  const metrics = results.plan.report?.metrics ?? [...DEFAULT_REPORT_METRICS];
  const table = results.plan.report?.table ?? metrics;
  const summaries = Object.fromEntries(results.variants.map((v) => [v.name, summarize(v.repetitions, [...new Set([...metrics, ...table.filter((c) => metricDef(c))])])]));
  const src = results.source;
  const blocks = [
    { h: 1, text: `${results.experiment}: ${results.title}` },
    { p: `Run \`${results.run_id}\`, ${results.started_at}${results.finished_at ? ` to ${results.finished_at}` : ''}; ${results.quick ? 'QUICK' : 'full'} run, ${results.plan.repetitions} repetitions per variant.` },
  ];
  if (!results.complete) blocks.push({ p: `**incomplete run**: ${results.incomplete_reason ?? 'no reason recorded'}. The figures below are what was measured.` });
  const pub = results.environment?.publishable;
  if (pub && !pub.ok) blocks.push({ p: `**not publishable**: ${pub.reasons.join('; ')}.` });
  if (pub?.override) blocks.push({ p: `**published anyway** (PUBLISH=force): ${pub.reasons.join('; ')}.` });
  blocks.push({ h: 2, text: 'Verdicts' });
  if (results.smoke) blocks.push({ p: `**smoke run, no verdict** (${results.smoke.result}): ${results.smoke.reason}.${results.plan.left_out?.length ? ` Left out of this QUICK run: ${results.plan.left_out.join(', ')} (quick: false in the spec; only a verdict run measures ${results.plan.left_out.length === 1 ? 'it' : 'them'}).` : ''}${results.plan.lab_left_out ? ` The lab: ${results.plan.lab_left_out}.` : ''}${results.calibration ? ` ${calibrationText(results).trim()}` : ''}` });
  else blocks.push(results.verdicts.length ? { list: results.verdicts.map(verdictLine) } : { p: 'No verdict was computed.' });
  if (!results.smoke && results.verdicts.length) {
    // a run from before the protocol (no rounds recorded) says what it lacked instead
    blocks.push({ p: results.plan.rounds
      ? `Protocol: ${protocolText(results.plan, results.verdicts)} ${shortfallText(results)}${orderText(results)}`
      : 'Protocol: this run predates the verdict protocol: one fixed order of variants in every round, a warm-up pass shorter than a window, no correction over the family of directions, bootstrap intervals.' });
  }
  blocks.push({ h: 2, text: 'Hypothesis' }, { p: results.hypothesis });
  blocks.push({ h: 2, text: 'Source' });
  blocks.push({ list: [
    `[${src.title}](${src.url})${src.table ? `, ${src.table}` : ''}`,
    ...(src.setup ? [`setup: ${src.setup}`] : []),
    ...(src.notes ? [src.notes] : []),
  ] });
  const degrade = degradation(results, summaries);
  if (degrade) blocks.push({ h: 2, text: 'Where the lab degrades' }, { p: degrade });
  blocks.push({ h: 2, text: 'Results in the article\'s table shape' });
  blocks.push({ p: 'Lab figures are means across repetitions; the article\'s figures are from its own cluster and data, so compare directions, not values.' });
  blocks.push({ table: articleTable(results, table, summaries) });
  blocks.push({ h: 2, text: 'Every metric per variant' });
  blocks.push({ p: 'mean ± sample standard deviation across repetitions (rsd: relative standard deviation).' });
  blocks.push({ table: metricsTable(results, metrics, summaries) });
  blocks.push({ h: 2, text: 'Charts' });
  for (const c of charts) blocks.push({ svg: c });
  blocks.push({ h: 2, text: 'Every repetition (raw)' });
  blocks.push({ p: 'The measured window only; warm-up samples excluded.' });
  blocks.push({ table: rawTable(results) });
  const byType = byTypeTable(results);
  if (byType) blocks.push({ h: 3, text: 'Per query type' }, { table: byType });
  blocks.push({ h: 2, text: 'Elasticsearch side' });
  const es = esTable(results);
  blocks.push(es ? { table: es } : { p: 'No Elasticsearch figures were recorded.' });
  blocks.push({ h: 2, text: 'Environment' }, { list: environmentList(results) });
  return blocks;
}

/**
 * Write report.md, report.html and the charts (*.svg) of a run into dir (created if missing).
 * -> the file names written.
 */
export async function writeReport(dir, results) {
  mkdirSync(dir, { recursive: true });
  const metrics = results.plan.report?.metrics ?? [...DEFAULT_REPORT_METRICS];
  const charts = await chartsOf(results, metrics);
  const blocks = reportBlocks(results, charts);
  for (const c of charts) writeFileSync(join(dir, c.file), c.markup);
  writeFileSync(join(dir, 'report.md'), renderMarkdown(blocks));
  writeFileSync(join(dir, 'report.html'), renderHtml(blocks, `${results.experiment}: ${results.title}`));
  return ['report.md', 'report.html', ...charts.map((c) => c.file)];
}
