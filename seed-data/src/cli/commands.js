// The commands of tenantlab-seed. Each is a short script over the modules that do the work.
import { createReadStream, createWriteStream, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { dirname, join } from 'node:path';
import { once } from 'node:events';
import { Random } from '@tenantlab/dataset/random';
import { SeedError, UsageError } from '../errors.js';
import { aliasFor as aliasOf } from '@tenantlab/contract/naming';
import { balancedItems, catalogItems } from '@tenantlab/dataset/catalog';
import { buildManifest } from '../generate/manifest.js';
import { queryLogLines } from '../generate/querylog.js';
import { esReason } from '../load/cluster.js';
import { finished, journalFileOf, readUnfinished, started } from '../load/journal.js';
import { runLoad } from '../load/run.js';
import { profileNames, loadProfile } from '@tenantlab/dataset/profiles';
import { describeDrift, planFill, reasonsOf } from '../verify/plan.js';
import { connect, countNow, log, placeTenants, verifyCounts, waitGreen } from './steps.js';
import { createScratch, dropScratch, mergesRunning, nodesKey, scratchBulks, warmFigures, warmRequests, warmUp, warmWrites } from '../warm/warm.js';
import { QueryLogError } from '@tenantlab/contract/querylog';

function summary(label, r, verified) {
  const rate = Math.round((r.stats.indexed + r.stats.superseded) / Math.max(0.001, r.seconds));
  const retried = r.stats.retriedItems ? `, ${r.stats.retriedItems} rejected items retried (${r.stats.retriedRequests} whole requests)` : '';
  const superseded = r.stats.superseded ? `, ${r.stats.superseded} already newer` : '';
  return `${label}: ${r.stats.indexed + r.stats.superseded} documents in ${r.seconds.toFixed(1)}s (${rate} docs/s${superseded}${retried}); verified ${verified} documents, every tenant matches the manifest`;
}

async function loadAndVerify(ctx, entry, { label, tenants, indexOf, items, initialLoad, journal = false }) {
  // seed and ensure record the tenants they load until every item was sent, so that a load
  // cut short is completed by the next `make up` instead of passing for a user's changes.
  const journalFile = journalFileOf(ctx.labDir);
  if (journal) started(journalFile, tenants.map((t) => t.id));
  const r = await runLoad({ entry, esUrl: ctx.esUrl, esOptions: ctx.esOptions, labDir: ctx.labDir, tenants, indexOf, items, initialLoad, label, bulk: ctx.bulk, progressMode: ctx.progressMode, log });
  if (r.error) {
    // Say exactly what is there, so nothing half-loaded goes unreported.
    let detail = '';
    try {
      await verifyCounts(entry, tenants);
    } catch (err) {
      detail = ` | ${err.message}`;
    }
    throw new SeedError(`${r.error.message}${detail} | run the same command again: it resumes without duplicates`);
  }
  if (journal) finished(journalFile, tenants.map((t) => t.id));
  const verified = await verifyCounts(entry, tenants);
  return { r, verified };
}

export async function seed(ctx) {
  const { api, entry } = await connect(ctx);
  const tenants = ctx.only;
  const placed = await placeTenants(api, tenants);
  log(`placed ${tenants.length} tenants of profile ${ctx.profile.name} (seed ${ctx.seed}${ctx.scale !== 1 ? `, scale ${ctx.scale}` : ''}): ${placed.created} new, ${placed.existing} already there`);
  const items = balancedItems(ctx.seed, tenants, { groupOf: (t) => placed.groupOf.get(t.id) });
  const { r, verified } = await loadAndVerify(ctx, entry, { label: 'seed', tenants, indexOf: placed.indexOf, items, initialLoad: !ctx.keepSettings, journal: true });
  console.log(summary('seed', r, verified));
  if (!ctx.keepSettings) await waitGreen(entry, ctx.waitGreenS);
}

/**
 * The seeding step of `make up`, on a lab that may have been used: loads only what is missing
 * (tenants new, empty, or left half-loaded by an interrupted load) and reports drift (stores a
 * user's writes made larger or smaller than the manifest) as a warning, without re-sending
 * anything to them. Exit 0 unless what it loads fails. The rules: src/verify/plan.js.
 */
export async function ensure(ctx) {
  const { api, entry } = await connect(ctx);
  const tenants = ctx.only;
  const placed = await placeTenants(api, tenants);
  const counts = await countNow(entry, tenants);
  const plan = planFill({ tenants, created: placed.createdIds, counts, unfinished: readUnfinished(journalFileOf(ctx.labDir)) });
  const what = `profile ${ctx.profile.name} (SEED=${ctx.seed}${ctx.scale !== 1 ? `, scale ${ctx.scale}` : ''})`;
  let sent = 0;
  if (plan.load.length) {
    const missing = plan.load.map((p) => p.tenant);
    log(`seed data: ${what}: loading ${missing.length} of ${tenants.length} tenants (${reasonsOf(plan.load)}); ${plan.complete.length} already loaded${plan.drift.length ? `, ${plan.drift.length} drifted` : ''}`);
    const items = balancedItems(ctx.seed, missing, { groupOf: (t) => placed.groupOf.get(t.id) });
    const { r, verified } = await loadAndVerify(ctx, entry, { label: 'seed', tenants: missing, indexOf: placed.indexOf, items, initialLoad: !ctx.keepSettings, journal: true });
    sent = r.stats.indexed + r.stats.superseded;
    console.log(summary('seed', r, verified).replace('every tenant matches', 'every tenant loaded matches'));
    if (!ctx.keepSettings) await waitGreen(entry, ctx.waitGreenS);
  } else {
    console.log(`seed data: ${what} is already loaded (${plan.complete.length} of ${tenants.length} tenants match the manifest${plan.drift.length ? `, ${plan.drift.length} drifted` : ''})`);
  }
  if (plan.drift.length) {
    log(`warning: ${describeDrift(plan.drift, tenants.length)}; 'make seed-verify' lists every store that differs, 'make seed' re-sends the profile (a deleted product comes back, an added one stays)`);
  }
  console.log(`seed data: ${sent} documents sent`);
}

function requireOneTenant(ctx, command) {
  if (ctx.values.tenant === undefined) throw new UsageError(`${command} needs --tenant ID (one of ${ctx.tenants[0].id} .. ${ctx.tenants.at(-1).id})`);
  return ctx.only[0];
}

/** A store re-sends its whole catalog (a daily job on real platforms): every product, now. */
export async function resubmit(ctx) {
  const t = requireOneTenant(ctx, 'resubmit');
  const { api, entry } = await connect(ctx);
  await placeTenants(api, [t]);
  const now = Date.now();
  const { r, verified } = await loadAndVerify(ctx, entry, { label: `resubmit ${t.id}`, tenants: [t], items: catalogItems(ctx.seed, [t], { updatedAt: now }), initialLoad: false });
  console.log(summary(`resubmit ${t.id}`, r, verified));
}

/**
 * Price and/or inventory changes on a share of one tenant's products. The write contract
 * forbids _update, so each product is read through the alias (an ids search), changed, and
 * written whole with a newer updated_at as its version.
 */
export async function update(ctx) {
  const t = requireOneTenant(ctx, 'update');
  const fraction = ctx.number('--fraction', String(ctx.values.fraction), { min: 0, max: 1 });
  const fields = new Set(String(ctx.values.fields).split(',').map((f) => f.trim()).filter(Boolean));
  for (const f of fields) if (!['price', 'inventory'].includes(f)) throw new UsageError(`--fields takes price and/or inventory, got '${f}'`);
  if (!fields.size) throw new UsageError('--fields is empty: give price, inventory or both');
  const { api, entry } = await connect(ctx);
  await placeTenants(api, [t]);
  const now = Date.now();
  const rng = new Random(now, 'update', t.index);
  const count = Math.max(1, Math.round(t.expected_products * fraction));
  const chosen = rng.sample(Array.from({ length: t.expected_products }, (_, i) => i), count).sort((a, b) => a - b);
  const changed = [];
  for (let k = 0; k < chosen.length; k += 1000) {
    const ids = chosen.slice(k, k + 1000).map((i) => `${t.id}:${i + 1}`);
    const res = await entry.search({ index: aliasOf(t.id), size: ids.length, query: { ids: { values: ids } } });
    for (const hit of res.hits.hits) {
      const doc = hit._source;
      if (fields.has('price')) {
        const factor = 0.85 + rng.float() * 0.3;
        const reprice = (p) => (p ? Math.max(0.99, Math.floor(p * factor) + 0.99) : p);
        const onSale = doc.sale_price > 0 ? rng.chance(0.7) : rng.chance(0.15);
        doc.price = reprice(doc.price);
        doc.sale_price = onSale ? Math.round(doc.price * 0.8 * 100) / 100 : 0;
        for (const v of doc.variants) {
          v.price = reprice(v.price);
          v.sale_price = onSale ? Math.round(v.price * 0.8 * 100) / 100 : 0;
        }
      }
      if (fields.has('inventory') && doc.inventory_tracking !== 'none') {
        const level = () => (rng.chance(0.1) ? 0 : rng.range(1, 200));
        if (doc.inventory_tracking === 'variant' && doc.variants.length) {
          for (const v of doc.variants) v.inventory_level = level();
          doc.inventory_level = doc.variants.reduce((a, v) => a + v.inventory_level, 0);
        } else doc.inventory_level = level();
      }
      // Strictly newer than what is stored, or external_gte would let an equal stamp through
      // only by luck of timing.
      const version = Math.max(now, Date.parse(doc.updated_at) + 1);
      doc.updated_at = new Date(version).toISOString();
      changed.push({ tenant: t.id, id: hit._id, version, source: JSON.stringify(doc) });
    }
  }
  if (changed.length !== chosen.length) log(`warning: ${chosen.length - changed.length} of the chosen products were not found in ${aliasOf(t.id)} (not seeded yet?)`);
  const { r, verified } = await loadAndVerify(ctx, entry, { label: `update ${t.id}`, tenants: [t], items: changed, initialLoad: false });
  console.log(`update ${t.id}: ${[...fields].join(' and ')} changed on ${changed.length} products in ${r.seconds.toFixed(1)}s; ${verified} documents, matches the manifest`);
}

export async function verify(ctx) {
  const { entry } = await connect(ctx, { allocator: false });
  const n = await verifyCounts(entry, ctx.only);
  console.log(`verify: ${ctx.only.length} tenants, ${n} documents, every tenant matches the manifest`);
}

export async function remove(ctx) {
  const { api } = await connect(ctx);
  let deleted = 0;
  for (const t of ctx.only) if (await api.deleteTenant(t.id)) deleted += 1;
  console.log(`delete: ${deleted} tenants deleted (${ctx.only.length - deleted} did not exist)`);
}

async function writeOut(ctx, lines) {
  const out = ctx.values.out ? createWriteStream(ctx.values.out) : process.stdout;
  for (const line of lines) {
    if (!out.write(`${line}\n`)) await once(out, 'drain');
  }
  if (ctx.values.out) {
    out.end();
    await once(out, 'finish');
  }
}

export async function querylog(ctx) {
  const lines = ctx.values.lines !== undefined ? ctx.number('--lines', ctx.values.lines, { integer: true, min: 1 }) : ctx.profile.queryLog?.lines ?? 5000;
  const qps = ctx.values.qps !== undefined ? ctx.number('--qps', ctx.values.qps, { min: 0.001 }) : ctx.profile.queryLog?.qps ?? 50;
  await writeOut(ctx, queryLogLines({ seed: ctx.seed, tenants: ctx.only, lines, qps }));
  if (ctx.values.out) log(`querylog: ${lines} lines for ${ctx.only.length} stores written to ${ctx.values.out}`);
}

/** The bulk body the seed command would send (NDJSON), without sending it. */
export async function catalog(ctx) {
  const { bulkLines } = await import('../load/bulk-loader.js');
  const out = ctx.values.out ? createWriteStream(ctx.values.out) : process.stdout;
  for (const item of catalogItems(ctx.seed, ctx.only)) {
    if (!out.write(bulkLines(item))) await once(out, 'drain');
  }
  if (ctx.values.out) {
    out.end();
    await once(out, 'finish');
  }
}

export async function manifest(ctx) {
  await writeOut(ctx, [JSON.stringify(buildManifest({ ...ctx, tenants: ctx.only }), null, 2)]);
}

export async function profiles() {
  for (const name of profileNames()) {
    const p = loadProfile(name);
    console.log(`${name.padEnd(8)} ${String(p.stores).padStart(5)} stores ${String(p.products).padStart(9)} products  ${p.description ?? ''}`);
  }
}

// The warm-up reads the head of the log: at a few dozen searches a second, LAB_WARMUP's default
// sends under a thousand
const WARM_LINES = 5000;
// how much longer than --seconds the warm-up may go on while merges run
const WARM_MERGE_S = 120;
const ms = (x) => (x === null ? '-' : `${Math.round(x)} ms`);

/** The first `n` lines of a file, read no further (the lab's log holds 50,000). */
async function headLines(file, n) {
  const input = createReadStream(file, 'utf8');
  const lines = [];
  for await (const line of createInterface({ input, crlfDelay: Infinity })) {
    lines.push(line);
    if (lines.length >= n) break;
  }
  input.destroy();
  return lines;
}

/**
 * The last step of `make up` (src/warm/warm.js says why): the stores' own searches for
 * --seconds, unless no node started since the last warm-up. Never fails the lab: a warm-up
 * whose searches all fail says so and leaves the mark unwritten.
 */
export async function warm(ctx) {
  const seconds = ctx.number('--seconds', String(ctx.values.seconds), { min: 0, max: 3600 });
  const inFlight = ctx.number('--in-flight', String(ctx.values['in-flight']), { integer: true, min: 1, max: 64 });
  if (!seconds) {
    console.log('warm-up: skipped (LAB_WARMUP=0s)');
    return;
  }
  const file = ctx.values.log ?? join(ctx.labDir, 'seed-data', 'queries.log');
  if (!existsSync(file)) throw new UsageError(`warm: no query log at ${file}: make up writes it (tenantlab-seed querylog --out FILE, then --log FILE)`);
  let requests;
  try {
    requests = warmRequests(await headLines(file, WARM_LINES));
  } catch (err) {
    if (err instanceof QueryLogError) throw new UsageError(`warm: ${file}: ${err.message}`);
    throw err;
  }
  if (!requests.length) throw new UsageError(`warm: ${file} holds no search: write it again (make up does, tenantlab-seed querylog)`);
  const { entry } = await connect(ctx, { allocator: false });
  const key = nodesKey(await entry.nodes.info({ metric: 'jvm', filter_path: 'nodes.*.jvm.start_time_in_millis' }));
  const mark = join(ctx.labDir, 'seed-data', 'warmed');
  if (existsSync(mark) && readFileSync(mark, 'utf8').trim() === key) {
    console.log('warm-up: not needed (no node started since the last one)');
    return;
  }
  // the write path beside the searches, except on a cluster that is not the lab's own
  let writing = null;
  if (ctx.config.connection.external) log('warm-up: searches only (RUNTIME=external: no scratch index on a cluster that is not the lab\'s)');
  else {
    try {
      await createScratch(entry, requests[0].index);
      writing = warmWrites(entry, scratchBulks(catalogItems(ctx.seed, ctx.only)), { deadline: performance.now() + seconds * 1000 });
    } catch (err) {
      log(`warning: warm-up: searches only, the scratch index for the writes failed: ${esReason(err)}`);
    }
  }
  // the first load should find the nodes warm and the cluster settled: on past --seconds while
  // the seeding's last merges run (at most WARM_MERGE_S longer), not the load meeting them
  // (only on the lab's own cluster: another one may always be merging something of its own)
  const busy = ctx.config.connection.external ? null : () => mergesRunning(entry).then((n) => n > 0, () => false);
  const r = await warmUp(entry, requests, { seconds, inFlight, busy, maxSeconds: seconds + WARM_MERGE_S });
  const w = writing ? await writing : null;
  if (writing) await dropScratch(entry).catch((err) => log(`warning: warm-up: could not drop the scratch index tenantlab-warmup: ${esReason(err)}`));
  const f = warmFigures(r.samples);
  const answered = r.samples.length;
  const faults = [r.errors ? `${r.errors} failed` : '', r.missing ? `${r.missing} stores gone since the log was written` : ''].filter(Boolean).join(', ');
  if (!answered) {
    log(`warning: warm-up: none of ${r.requests} searches was answered${faults ? ` (${faults})` : ''}: the first load will find the nodes cold`);
    return;
  }
  const wrote = w ? ` and ${w.documents} products written in ${w.bulks} bulks to a scratch index since dropped${w.errors ? ` (${w.errors} bulks with errors)` : ''}` : '';
  const longer = r.extended_s >= 0.5 ? ` (${r.extended_s.toFixed(0)} s past ${seconds} s while Elasticsearch finished merging)` : '';
  console.log(`warm-up: ${answered} storefront searches in ${r.seconds.toFixed(1)} s${longer}, ${inFlight} in flight (p95 ${ms(f.first_p95_ms)} in the first 5 s, ${ms(f.last_p95_ms)} in the last)${wrote}${faults ? `; ${faults}` : ''}: the nodes have compiled the search and write paths (LAB_WARMUP=0s skips this)`);
  mkdirSync(dirname(mark), { recursive: true });
  writeFileSync(mark, `${key}\n`);
}

export { esReason };
