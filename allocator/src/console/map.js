// The cluster map: one column per index group with its data nodes, each index a box, each tenant
// a tile sized by its documents and coloured by its share of the group's search time; the master
// and any node of no group apart. Elements are kept by key (group, index, tenant) and updated in
// place, so a refresh never takes the keyboard focus away, and a moved tenant's tile travels.
import { h, fill, num, pct, ms } from './dom.js';

const groupEls = new Map(); // group name -> { col, head, nodes, indices }
const indexEls = new Map(); // index name -> { box, head, tiles }
const tileEls = new Map(); // tenant id -> button

/** A share of the group's search time (0..1) -> a background: pale for none, deep orange near all. */
export function shareColour(share) {
  const s = Math.max(0, Math.min(1, share ?? 0));
  return `hsl(24 90% ${Math.round(96 - s * 52)}%)`;
}

/** Documents -> a tile's side in px: the area grows with the documents, the smallest still a target. */
export function tileSide(documents, maxDocuments) {
  if (!maxDocuments) return 24;
  return Math.round(24 + 56 * Math.sqrt(Math.max(0, documents) / maxDocuments));
}

function nodeLine(n) {
  const size = [n.cpus !== null ? `${n.cpus} CPU` : null, n.cpuset ? `cpuset ${n.cpuset.join(',')}` : null, n.mem ? `mem ${n.mem}` : null].filter(Boolean).join(' · ');
  return h('li', { class: 'node', 'data-node': n.name },
    h('strong', { text: n.name }),
    size ? h('span', { class: 'size', text: size }) : null,
    h('span', { text: `CPU ${n.cpu_percent === null ? '–' : `${n.cpu_percent}%`}` }),
    h('span', { text: `heap ${n.heap_percent === null ? '–' : `${n.heap_percent}%`}` }),
    h('span', { text: `search queue ${num(n.queue)}` }),
    h('span', { class: n.rejected ? 'bad' : '', text: `rejected ${num(n.rejected)}` }));
}

function latencyBadge(l) {
  if (!l || l.p95_ms === null) return h('span', { class: 'badge idle', text: 'no searches to judge' });
  const limits = [l.objective_ms !== null ? `objective ${ms(l.objective_ms)}` : null, l.relative_limit_ms !== null ? `relative limit ${ms(l.relative_limit_ms)}` : null].filter(Boolean).join(', ');
  const ok = l.meets_objective !== false;
  return h('span', { class: `badge ${ok ? 'ok' : 'missed'}`, text: `p95 ${ms(l.p95_ms)} (${l.signal}) ${ok ? 'within' : `over its ${l.missed ?? 'limit'}`}: ${limits}` });
}

function tileLabel(t, group) {
  const base = `${t.name} (${t.id}): ${num(t.documents)} documents, ${pct(t.share_of_group)} of ${group}'s search time, ${num(t.search_rate, 1)} searches/s`;
  return t.hot ? `${base}. HOT: ${t.hot.why}` : t.state === 'moving' ? `${base}. Moving.` : base;
}

/** Draws (or updates) the map from GET /console/state. onTenant(tenant, group) opens its details. */
export function renderMap(state, { onTenant, tooltip }) {
  const groupsEl = document.getElementById('groups');
  const others = document.getElementById('other-nodes');
  fill(others, state.other_nodes.length ? h('div', { class: 'apart' }, h('h3', { text: 'Master and other nodes (no group)' }), h('ul', { class: 'nodes' }, state.other_nodes.map(nodeLine))) : null);

  const maxDocs = Math.max(0, ...state.groups.flatMap((g) => g.indices.flatMap((ix) => ix.tenants.map((t) => t.documents))));
  const seenGroups = new Set();
  const seenIndices = new Set();
  const seenTiles = new Set();
  for (const g of state.groups) {
    seenGroups.add(g.name);
    let ge = groupEls.get(g.name);
    if (!ge) {
      ge = { col: h('article', { class: 'group', 'data-group': g.name, 'aria-label': `index group ${g.name}` }), head: h('header'), nodes: h('ul', { class: 'nodes' }), indices: h('div', { class: 'indices' }) };
      ge.col.append(ge.head, ge.nodes, ge.indices);
      groupsEl.append(ge.col);
      groupEls.set(g.name, ge);
    }
    fill(ge.head, h('h3', { text: g.name }), latencyBadge(g.latency), h('p', { class: 'rates', text: `${num(g.search_rate, 1)} searches/s · ${num(g.rejected_per_s, 2)} rejections/s · CPU ${g.cpu_percent === null ? '–' : `${g.cpu_percent}%`}` }));
    fill(ge.nodes, g.nodes.map(nodeLine));
    for (const ix of g.indices) {
      seenIndices.add(ix.name);
      let ie = indexEls.get(ix.name);
      if (!ie) {
        ie = { box: h('div', { class: 'index', 'data-index': ix.name }), head: h('p', { class: 'index-head' }), tiles: h('div', { class: 'tiles' }) };
        ie.box.append(ie.head, ie.tiles);
        indexEls.set(ix.name, ie);
      }
      if (ie.box.parentElement !== ge.indices) ge.indices.append(ie.box);
      ie.head.textContent = `${ix.name} · ${ix.kind} · ${ix.shards} shard${ix.shards === 1 ? '' : 's'} × ${ix.replicas + 1} · ${num(ix.documents)} documents · ${ix.tenants.length} tenant${ix.tenants.length === 1 ? '' : 's'}`;
      for (const t of ix.tenants) {
        seenTiles.add(t.id);
        let tile = tileEls.get(t.id);
        if (!tile) {
          tile = h('button', { type: 'button', class: 'tile', 'data-tenant': t.id });
          tile.addEventListener('click', () => onTenant(tile.tenant, tile.group));
          tile.addEventListener('mouseenter', () => tooltip.show(tile, tile.getAttribute('aria-label')));
          tile.addEventListener('focus', () => tooltip.show(tile, tile.getAttribute('aria-label')));
          tile.addEventListener('mouseleave', () => tooltip.hide());
          tile.addEventListener('blur', () => tooltip.hide());
          tileEls.set(t.id, tile);
        }
        tile.tenant = t;
        tile.group = g.name;
        if (tile.parentElement !== ie.tiles) ie.tiles.append(tile);
        const side = tileSide(t.documents, maxDocs);
        tile.style.width = `${side}px`;
        tile.style.height = `${side}px`;
        tile.style.background = shareColour(t.share_of_group);
        tile.classList.toggle('hot', Boolean(t.hot));
        tile.classList.toggle('moving', t.state === 'moving');
        tile.dataset.group = g.name;
        tile.textContent = t.hot ? '⚠' : '';
        tile.setAttribute('aria-label', tileLabel(t, g.name));
      }
    }
  }
  for (const [id, tile] of tileEls) if (!seenTiles.has(id)) { tile.remove(); tileEls.delete(id); }
  for (const [name, ie] of indexEls) if (!seenIndices.has(name)) { ie.box.remove(); indexEls.delete(name); }
  for (const [name, ge] of groupEls) if (!seenGroups.has(name)) { ge.col.remove(); groupEls.delete(name); }
}
