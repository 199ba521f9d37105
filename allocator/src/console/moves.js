// Moves: the jobs in progress with their phase and a progress bar, the finished ones with their
// duration and counts; auto-isolation's state; the observed rebalance plan on request.
import { getJSON } from './api.js';
import { h, fill, num, duration } from './dom.js';

const PHASES = ['prepare', 'split', 'copy', 'switch', 'cleanup', 'done'];

/** How far a move is, 0..1: its phase, and inside the copy the documents copied of the tenant's. */
export function moveProgress(job, documents) {
  if (job.state === 'succeeded') return 1;
  const i = Math.max(0, PHASES.indexOf(job.phase));
  const inPhase = job.phase === 'copy' && documents > 0 ? Math.min(1, (job.documents_copied ?? 0) / documents) : 0;
  return Math.min(1, (i + inPhase) / (PHASES.length - 1));
}

// what auto-isolation decided at its last look (observe/auto-isolate.js view())
function autoLine(a) {
  if (a.moved) return `moved ${a.moved} (job ${a.job})`;
  if (a.moving) return `moving ${a.moving}`;
  if (a.blocked) return `waits: ${a.blocked}`;
  if (a.idle) return a.idle;
  return 'nothing to do';
}

const seconds = (a, b) => (a && b ? (Date.parse(b) - Date.parse(a)) / 1000 : null);

export function renderMoves(state) {
  const docs = new Map(state.groups.flatMap((g) => g.indices.flatMap((ix) => ix.tenants.map((t) => [t.id, t.documents]))));
  const auto = state.auto;
  fill(document.getElementById('auto'), auto ? h('p', { text: `Auto-isolation: ${auto.enabled ? 'on' : 'off'} · ${autoLine(auto)}` }) : null);
  const rows = state.jobs.map((j) => {
    const running = j.state === 'running' || j.state === 'queued';
    const p = moveProgress(j, docs.get(j.tenant) ?? 0);
    return h('tr', { 'data-job': j.id, 'data-state': j.state },
      h('td', { text: j.id }),
      h('td', { text: j.type }),
      h('td', { text: j.tenant ?? '–' }),
      h('td', { text: j.trigger ?? '–' }),
      h('td', { text: j.state }),
      h('td', {}, running ? h('progress', { max: 100, value: Math.round(p * 100), 'aria-label': `${j.id}: ${j.phase}, ${Math.round(p * 100)}%` }) : null, ` ${j.phase ?? ''}`),
      h('td', { text: running ? duration(seconds(j.started_at, new Date().toISOString())) : duration(seconds(j.started_at, j.finished_at)) }),
      h('td', { text: `${num(j.documents_copied)} copied, ${num(j.documents_skipped)} skipped, ${num(j.documents_deleted)} deleted` }),
      h('td', { text: j.reason ?? (j.errors?.length ? j.errors.at(-1).message : '') }));
  });
  fill(document.getElementById('jobs'), rows.length
    ? h('div', { class: 'scroll' }, h('table', {}, h('caption', { text: 'Jobs, newest first' }), h('thead', {}, h('tr', {}, ['job', 'type', 'tenant', 'asked by', 'state', 'phase', 'time', 'documents', 'why'].map((c) => h('th', { scope: 'col', text: c })))), h('tbody', {}, rows)))
    : h('p', { text: 'No move yet.' }));
}

/** GET /plan/rebalance?by=observed, shown with the reason of each move. */
export async function showPlan() {
  const out = document.getElementById('plan');
  fill(out, h('p', { text: 'planning…' }));
  try {
    const plan = await getJSON('/plan/rebalance?by=observed');
    const head = plan.by === 'observed' && !plan.observed_enough ? 'Not enough searches observed to plan by; the plan weighs the declared traffic instead.' : `Planned by ${plan.by} cost${plan.balanced ? ': the groups are balanced' : ''}.`;
    fill(out, h('p', { text: head }), plan.moves.length
      ? h('ol', {}, plan.moves.map((m) => h('li', { text: `${m.tenant}: ${m.from?.group ?? m.from ?? '?'} → ${m.to?.group ?? m.to ?? '?'}${m.why ?? m.reason ? `: ${m.why ?? m.reason}` : ''}` })))
      : h('p', { text: 'No move planned.' }));
  } catch (err) {
    fill(out, h('p', { class: 'bad', text: err.message }));
  }
}
