// The handful of cluster operations the allocator performs, each one request or one
// well-defined sequence, with names that say what happens to the cluster.
import { ALIAS_PATTERN, aliasFor } from '@tenantlab/contract/naming';

/** Index groups from node attributes: [{ name, nodes: [nodeName...] }], sorted. */
export async function discoverGroups(client, attr) {
  const rows = await client.cat.nodeattrs({ format: 'json', h: 'node,attr,value' });
  const groups = new Map();
  for (const r of rows) {
    if (r.attr !== attr) continue;
    if (!groups.has(r.value)) groups.set(r.value, []);
    groups.get(r.value).push(r.node);
  }
  return [...groups.entries()]
    .map(([name, nodes]) => ({ name, nodes: nodes.sort() }))
    .sort((a, b) => (a.name < b.name ? -1 : 1));
}

/** Creates an index pinned to its group and waits until its primaries are active. */
export async function createIndex(client, { name, group, kind, shards, replicas }, { attr }) {
  await client.indices.create({
    index: name,
    settings: {
      number_of_shards: shards,
      number_of_replicas: replicas,
      [`index.routing.allocation.require.${attr}`]: group,
    },
    // The index describes itself, so state can be rebuilt from the cluster alone.
    mappings: { _meta: { tenantlab: { kind, group } } },
    wait_for_active_shards: '1',
  });
}

export async function deleteIndex(client, name) {
  await client.indices.delete({ index: name, ignore_unavailable: true });
}

export const tenantFilter = (tenantId) => ({ term: { store_id: tenantId } });
// Reads through this entry find nothing: it lets the alias write to an index that must not
// serve reads yet (the move's "writes to target, reads from source" phase).
export const hiddenTenantFilter = (tenantId) => ({ bool: { filter: [tenantFilter(tenantId)], must_not: [{ match_all: {} }] } });

function aliasEntry(index, tenantId, { hidden = false, write, routing }) {
  return {
    index,
    alias: aliasFor(tenantId),
    filter: hidden ? hiddenTenantFilter(tenantId) : tenantFilter(tenantId),
    is_write_index: write,
    ...(routing ? { routing: tenantId } : {}),
  };
}

/** The tenant's alias points at one index for reads and writes. */
export async function pointAlias(client, tenantId, index, { routing, removeFrom = [] } = {}) {
  const actions = removeFrom.map((from) => ({ remove: { index: from, alias: aliasFor(tenantId), must_exist: false } }));
  actions.push({ add: aliasEntry(index, tenantId, { write: true, routing }) });
  await client.indices.updateAliases({ actions });
}

/**
 * Many tenants' aliases, each pointing at one index, in one request (one cluster-state update):
 * entries [{ tenantId, index }].
 */
export async function pointAliases(client, entries, { routing } = {}) {
  await client.indices.updateAliases({ actions: entries.map((e) => ({ add: aliasEntry(e.index, e.tenantId, { write: true, routing }) })) });
}

/** Removes many tenants' aliases in one request; those already gone are no error. */
export async function removeAliases(client, tenantIds) {
  if (!tenantIds.length) return;
  await client.indices.updateAliases({ actions: tenantIds.map((id) => ({ remove: { index: '*', alias: aliasFor(id), must_exist: false } })) });
}

/** The tenant aliases the cluster holds, whoever made them: a Set of alias names. */
export async function tenantAliases(client) {
  const res = await client.indices.getAlias({ name: ALIAS_PATTERN }).catch((err) => {
    if (err?.meta?.statusCode === 404) return {};
    throw err;
  });
  return new Set(Object.values(res).flatMap((ix) => Object.keys(ix.aliases ?? {})));
}

/** One atomic switch: reads keep coming from `source`, writes go to `target`. */
export async function splitAlias(client, tenantId, source, target, { routing } = {}) {
  await client.indices.updateAliases({
    actions: [
      { add: aliasEntry(source, tenantId, { write: false, routing }) },
      { add: aliasEntry(target, tenantId, { hidden: true, write: true, routing }) },
    ],
  });
}

export async function removeAlias(client, tenantId) {
  const alias = aliasFor(tenantId);
  const exists = await client.indices.existsAlias({ name: alias });
  if (exists) await client.indices.deleteAlias({ index: '_all', name: alias });
}

export async function setGcDeletes(client, index, value) {
  await client.indices.putSettings({ index, settings: { 'index.gc_deletes': value } });
}

