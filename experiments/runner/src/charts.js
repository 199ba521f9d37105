// A report's charts: Vega-Lite specs compiled to Vega and rendered to standalone SVG strings
// inside Node (a headless View, renderer 'none'): no browser, no canvas, no network. Every
// function is async (Vega renders asynchronously) and resolves to an SVG string, or null when the
// results hold nothing to draw for it.
import * as vega from 'vega';
import { compile } from 'vega-lite';
import { metricDef, metricValue } from './metrics.js';

const WIDTH = 520;
const HEIGHT = 260;
const CONFIG = {
  font: 'sans-serif',
  background: 'white',
  title: { anchor: 'start', fontSize: 13, subtitleFontSize: 11, subtitleColor: '#555' },
  axis: { labelFontSize: 11, titleFontSize: 11 },
  legend: { labelFontSize: 11, titleFontSize: 11, labelLimit: 320 },
};

/** A Vega-Lite spec -> SVG markup. */
export async function renderSvg(vlSpec) {
  const { spec } = compile({ $schema: 'https://vega.github.io/schema/vega-lite/v6.json', config: CONFIG, ...vlSpec });
  const view = new vega.View(vega.parse(spec), { renderer: 'none' });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

const labelOf = (v) => v.label || v.name;
// long variant labels ("2 indices x 4 shards") are slanted so neighbours do not overlap
const variantAxis = (labels) => (Math.max(...labels.map((l) => l.length)) > 9 ? { labelAngle: -30, labelAlign: 'right', labelLimit: 200 } : { labelAngle: 0 });
const axisTitle = (metric) => {
  const d = metricDef(metric);
  return d.unit && d.unit !== 'ratio' ? `${d.label} (${d.unit})` : d.label;
};

/**
 * What a bar holds, said exactly: "mean of 5 repetitions", or when the variants hold different
 * numbers of values (a failed repetition, a figure a window could not hold) each one's count, and
 * "one value" where a bar is a single repetition, not a mean.
 */
export function barHolds(rows, order) {
  const counts = order.map((label) => rows.filter((r) => r.variant === label).length);
  const of = (n) => (n === 1 ? 'one value' : `mean of ${n} repetitions`);
  if (counts.every((n) => n === counts[0])) return of(counts[0]);
  return order.map((label, i) => `${label} ${counts[i] === 1 ? 'one value' : `mean of ${counts[i]}`}`).join(', ');
}

/**
 * (a) The metric's mean per variant as a bar, with every repetition as a dot over it: the spread
 * across repetitions is visible beside the difference between variants.
 */
export async function latencyByVariant(results, metric = 'avg_ms') {
  const rows = results.variants.flatMap((v) => v.repetitions
    .map((rep) => ({ variant: labelOf(v), round: rep.round, value: metricValue(rep.figures, metric) }))
    .filter((r) => r.value !== null));
  const order = results.variants.map(labelOf);
  const x = { field: 'variant', type: 'nominal', sort: order, title: null, axis: variantAxis(order) };
  return renderSvg({
    title: { text: `${results.experiment}: ${metricDef(metric).label} per variant`, subtitle: `bar: ${barHolds(rows, order)}; dots: each repetition` },
    width: Math.max(WIDTH / 2, 70 * order.length),
    height: HEIGHT,
    data: { values: rows },
    layer: [
      { mark: { type: 'bar', color: '#9ecae1' }, encoding: { x, y: { aggregate: 'mean', field: 'value', type: 'quantitative', title: axisTitle(metric) } } },
      { mark: { type: 'point', filled: true, color: '#08519c', size: 45 }, encoding: { x, y: { field: 'value', type: 'quantitative' }, tooltip: [{ field: 'round' }, { field: 'value' }] } },
    ],
  });
}

/**
 * (b) The metric over the measured window, one colour per variant and one line per repetition
 * (repetitions of a variant share its colour): drift within a window and between rounds shows.
 */
export async function latencyOverTime(results, metric = 'avg_ms') {
  const rows = results.variants.flatMap((v) => v.repetitions.flatMap((rep) => (rep.timeline ?? [])
    .filter((p) => typeof p[metric] === 'number')
    .map((p) => ({ variant: labelOf(v), run: `${v.name} round ${rep.round}`, t_s: p.t_s, value: p[metric] }))));
  if (!rows.length) return null;
  return renderSvg({
    title: { text: `${results.experiment}: ${metricDef(metric).label} over the measured window`, subtitle: 'one line per repetition, coloured by variant' },
    width: WIDTH,
    height: HEIGHT,
    data: { values: rows },
    mark: { type: 'line', strokeWidth: 1.5, opacity: 0.75 },
    encoding: {
      x: { field: 't_s', type: 'quantitative', title: 'seconds into the measured window' },
      y: { field: 'value', type: 'quantitative', title: axisTitle(metric) },
      color: { field: 'variant', type: 'nominal', sort: results.variants.map(labelOf), title: 'variant' },
      detail: { field: 'run', type: 'nominal' },
    },
  });
}

/**
 * (c) The article's figure beside the lab's for each variant that has a published one, both as
 * a ratio to the first such variant: absolute figures from a 4-node cluster with 100M documents
 * and from a laptop cannot be compared, their directions can.
 */
export async function publishedVsLab(results, metric = 'avg_ms') {
  const pairs = results.variants
    .map((v) => ({ v, article: v.published?.[metric], lab: v.summary?.[metric]?.mean }))
    .filter((p) => typeof p.article === 'number' && typeof p.lab === 'number' && p.article > 0 && p.lab > 0);
  if (pairs.length < 2) return null;
  const [base] = pairs;
  const rows = pairs.flatMap((p) => [
    { variant: labelOf(p.v), source: 'article', relative: p.article / base.article },
    { variant: labelOf(p.v), source: 'lab', relative: p.lab / base.lab },
  ]);
  return renderSvg({
    title: { text: `${results.experiment}: ${metricDef(metric).label}, article beside lab`, subtitle: `each relative to ${labelOf(base.v)} (= 1): directions compare across very different hardware` },
    width: Math.max(WIDTH / 2, 90 * pairs.length),
    height: HEIGHT,
    data: { values: rows },
    layer: [
      {
        mark: 'bar',
        encoding: {
          x: { field: 'variant', type: 'nominal', sort: pairs.map((p) => labelOf(p.v)), title: null, axis: variantAxis(pairs.map((p) => labelOf(p.v))) },
          xOffset: { field: 'source', type: 'nominal', sort: ['article', 'lab'] },
          y: { field: 'relative', type: 'quantitative', title: `${metricDef(metric).label}, relative to ${labelOf(base.v)}` },
          color: { field: 'source', type: 'nominal', sort: ['article', 'lab'], scale: { range: ['#fdae6b', '#3182bd'] }, title: null },
        },
      },
      { mark: { type: 'rule', strokeDash: [4, 3], color: '#444' }, encoding: { y: { datum: 1 } } },
    ],
  });
}

/**
 * (d) A burst experiment: p95 over the measured window per store half (odd, even store numbers),
 * one panel per variant with a burst, every repetition a line, the burst's window shaded. The
 * noisy-neighbour story: whether the other half's latency moves while one store is flooded.
 */
export async function burstTimeline(results) {
  // one dataset, faceted by variant: the burst windows (kind burst) and the points (kind p95)
  const rows = [];
  for (const v of results.variants) {
    for (const rep of v.repetitions) {
      if (!rep.burst || !rep.timeline_by_set) continue;
      rows.push({ kind: 'burst', variant: labelOf(v), from: rep.burst.from_s, to: rep.burst.to_s });
      // the closed loop: when the allocator flagged the store, and its move from start to end
      const iso = rep.isolation;
      if (iso?.flagged_s !== null && iso?.flagged_s !== undefined) rows.push({ kind: 'flag', variant: labelOf(v), at: iso.flagged_s });
      if (iso?.move?.created_s !== null && iso?.move?.created_s !== undefined) rows.push({ kind: 'move', variant: labelOf(v), from: iso.move.created_s, to: iso.move.finished_s ?? iso.move.created_s });
      for (const [set, points] of Object.entries(rep.timeline_by_set)) {
        for (const p of points) if (typeof p.p95_ms === 'number') rows.push({ kind: 'p95', variant: labelOf(v), half: `${set} stores`, run: `${v.name} ${set} r${rep.round}`, t_s: p.t_s, value: p.p95_ms });
      }
    }
  }
  if (!rows.some((r) => r.kind === 'p95')) return null;
  const shown = [...new Set(rows.map((r) => r.variant))];
  // what the burst was: a search bot's crawl, or a whole catalogue written back (noisy-writer)
  const what = results.variants.some((v) => v.burst?.kind === 'resubmit') ? 'the catalogue re-submission of one odd store' : 'the search-bot burst on one odd store';
  return renderSvg({
    title: {
      text: `${results.experiment}: p95 per store half over the measured window`,
      subtitle: rows.some((r) => r.kind === 'move')
        ? `grey: ${what}; red line: the allocator flags it; green: its move; one line per repetition`
        : `grey: ${what}; one line per repetition`,
    },
    data: { values: rows },
    facet: { row: { field: 'variant', type: 'nominal', sort: shown, title: null } },
    spec: {
      width: WIDTH,
      height: HEIGHT / 1.5,
      layer: [
        {
          transform: [{ filter: "datum.kind === 'burst'" }],
          // shading in colours no line uses (the lines: orange odd stores, blue even ones)
          mark: { type: 'rect', color: '#bdbdbd', opacity: 0.45 },
          encoding: { x: { field: 'from', type: 'quantitative', title: 'seconds into the measured window' }, x2: { field: 'to' } },
        },
        {
          transform: [{ filter: "datum.kind === 'move'" }],
          mark: { type: 'rect', color: '#a1d99b', opacity: 0.6 },
          encoding: { x: { field: 'from', type: 'quantitative' }, x2: { field: 'to' } },
        },
        {
          transform: [{ filter: "datum.kind === 'flag'" }],
          mark: { type: 'rule', color: '#cb181d', strokeDash: [4, 2] },
          encoding: { x: { field: 'at', type: 'quantitative' } },
        },
        {
          transform: [{ filter: "datum.kind === 'p95'" }],
          mark: { type: 'line', strokeWidth: 1.5, opacity: 0.8 },
          encoding: {
            x: { field: 't_s', type: 'quantitative', title: 'seconds into the measured window' },
            y: { field: 'value', type: 'quantitative', title: 'p95 (ms)' },
            color: { field: 'half', type: 'nominal', sort: ['odd stores', 'even stores'], scale: { range: ['#e6550d', '#3182bd'] }, title: null },
            detail: { field: 'run', type: 'nominal' },
          },
        },
      ],
    },
  });
}

/**
 * (e) A verdict of form linear or peak: every repetition's figure against the variant's x (data
 * nodes, shards), the means joined; linear adds its least-squares line (slope and R² in the
 * subtitle), peak marks the best mean.
 */
export async function curveOverX(results, verdict) {
  const xOf = new Map(verdict.variants.map((name, i) => [name, verdict.x[i]]));
  const rows = results.variants.filter((v) => xOf.has(v.name)).flatMap((v) => v.repetitions
    .map((rep) => ({ x: xOf.get(v.name), variant: labelOf(v), value: metricValue(rep.figures, verdict.metric) }))
    .filter((r) => r.value !== null));
  if (!rows.length) return null;
  const st = verdict.statistic ?? {};
  const y = { field: 'value', type: 'quantitative', title: axisTitle(verdict.metric) };
  // data nodes, shards: whole numbers, ticked as whole numbers
  const whole = verdict.x.every((v) => Number.isInteger(v));
  const x = { field: 'x', type: 'quantitative', title: verdict.x_label ?? 'x', scale: { zero: false }, ...(whole ? { axis: { tickMinStep: 1, format: 'd' } } : {}) };
  const layer = [
    { mark: { type: 'line', color: '#9ecae1', point: false }, encoding: { x, y: { ...y, aggregate: 'mean' } } },
    { mark: { type: 'point', filled: true, color: '#08519c', size: 45 }, encoding: { x, y, tooltip: [{ field: 'variant' }, { field: 'value' }] } },
  ];
  let subtitle = 'dots: each repetition; line: the means';
  if (verdict.form === 'linear' && Number.isFinite(st.slope)) {
    const xs = verdict.x;
    layer.push({
      data: { values: [xs[0], xs[xs.length - 1]].map((v) => ({ x: v, fit: st.intercept + st.slope * v })) },
      mark: { type: 'line', color: '#d94801', strokeDash: [6, 4] },
      encoding: { x, y: { field: 'fit', type: 'quantitative' } },
    });
    subtitle = `dots: each repetition; blue: the means; dashed: least squares, slope ${Math.round(st.slope * 10) / 10} per unit, R² ${Math.round(st.r2 * 1000) / 1000}${st.cap_at !== null && st.cap_at !== undefined ? `; gains halve after x = ${st.cap_at}` : ''}`;
  } else if (verdict.form === 'peak' && st.peak_x !== undefined) {
    layer.push({ data: { values: [{ x: st.peak_x }] }, mark: { type: 'rule', color: '#d94801', strokeDash: [6, 4] }, encoding: { x: { field: 'x', type: 'quantitative' } } });
    const peak = results.variants.find((v) => v.name === st.peak_variant);
    subtitle = `dots: each repetition; line: the means; dashed: the best mean, x = ${st.peak_x} (${peak ? labelOf(peak) : st.peak_variant})`;
  }
  return renderSvg({
    title: { text: `${results.experiment}: ${metricDef(verdict.metric).label} against ${verdict.x_label ?? 'x'}`, subtitle },
    width: WIDTH,
    height: HEIGHT,
    data: { values: rows },
    layer,
  });
}
