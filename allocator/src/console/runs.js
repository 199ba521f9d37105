// Experiments: every stored run (committed and local) with its date, kind and verdicts as badges,
// linking to its self-contained report.
import { h, fill } from './dom.js';

const WORDS = { reproduced: 'reproduced', not_reproduced: 'not reproduced', inconclusive: 'inconclusive' };

export function renderRuns({ runs }) {
  const el = document.getElementById('run-list');
  if (!runs.length) return fill(el, h('p', { text: 'No stored run yet: make experiment NAME=… makes one.' }));
  const rows = runs.map((r) => h('tr', { 'data-run': `${r.where}/${r.experiment}/${r.run_id}` },
    h('th', { scope: 'row' }, r.report ? h('a', { href: r.report, text: r.experiment }) : r.experiment),
    h('td', { text: r.where }),
    h('td', { text: (r.started_at ?? '').replace('T', ' ').slice(0, 16) }),
    h('td', { text: `${r.quick ? 'QUICK' : 'full'}${r.complete ? '' : ', incomplete'}` }),
    h('td', {}, r.results.length
      ? h('ul', { class: 'verdicts' }, r.results.map((v) => h('li', { class: `verdict ${v.result}`, title: v.claim }, h('span', { class: 'badge', text: WORDS[v.result] ?? v.result }), ` ${v.claim}`)))
      : r.verdicts)));
  return fill(el, h('div', { class: 'scroll' }, h('table', {}, h('caption', { text: 'Stored runs, newest first within each experiment' }), h('thead', {}, h('tr', {}, ['experiment (report)', 'stored', 'started (UTC)', 'kind', 'verdicts'].map((c) => h('th', { scope: 'col', text: c })))), h('tbody', {}, rows))));
}
