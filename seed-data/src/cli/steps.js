// Steps several commands share: checking the services, placing tenants, verifying counts.
import { ALIAS_PATTERN } from '@tenantlab/contract/naming';
import { AllocatorApi, specDifferences } from '../allocator-api.js';
import { SeedError, UsageError } from '../errors.js';
import { tenantSpec } from '@tenantlab/dataset/tenants';
import { entryClient, esReason, requireCluster } from '../load/cluster.js';
import { compareCounts, countTenants, describeMismatch } from '../verify/counts.js';

export const log = (msg) => process.stderr.write(`${msg}\n`);

export async function connect(ctx, { allocator = true } = {}) {
  const api = new AllocatorApi(ctx.allocatorUrl);
  if (allocator) await api.requireReady();
  const entry = entryClient(ctx.esUrl, ctx.esOptions);
  await requireCluster(entry, ctx.esUrl);
  return { api, entry };
}

/**
 * Creates the tenants through the allocator (placement is its call). Every existing tenant is
 * checked first, so a conflicting spec stops the run before anything is created or loaded.
 */
// tenants placed a request: the allocator's POST /tenants/_bulk takes up to 1,000
const PLACE_BATCH = 500;

export async function placeTenants(api, tenants) {
  const existing = new Map((await api.listTenants()).map((t) => [t.id, t]));
  const conflicts = [];
  for (const t of tenants) {
    const stored = existing.get(t.id);
    if (stored) {
      const diffs = specDifferences(stored, tenantSpec(t));
      if (diffs.length) conflicts.push(`${t.id} (${diffs.join(', ')})`);
    }
  }
  if (conflicts.length) {
    throw new UsageError(`${conflicts.length} tenant(s) already exist with a different spec: ${conflicts.slice(0, 3).join('; ')}${conflicts.length > 3 ? '; ...' : ''}: delete them first (tenantlab-seed delete) or use another --seed/--tenant-prefix`);
  }
  let created = 0;
  const createdIds = new Set();
  const indexOf = new Map();
  const groupOf = new Map();
  for (const t of tenants) {
    if (!existing.has(t.id)) continue;
    indexOf.set(t.id, existing.get(t.id).index);
    groupOf.set(t.id, existing.get(t.id).group);
  }
  // the new ones in as few requests as the allocator takes (one cluster-state update each)
  const fresh = tenants.filter((t) => !existing.has(t.id));
  for (let i = 0; i < fresh.length; i += PLACE_BATCH) {
    for (const res of await api.createTenants(fresh.slice(i, i + PLACE_BATCH).map(tenantSpec))) {
      indexOf.set(res.tenant.id, res.tenant.index);
      groupOf.set(res.tenant.id, res.tenant.group);
      if (res.created) {
        created += 1;
        createdIds.add(res.tenant.id);
      }
    }
  }
  return { created, createdIds, existing: tenants.length - created, indexOf, groupOf };
}

/** Each tenant's count through its alias after a refresh: Map id -> count (null: no alias). */
export async function countNow(entry, tenants) {
  try {
    // every tenant index in one bounded request (the alias pattern), not the tenants' aliases
    // joined into one URL: 10,000 of them are a 200 KB request line
    await entry.indices.refresh({ index: ALIAS_PATTERN, ignore_unavailable: true, allow_no_indices: true }).catch(() => {});
    return await countTenants(entry, tenants.map((t) => t.id));
  } catch (err) {
    throw new SeedError(`could not count documents: ${esReason(err)}`);
  }
}

/** Exact counts through each alias; throws naming every tenant that differs. */
export async function verifyCounts(entry, tenants) {
  const counts = await countNow(entry, tenants);
  const bad = compareCounts(tenants, counts);
  if (bad.length) {
    const missing = bad.reduce((a, m) => a + (m.diff ?? -m.expected), 0);
    throw new SeedError(`${bad.length} of ${tenants.length} tenants do not match the manifest (net ${missing}): ${bad.slice(0, 5).map(describeMismatch).join('; ')}${bad.length > 5 ? '; ...' : ''}`);
  }
  return tenants.reduce((a, t) => a + counts.get(t.id), 0);
}

// one health wait's longest step: well under the entry client's 60-s request timeout
export const GREEN_WAIT_STEP_S = 30;

/** After a load with 0 replicas, replicas rebuild: say so instead of leaving a yellow lab. */
export async function waitGreen(entry, seconds) {
  if (!seconds) return;
  try {
    // `make up` returns a settled lab: the first `make load` then measures the storefront, not
    // the replica rebuild (said, since it can take a while on a big profile)
    const now = await entry.cluster.health();
    if (now.status === 'green' && !now.initializing_shards && !now.relocating_shards) return;
    log(`waiting for the replicas to be rebuilt: ${now.status}, ${now.initializing_shards} shard copies initializing, ${now.unassigned_shards} unassigned (up to ${seconds} s; --wait-green)`);
    const started = Date.now();
    // in waits shorter than the client's own timeout: the official client cannot lengthen one
    // request past the timeout its connection pool was made with (undici's), so one 120-s wait
    // failed at 60 s with "Request timed out" (10,000 stores, 2026-12-08)
    const deadline = started + seconds * 1000;
    let h;
    for (;;) {
      const left = Math.max(1, Math.min(GREEN_WAIT_STEP_S, Math.ceil((deadline - Date.now()) / 1000)));
      h = await entry.cluster.health({ wait_for_status: 'green', wait_for_no_initializing_shards: true, wait_for_no_relocating_shards: true, timeout: `${left}s` }, { requestTimeout: (left + 10) * 1000 });
      if ((h.status === 'green' && !h.timed_out) || Date.now() >= deadline) break;
    }
    if (h.status === 'green' && !h.timed_out) log(`replicas rebuilt in ${((Date.now() - started) / 1000).toFixed(1)} s: the lab is settled`);
    if (h.status !== 'green') log(`warning: cluster is ${h.status} after ${seconds}s (replicas still recovering); it turns green on its own`);
  } catch (err) {
    log(`warning: could not wait for green: ${esReason(err)}`);
  }
}
