// During an initial load, refreshes and replicas are pure overhead: nobody searches a catalog
// that is still arriving, and every replica re-indexes every document. So the tenants' indices
// get refresh_interval -1 and 0 replicas for the load, and their own values back afterwards
// (then a refresh, so the catalog becomes searchable at once).
//
// The original values are written to a file in the lab's state directory BEFORE anything is
// changed: a seeder killed mid-load leaves the file behind, and the next run restores from it
// instead of mistaking -1/0 for the index's real settings.
//
// Every index list goes out in URL-bounded batches (@tenantlab/contract/bounded): a platform's
// tenants sit in hundreds of indices.
import { forEachUrlBatch } from '@tenantlab/contract/bounded';
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
  const rows = (await forEachUrlBatch(indices, (index) => client.cat.indices({ index, h: 'index,docs.count', format: 'json' }))).flat();
  return rows.filter((r) => Number(r['docs.count']) === 0).map((r) => r.index).sort();
}

/** The indices the placement put `tenants` in (indexOf: id -> index, the allocator's answer), sorted. */
export function indicesOfTenants(tenants, indexOf) {
  return [...new Set(tenants.map((t) => indexOf.get(t.id)).filter(Boolean))].sort();
}

async function currentSettings(client, indices) {
  const res = {};
  await forEachUrlBatch(indices, async (index) => Object.assign(res, await client.indices.getSettings({
    index,
    name: Object.keys(LOAD_SETTINGS).join(','),
    include_defaults: true,
    flat_settings: true,
  })));
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
  // one wait in all, however many batches: each batch waits what is left of it
  const deadline = Date.now() + SETTLE_BEFORE_LOAD_S * 1000;
  await forEachUrlBatch(indices, async (index) => {
    const left = Math.max(1, Math.ceil((deadline - Date.now()) / 1000));
    await client.cluster
      .health({ index, wait_for_no_initializing_shards: true, timeout: `${left}s` }, { requestTimeout: (left + 10) * 1000 })
      .catch(() => {});
  });
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
  await forEachUrlBatch(indices, (index) => client.indices.putSettings({ index, settings: LOAD_SETTINGS }));
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
  const wanted = only ? new Set(only) : null;
  const targets = Object.keys(pending).filter((i) => !wanted || wanted.has(i));
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
  await forEachUrlBatch(targets, (index) => client.indices.flush({ index, wait_if_ongoing: true, ignore_unavailable: true }));
  for (const [key, indices] of groups) {
    const settings = Object.fromEntries(Object.entries(JSON.parse(key)).filter(([, v]) => v !== null));
    await forEachUrlBatch(indices, async (index, batch) => {
      await client.indices.putSettings({ index, settings, ignore_unavailable: true });
      for (const i of batch) delete pending[i];
      writePending(stateFile, pending);
    });
  }
  await forEachUrlBatch(targets, (index) => client.indices.refresh({ index, ignore_unavailable: true }));
  return targets;
}
