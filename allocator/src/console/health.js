// Live health: per group, two charts over the last minutes (GET /console/history): the p95 the
// allocator judges by against its objective and its relative limit, and the search rate with the
// rejections. uPlot draws them; each chart is made once and given new data on every refresh.
import uPlot from '/console/vendor/uPlot.esm.js';
import { h } from './dom.js';

const charts = new Map(); // group -> { latency, rate, box }
const WIDTH = () => Math.max(280, Math.min(560, (document.getElementById('charts').clientWidth || 600) - 24));

// colours no two lines share, and a dashed/dotted pattern as well as a colour for each limit
const P95 = '#1f5fbf';
const OBJECTIVE = '#b3261e';
const RELATIVE = '#7a4fb8';
const RATE = '#2e7d32';
const REJECTED = '#c05600';

function latencyChart(group, el) {
  return new uPlot({
    title: `${group}: p95 against its limits (ms)`,
    width: WIDTH(),
    height: 180,
    scales: { x: { time: true }, y: { range: (u, min, max) => [0, Math.max(10, max * 1.1)] } },
    series: [
      {},
      { label: 'p95', stroke: P95, width: 2 },
      { label: 'objective', stroke: OBJECTIVE, dash: [8, 4], width: 1.5 },
      { label: 'relative limit', stroke: RELATIVE, dash: [2, 3], width: 1.5 },
    ],
    axes: [{}, { label: 'ms' }],
  }, [[], [], [], []], el);
}

function rateChart(group, el) {
  return new uPlot({
    title: `${group}: searches/s and rejections/s`,
    width: WIDTH(),
    height: 150,
    scales: { x: { time: true }, y: { range: (u, min, max) => [0, Math.max(1, max * 1.1)] }, r: { range: (u, min, max) => [0, Math.max(1, max * 1.1)] } },
    series: [
      {},
      { label: 'searches/s', stroke: RATE, width: 2, scale: 'y' },
      { label: 'rejections/s', stroke: REJECTED, width: 1.5, dash: [6, 3], scale: 'r' },
    ],
    axes: [{}, { label: 'searches/s', scale: 'y' }, { label: 'rejections/s', scale: 'r', side: 1, grid: { show: false } }],
  }, [[], [], []], el);
}

/** GET /console/history -> the charts, one pair per group. */
export function renderHealth(history) {
  const box = document.getElementById('charts');
  const names = Object.keys(history.groups);
  for (const [name, c] of charts) {
    if (!names.includes(name)) {
      c.latency.destroy();
      c.rate.destroy();
      c.box.remove();
      charts.delete(name);
    }
  }
  for (const name of names) {
    const s = history.groups[name];
    let c = charts.get(name);
    if (!c) {
      const el = h('figure', { class: 'chart', 'data-group': name, 'aria-label': `${name}: p95 and rates over the last ${Math.round(history.keep_s / 60)} minutes` });
      box.append(el);
      c = { box: el, latency: latencyChart(name, el), rate: rateChart(name, el) };
      charts.set(name, c);
    }
    c.latency.setData([s.t, s.p95_ms, s.objective_ms, s.relative_limit_ms]);
    c.rate.setData([s.t, s.search_rate, s.rejected_per_s]);
  }
}
