// A tenant's details in a dialog: where it is, what it costs, why it is hot; and a move to another
// group, asked for in two steps (choose, then confirm) and sent as the allocator's own API call.
import { getJSON, postJSON } from './api.js';
import { h, fill, num, pct } from './dom.js';

const $ = (id) => document.getElementById(id);
let current = null; // { tenant, group }
let groupNames = [];

export function setGroups(names) {
  groupNames = names;
}

function resetMove() {
  $('move-confirm').hidden = true;
  $('move-ask').disabled = false;
}

export function openTenant(tenant, group) {
  current = { tenant, group };
  $('tenant-title').textContent = `${tenant.name} (${tenant.id})`;
  const facts = [
    ['group', group], ['state', tenant.state], ['documents', num(tenant.documents)],
    ['searches/s', num(tenant.search_rate, 1)], ["share of the group's search time", pct(tenant.share_of_group)],
    ["share of the group's indexing time", pct(tenant.write_share_of_group)],
  ];
  fill($('tenant-facts'), facts.flatMap(([k, v]) => [h('dt', { text: k }), h('dd', { text: v })]));
  $('tenant-hot').hidden = !tenant.hot;
  $('tenant-hot').textContent = tenant.hot ? `Hot (${tenant.hot.kind ?? 'search'}, since ${tenant.hot.since ?? '?'}): ${tenant.hot.why}` : '';
  const others = groupNames.filter((g) => g !== group);
  fill($('move-group'), others.map((g) => h('option', { value: g, text: g })));
  $('move-ask').disabled = others.length === 0 || tenant.state !== 'active';
  $('move-result').textContent = tenant.state !== 'active' ? `A ${tenant.state} tenant cannot be moved now.` : '';
  $('move-confirm').hidden = true;
  $('tenant').showModal();
  showPlanFor(tenant.id);
}

// what the observed rebalance plan would do with this tenant, and why
async function showPlanFor(id) {
  const el = $('tenant-plan');
  el.textContent = 'The observed rebalance plan: asking…';
  try {
    const plan = await getJSON('/plan/rebalance?by=observed');
    if (current?.tenant.id !== id) return;
    const m = plan.moves.find((x) => x.tenant === id);
    el.textContent = m
      ? `The observed rebalance plan would move it to ${m.to?.group ?? '?'}: ${m.why ?? m.reason ?? ''}`
      : `The observed rebalance plan has no move for it${plan.moves.length ? ` (it moves ${plan.moves.map((x) => x.tenant).join(', ')})` : ''}.`;
  } catch (err) {
    el.textContent = `The observed rebalance plan: ${err.message}`;
  }
}

export function wireTenantDialog({ onMoved }) {
  $('tenant-close').addEventListener('click', () => $('tenant').close());
  $('tenant').addEventListener('close', resetMove);
  $('move-ask').addEventListener('click', () => {
    const to = $('move-group').value;
    $('move-question').textContent = `Move ${current.tenant.id} from ${current.group} to ${to}? Its documents are copied to an index of ${to}, then its alias switches; no write is lost.`;
    $('move-confirm').hidden = false;
    $('move-ask').disabled = true;
    $('move-yes').focus();
  });
  $('move-no').addEventListener('click', () => {
    resetMove();
    $('move-ask').focus();
  });
  $('move-yes').addEventListener('click', async () => {
    const to = $('move-group').value;
    $('move-yes').disabled = true;
    try {
      const job = await postJSON(`/tenants/${encodeURIComponent(current.tenant.id)}/move`, { group: to });
      $('move-result').textContent = `Move started: job ${job.id}. Follow it under Moves.`;
      $('move-confirm').hidden = true;
      onMoved(job);
    } catch (err) {
      $('move-result').textContent = err.message;
      resetMove();
    } finally {
      $('move-yes').disabled = false;
    }
  });
}
