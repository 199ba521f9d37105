// During an initial load, refreshes and replicas are pure overhead: nobody searches a catalog
// that is still arriving, and every replica re-indexes every document. So the tenants' indices
// get refresh_interval -1 and 0 replicas for the load, and their own values back afterwards
// (then a refresh, so the catalog becomes searchable at once).
//
// The original values are written to a file in the lab's state directory BEFORE anything is
// changed: a seeder killed mid-load leaves the file behind, and the next run restores from it
// instead of mistaking -1/0 for the index's real settings.
import { ALIAS_PATTERN, aliasFor } from '@tenantlab/contract/naming';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

const LOAD_SETTINGS = { 'index.refresh_interval': '-1', 'index.number_of_replicas': '0' };

function readPending(file) {
  try {
    return existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : {};
  } catch {
    return {};
  }
}

function writePending(file, pending) {
  if (!Object.keys(pending).length) {
    rmSync(file, { force: true });
    return;
  }
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(`${file}.tmp`, JSON.stringify(pending, null, 2));
  renameSync(`${file}.tmp`, file);
}

/**
 * The indices of `indices` that hold no document yet. Only those get the initial-load settings:
 * a shared index that already holds other tenants' catalogs keeps its replicas, so a node lost
 * during the load cannot take their only copy with it.
 */
export async function emptyIndices(client, indices) {
  if (!indices.length) return [];
  const rows = await client.cat.indices({ index: indices, h: 'index,docs.count', format: 'json' });
  return rows.filter((r) => Number(r['docs.count']) === 0).map((r) => r.index).sort();
}

/** The indices the tenants' aliases point at (one call, whatever the number of tenants). */
export async function indicesOfTenants(client, tenantIds) {
  const wanted = new Set(tenantIds.map(aliasFor));
  const res = await client.indices.getAlias({ name: ALIAS_PATTERN });
  const out = new Set();
  for (const [index, { aliases }] of Object.entries(res)) {
    if (Object.keys(aliases).some((a) => wanted.has(a))) out.add(index);
  }
  return [...out].sort();
}

async function currentSettings(client, indices) {
  const res = await client.indices.getSettings({
    index: indices.join(','),
    name: Object.keys(LOAD_SETTINGS).join(','),
    include_defaults: true,
    flat_settings: true,
  });
  const out = {};
  for (const index of indices) {
    const s = res[index] ?? {};
    out[index] = Object.fromEntries(Object.keys(LOAD_SETTINGS).map((k) => [k, s.settings?.[k] ?? s.defaults?.[k] ?? null]));
  }
  return out;
}

// An index the allocator has just created answers once its primaries are active, its replicas
// still recovering. Dropped mid-recovery by the 0 replicas of the load, a copy can leave its
// empty files on its node, and the replica put back there after the load then replays every
// operation from the primary's history instead of copying the flushed files (the suspected cause
// of 24,748 of 50,000 operations replayed in tests/live/40-seed.bats, once, on a test lab seeded
// seconds after it started). So the load settings wait for those recoveries first (bounded: a
// replica that cannot be assigned at all, on a one-node cluster, is not waited for).
const SETTLE_BEFORE_LOAD_S = 30;

async function replicasSettled(client, indices) {
  await client.cluster
    .health({ index: indices.join(','), wait_for_no_initializing_shards: true, timeout: `${SETTLE_BEFORE_LOAD_S}s` }, { requestTimeout: (SETTLE_BEFORE_LOAD_S + 10) * 1000 })
    .catch(() => {});
}

/**
 * Switches the indices to load settings. Returns restore(), which puts the originals back and
 * refreshes; safe to call more than once.
 */
export async function applyInitialLoadSettings(client, indices, stateFile) {
  if (!indices.length) return { restore: async () => {}, indices };
  const pending = readPending(stateFile);
  const now = await currentSettings(client, indices);
  for (const index of indices) pending[index] ??= now[index];
  writePending(stateFile, pending);
  await replicasSettled(client, indices);
  await client.indices.putSettings({ index: indices.join(','), settings: LOAD_SETTINGS });
  let restored = false;
  return {
    indices,
    restore: async () => {
      if (restored) return;
      restored = true;
      await restorePending(client, stateFile, indices);
    },
  };
}

/** Puts back the originals recorded for `only` (or every index in the file), flushed first, and refreshes. */
export async function restorePending(client, stateFile, only) {
  const pending = readPending(stateFile);
  const targets = Object.keys(pending).filter((i) => !only || only.includes(i));
  const groups = new Map();
  for (const index of targets) {
    const key = JSON.stringify(pending[index]);
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(index);
  }
  // A flush first: a new replica copies its primary's last commit and then re-indexes every
  // operation after it from the translog, so a primary loaded without a commit has its replica
  // index the whole load again (the demo profile, 2026-11-29: 420 thousand operations replayed,
  // `make up` waiting 60 s for green). Committed, the replica copies files.
  if (targets.length) await client.indices.flush({ index: targets.join(','), wait_if_ongoing: true, ignore_unavailable: true });
  for (const [key, indices] of groups) {
    const settings = Object.fromEntries(Object.entries(JSON.parse(key)).filter(([, v]) => v !== null));
    await client.indices.putSettings({ index: indices.join(','), settings, ignore_unavailable: true });
    for (const i of indices) delete pending[i];
    writePending(stateFile, pending);
  }
  if (targets.length) await client.indices.refresh({ index: targets.join(','), ignore_unavailable: true });
  return targets;
}
