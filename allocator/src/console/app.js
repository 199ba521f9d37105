// The console's loop: the state and the recent health every few seconds (only while the page is
// visible), the stored runs once a minute; a failed refresh says so in the status line and the
// next one tries again.
import { getJSON } from './api.js';
import { h, fill } from './dom.js';
import { renderHealth } from './health.js';
import { renderMap } from './map.js';
import { renderMoves, showPlan } from './moves.js';
import { renderRuns } from './runs.js';
import { openTenant, setGroups, wireTenantDialog } from './tenant.js';

const REFRESH_MS = 3000;
const RUNS_MS = 60000;
const status = document.getElementById('status');

const tip = document.getElementById('tooltip');
const tooltip = {
  show(el, text) {
    tip.textContent = text;
    tip.hidden = false;
    const r = el.getBoundingClientRect();
    tip.style.left = `${Math.min(window.innerWidth - 340, Math.max(4, r.left + window.scrollX))}px`;
    tip.style.top = `${r.bottom + window.scrollY + 6}px`;
  },
  hide() {
    tip.hidden = true;
  },
};

async function refresh() {
  try {
    const [state, history] = await Promise.all([getJSON('/console/state'), getJSON('/console/history')]);
    setGroups(state.groups.map((g) => g.name));
    renderMap(state, { onTenant: openTenant, tooltip });
    renderHealth(history);
    renderMoves(state);
    const tenants = state.groups.reduce((s, g) => s + g.indices.reduce((a, ix) => a + ix.tenants.length, 0), 0);
    const hot = state.groups.flatMap((g) => g.indices.flatMap((ix) => ix.tenants.filter((t) => t.hot))).length;
    status.textContent = state.observed_at
      ? `cluster ${state.cluster.status ?? '?'}${state.cluster.missing?.length ? `, missing ${state.cluster.missing.join(', ')}` : ''} · ${state.groups.length} groups · ${tenants} tenants · ${hot} hot · observed ${new Date(state.observed_at).toLocaleTimeString()}`
      : 'waiting for the first observation of the cluster…';
    status.classList.remove('bad');
  } catch (err) {
    status.textContent = `the allocator did not answer: ${err.message} (retrying)`;
    status.classList.add('bad');
  }
}

// drawn again only when a run was added or changed: a redraw would take the keyboard's focus
let lastRuns = null;
async function refreshRuns() {
  try {
    const runs = await getJSON('/console/runs');
    const text = JSON.stringify(runs);
    if (text === lastRuns) return;
    lastRuns = text;
    renderRuns(runs);
  } catch (err) {
    fill(document.getElementById('run-list'), h('p', { class: 'bad', text: err.message }));
  }
}

wireTenantDialog({ onMoved: () => refresh() });
document.getElementById('plan-button').addEventListener('click', showPlan);
refresh();
refreshRuns();
setInterval(() => { if (!document.hidden) refresh(); }, REFRESH_MS);
setInterval(() => { if (!document.hidden) refreshRuns(); }, RUNS_MS);
