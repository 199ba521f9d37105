// Rebuilds the state from the cluster when the state index is gone: every `tenant-<id>` alias
// that points into this allocator's indices is a tenant, and every index describes its own
// group and kind in its mapping's _meta. What the cluster cannot know (name, expected size,
// traffic weight) is filled with the best available stand-ins and flagged.
import { newMoveJob } from '../jobs/job.js';
import { ALIAS_PREFIX, isTenantId, productsPattern } from '@tenantlab/contract/naming';

export async function rebuildFromCluster(client, store, prefix, attr) {
  const pattern = productsPattern(prefix);
  const mappings = await client.indices.getMapping({ index: pattern, allow_no_indices: true, ignore_unavailable: true });
  const settings = await client.indices.getSettings({ index: pattern, allow_no_indices: true, ignore_unavailable: true, flat_settings: true });
  const now = new Date().toISOString();
  for (const [name, m] of Object.entries(mappings)) {
    const meta = m.mappings?._meta?.tenantlab ?? {};
    const s = settings[name]?.settings ?? {};
    await store.putIndex({
      name,
      group: meta.group ?? s[`index.routing.allocation.require.${attr}`],
      kind: meta.kind ?? (name.includes('-t-') ? 'dedicated' : 'shared'),
      shards: Number(s['index.number_of_shards']),
      replicas: Number(s['index.number_of_replicas']),
      created_at: now,
    });
  }
  const aliases = Object.keys(mappings).length ? await client.indices.getAlias({ index: pattern, name: `${ALIAS_PREFIX}*` }) : {};
  const byTenant = new Map();
  for (const [index, { aliases: a }] of Object.entries(aliases)) {
    for (const [alias, def] of Object.entries(a)) {
      const id = alias.slice(ALIAS_PREFIX.length);
      if (!isTenantId(id)) continue;
      if (!byTenant.has(id)) byTenant.set(id, []);
      byTenant.get(id).push({ index, def });
    }
  }
  for (const [id, entries] of byTenant) {
    // Mid-move (split alias), reads still come from the entry without the hiding filter.
    const read = entries.find((e) => !e.def.filter?.bool?.must_not) ?? entries[0];
    const ix = store.indices.get(read.index);
    const { count } = await client.count({ index: read.index, query: { term: { store_id: id } } });
    // A split alias means writes already go elsewhere: only finishing that move is safe.
    const write = entries.find((e) => e !== read && e.def.is_write_index);
    let jobId;
    if (write) {
      // Its counters were in the lost state: they start again from zero with the copy.
      const to = store.indices.get(write.index);
      const job = newMoveJob({
        tenant: id,
        from: { index: read.index, group: ix.group, kind: ix.kind },
        to: { index: write.index, group: to.group, kind: to.kind, create: null },
        phase: 'copy',
        note: 'rebuilt from a split alias: resuming the interrupted move',
      });
      await store.putJob(job);
      jobId = job.id;
    }
    await store.putTenant({
      id,
      name: id,
      expected_products: count,
      traffic_weight: 1,
      requested: {},
      index: read.index,
      group: ix.group,
      kind: ix.kind,
      state: write ? 'moving' : 'active',
      ...(write ? { job_id: jobId } : {}),
      rebuilt: true,
      created_at: now,
    });
  }
  return { indices: store.indices.size, tenants: byTenant.size };
}
