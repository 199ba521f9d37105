// Phase 2 of a run: every variant's layout, built on the lab that measures it (again when a new
// lab replaces it). A search variant's layout is its indices loaded with the run's stores (the
// same documents in every variant), settled and merged (layout.js); a closed-loop variant's
// stores are placed by an allocator of its own (isolation.js). The write workloads load
// nothing: each repetition writes a new index from bulk bodies made once per run.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { averageDocumentBytes } from '@tenantlab/dataset/documents';
import { generateTenants } from '@tenantlab/dataset/tenants';
import { RunError } from '../errors.js';
import { writeBodies } from './ingest.js';
import { burstTarget, placeStores, startAllocator } from './isolation.js';
import { groupsOf } from './lab-check.js';
import { createLayout, finishLayout, flatVariant, layoutFacts, layoutNames, loadLayout } from './layout.js';
import { writeManyShardsFixture } from './many-shards.js';
import { forEachUrlBatch } from '@tenantlab/contract/bounded';

/**
 * The layouts of a run before any is built: -> { names (each variant's indices and its stores'
 * aliases), loopTenants, allocators, loopGroups, loopRoutes (a closed-loop variant's own stores,
 * its allocator, its two groups, the load engine's routes to them), built (the variants built on the lab up now), ingestUrls (a write
 * variant's data nodes), bodies (the write workloads': writeRunBodies) }
 */
export function planLayouts(plan, { runId, data }) {
  return {
    names: new Map(plan.variants.map((v) => [v.name, layoutNames(runId, flatVariant(v), data.tenants)])),
    // A closed-loop variant's stores are real allocator tenants, reached through `tenant-<id>`
    // aliases: their ids must be unique to the variant and the run (same documents otherwise).
    loopTenants: new Map(plan.variants.filter((v) => v.isolate).map((v, k) => [v.name,
      generateTenants({ seed: plan.dataset.seed, profile: data.profile, scale: plan.dataset.scale, prefix: `iso${runId.slice(-4)}${k + 1}` })])),
    allocators: new Map(),
    loopGroups: new Map(),
    loopRoutes: new Map(),
    built: new Set(),
    ingestUrls: new Map(),
    bodies: null,
  };
}

/**
 * The write workloads' bulk bodies, made once (deterministic: the run's seed) outside the
 * results folder; results.json keeps their sizes. -> { dir, file, profile, count }
 */
export function writeRunBodies(plan, { data, results }) {
  const dir = mkdtempSync(join(tmpdir(), 'tenantlab-ingest-'));
  const file = join(dir, 'bodies.json');
  const { profile, seed } = plan.dataset;
  const w = data.manyShards
    ? writeManyShardsFixture(file, { profile, seed, docsPerIndex: plan.workload.docs_per_index })
    : writeBodies(dir, { profile, seed, docsPerBulk: plan.workload.bulk_docs });
  Object.assign(results.environment.data, { bulk_bytes: Math.round(w.bytes / w.count), document_bytes: Math.round(averageDocumentBytes({ profile: w.profile, seed })) });
  return { dir, file, profile: w.profile, count: w.count };
}

/** Builds variant `v`'s layout on the lab up now (see the header); its facts go to results.json. */
export async function buildLayout(run, v) {
  const { plan, lab, data, layouts, log } = run;
  run.check();
  if (data.writes) {
    // nothing to load: the variant's index is made empty for each repetition; the clients
    // write through the data nodes of its group, in turn
    const urls = (await lab.nodeUrlsOf(v))(v.settings.group);
    layouts.ingestUrls.set(v.name, urls.length ? urls : [lab.esUrl]);
    const { shards, replicas, indices: count } = v.settings;
    run.byName.get(v.name).layout = { indices: [], shard_count: count * shards * (1 + replicas), primary_shards: count * shards, median_shard_bytes: null, docs: null, bytes: null, segments_per_shard: null };
    layouts.built.add(v.name);
    if (data.manyShards) {
      log(`${v.name}: ${count} indices of 1 shard and no replica per repetition, ${plan.workload.docs_per_index} documents each, made through ${layouts.ingestUrls.get(v.name).length} data node(s)`);
      return;
    }
    log(`${v.name}: ${shards} shards, ${replicas} replica(s), refresh ${v.settings.refresh_interval}, group ${v.settings.group}; a new index per repetition, written through ${layouts.ingestUrls.get(v.name).length} data node(s)`);
    return;
  }
  const t0 = Date.now();
  log(`building ${v.name}: ${v.settings.indices} x ${v.settings.shards} shards, ${v.settings.replicas} replica(s), group ${v.settings.group}, stores ${v.settings.assign}`);
  const groups = Object.keys(await groupsOf(lab.client, lab.groupAttr)).filter((g) => g !== 'all').sort();
  let n = layouts.names.get(v.name);
  if (v.isolate) {
    n = await placeByAllocator(run, v, groups);
    layouts.names.set(v.name, n);
  } else {
    await createLayout(lab.client, { variant: flatVariant(v), groupAttr: lab.groupAttr, names: n, groups });
    await coordinateInGroups(run, v, n, groups);
  }
  const loaded = await loadLayout(lab.client, { seed: plan.dataset.seed, tenants: layouts.loopTenants.get(v.name) ?? data.tenants, names: n });
  run.check();
  await finishLayout(lab.client, { variant: flatVariant(v), names: n });
  const facts = await layoutFacts(lab.client, n);
  if (facts.docs !== data.documents) throw new RunError(`variant ${v.name}: ${facts.docs} documents in its indices, ${data.documents} generated (${loaded} acknowledged): the layout is not the same dataset`, 1);
  run.byName.get(v.name).layout = facts;
  run.results.environment.data.bytes ??= facts.bytes;
  layouts.built.add(v.name);
  log(`  ${v.name} ready in ${Math.round((Date.now() - t0) / 1000)}s: ${facts.docs} documents, ${facts.shard_count} shard copies, median shard ${Math.round(facts.median_shard_bytes / 1024)} KB`);
}

// Searches go through a data node that may hold the store's index: a node of the index's group
// when it is held to one (as an index-groups platform routes a store to its group, so no node
// outside the group shares the work), any data node when it is not; each tenant gets one such
// node, in turn. Never the master: every variant pays the same coordinating hop.
async function coordinateInGroups(run, v, n, groups) {
  const { group } = v.settings;
  const urlsOf = await run.lab.nodeUrlsOf(v);
  n.tenants.forEach((t, i) => {
    const g = group === 'spread' ? groups[n.indices.indexOf(t.index)] : group;
    const urls = urlsOf(g);
    if (urls.length) Object.assign(t, { ...(g === 'all' ? {} : { group: g }), es_url: urls[i % urls.length] });
  });
}

// A closed-loop variant: its allocator places the stores (odd on the first group, even on the
// second), loading runs unrefreshed as for any layout; each store searches through a node of its
// group, the burst store too, followed to its new group when it moves.
async function placeByAllocator(run, v, groups) {
  const { lab, layouts, log } = run;
  if (groups.length < 2) throw new RunError(`variant ${v.name}: the closed loop needs two index groups (the lab has ${groups.join(', ') || 'none'})`, 1);
  const prior = layouts.allocators.get(v.name);
  if (prior) await prior.stop();
  const alloc = await startAllocator({ esUrl: lab.esUrl, prefix: `${run.prefix}${v.name}-`, isolate: v.isolate, dir: run.dir, variant: v.name });
  layouts.allocators.set(v.name, alloc);
  const vt = layouts.loopTenants.get(v.name);
  const target = burstTarget(vt, v.burst.store);
  // the burst store's home: with its odd neighbours, or (a control) on the other group
  const home = v.burst.group === 'other' ? groups[1] : groups[0];
  const n = await placeStores(alloc.api, { tenants: vt, groups, target, targetGroup: home });
  Object.assign(n, { target, home });
  layouts.loopGroups.set(v.name, groups.slice(0, 2));
  // as createLayout does for its own indices: no replica and no refresh while loading (the
  // store-stats cache stays the default: it is not a dynamic setting, so the layout's median
  // shard size may lag by its 10 s)
  await forEachUrlBatch(n.indices, (index) => lab.client.indices.putSettings({ index, settings: { 'index.number_of_replicas': 0, 'index.refresh_interval': '-1' } }));
  // every store through a node of its group, the burst store too: the load engine follows it
  // to its new group's nodes when the allocator moves it (traffic/lib/routing.py), so neither its
  // crawl's coordination nor its requests' group tag stay with the neighbours it left
  const urlsOf = await lab.nodeUrlsOf(v);
  const routes = Object.fromEntries(groups.map((g) => [g, urlsOf(g)]).filter(([, urls]) => urls.length));
  n.tenants.forEach((t, i) => {
    const urls = urlsOf(t.group);
    t.es_url = urls.length ? urls[i % urls.length] : lab.esUrl;
  });
  layouts.loopRoutes.set(v.name, Object.keys(routes).length ? { GROUP_URLS: JSON.stringify(routes), ALLOCATOR_URL: alloc.url, FOLLOW_S: '1' } : {});
  log(`  ${v.name}: ${n.tenants.length} stores placed by the allocator at ${alloc.url} in ${n.indices.length} indices; burst store ${target} (${v.burst.store ?? 'biggest'} odd store) on ${home}${home === groups[0] ? '' : ` (the other group from the start: a control)`}${run.narrate ? `; watch it live: make watch URL=${alloc.url}` : ''}`);
  return n;
}
