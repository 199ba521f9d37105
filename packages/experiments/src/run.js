// `tenantlab-experiment run NAME`: one experiment from its spec to its report.
//   1. the plan (spec + QUICK + REPEAT) and the lab's fitness (up, quiet, groups, disk): any
//      refusal is one line before anything is created
//   2. every variant's layout built and loaded (same documents in each), settled and merged
//   3. the measured windows, interleaved (ABCABC), each one run of the load engine (Locust)
//      plus Elasticsearch's own figures for the window
//   4. results.json (the schema of src/results-schema.json), verdicts computed from the
//      repetitions, report.md / report.html / SVG charts
// Whatever happens (Ctrl-C, a failed repetition, a node gone) the indices and aliases the run
// created are deleted, and what was measured is written, marked incomplete.
import { createHash, randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { cpus, totalmem, type, release } from 'node:os';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@elastic/elasticsearch';
import { experimentRunPrefix } from '@tenantlab/contract/naming';
import { esReason } from '@tenantlab/contract/es-errors';
import { clientOptions, clusterConnection } from '@tenantlab/contract/connection';
import { nodeKey } from '@tenantlab/contract/topology';
import { generateTenants } from 'tenantlab-seed-data/src/generate/tenants.js';
import { loadProfile } from 'tenantlab-seed-data/src/profiles.js';
import { isIngest, isManyShards, labKey, loadSpec, resolveSpec, writesDocuments } from './spec.js';
import { verdicts as computeVerdicts } from './verdict.js';
import { summarize, validateResults } from './results.js';
import { verdictLine, writeReport } from './report.js';
import { textTable } from './compare.js';
import { RunError } from './run/errors.js';
import { groupsOf, nodeUrlsByGroup, requireDisk, requireQuiet, requireUp, requireVariantsFit, settleAfterStart, writeQueueOf } from './run/lab-check.js';
import { createLayout, finishLayout, layoutFacts, layoutNames, loadLayout } from './run/layout.js';
import { engineOf, locustfile, pointsFileOf, runLoad } from './run/workload.js';
import { describeLab, labControl, labEnvOf } from './run/lab-control.js';
import { queueSampler, snapshot, windowFigures } from './run/es-stats.js';
import { deletePrefix } from '@tenantlab/test-support/cluster';
import { burstTarget, isolationFigures, placeStores, putBack, startAllocator, watchIsolation } from './run/isolation.js';
import { narrator } from './run/narrate.js';
import { clusterStateBytes, deleteIndices, manyShardsFiguresOf, manyShardsPrefix, masterJvm, masterSampler, requireAllCreated, writeManyShardsFixture } from './run/many-shards.js';
import { averageDocumentBytes } from 'tenantlab-seed-data/src/generate/documents.js';
import { acknowledgedOf, createIngestIndex, indexSnapshot, indexWindowFigures, ingestFiguresOf, ingestIndexName, requireAllIndexed, writeBodies } from './run/ingest.js';

const LAB_ROOT = resolve(new URL('../../..', import.meta.url).pathname);
const TENANT_PREFIX = 'exp';

const flat = (v) => ({ name: v.name, ...v.settings });
// The experiment's own lab answers on its master's port, as scripts/experiment shifted it
const labUrl = () => {
  const key = nodeKey(process.env.LAB_MASTER_NODE || 'es-master');
  return `http://${process.env.LAB_BIND || '127.0.0.1'}:${process.env[`${key}_HTTP_PORT`]}`;
};
const nowIso = () => new Date().toISOString();
const pad = (n) => String(n).padStart(2, '0');

export function newRunId(d = new Date()) {
  return `${d.getUTCFullYear()}${pad(d.getUTCMonth() + 1)}${pad(d.getUTCDate())}t${pad(d.getUTCHours())}${pad(d.getUTCMinutes())}${pad(d.getUTCSeconds())}-${randomBytes(2).toString('hex')}`;
}

function git(args) {
  try {
    return execFileSync('git', ['-C', LAB_ROOT, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return null;
  }
}

function environment({ esVersion, loadEngine, runtime, labEnvFile, data }) {
  const commit = git(['rev-parse', 'HEAD']);
  const dirty = commit && git(['status', '--porcelain', '--untracked-files=no']);
  return {
    machine: { cores: cpus().length, memory_bytes: totalmem(), cpu_model: cpus()[0]?.model ?? null, os: `${type()} ${release()}` },
    runtime,
    // the load generator that measured the run (results before it record versions.k6 instead)
    load_engine: loadEngine,
    versions: {
      elasticsearch: esVersion, node: process.version,
      tenantlab: JSON.parse(readFileSync(join(LAB_ROOT, 'packages/experiments/package.json'), 'utf8')).version,
    },
    lab_env_sha256: existsSync(labEnvFile) ? createHash('sha256').update(readFileSync(labEnvFile)).digest('hex') : null,
    git_commit: commit ? `${commit}${dirty ? '-dirty' : ''}` : null,
    data,
  };
}

/**
 * Runs one experiment. Options: name, specDir, quick, repeat, esUrl, labMode ('own'|'running'),
 * runtime, resultsRoot, locust (the load engine's executable, scripts/install/locust.sh),
 * loadMetricsPort (the load's Prometheus endpoint, make demo; default none), loadUiPort (Locust's
 * web UI while a repetition runs, make demo; default none: headless), log (a line
 * printer), signal (AbortSignal).
 * Resolves to { dir, results }. Throws RunError (one line) when the run cannot start.
 */
export async function runExperiment(opts) {
  const { name, specDir, quick, repeat, labMode, labCommand, resultsRoot, locust, log, signal, narrate = false, loadMetricsPort = null, loadUiPort = null } = opts;
  let { esUrl, runtime } = opts;
  const file = join(specDir, `${name}.yaml`);
  const plan = resolveSpec(loadSpec(file), { quick, repeat });
  const groupAttr = process.env.LAB_GROUP_ATTR || 'index_group';
  const started = Date.now();
  const cpuAtStart = process.cpuUsage();
  const ownsLab = labMode === 'own' && Boolean(labCommand);
  // the cluster measured, with its credentials and CA when it is an external one (RUNTIME=external)
  const conn = ownsLab ? null : clusterConnection(process.env);
  if (conn?.external && plan.variants.some((v) => v.lab)) {
    throw new RunError(`${name} changes the topology (lab: in its spec: ${describeLab(plan.variants.find((v) => v.lab).lab)}), which an external cluster's nodes are not the lab's to do: run it on a lab of its own (RUNTIME=native or compose, LAB=own)`);
  }
  if (!ownsLab && plan.variants.some((v) => v.lab)) {
    throw new RunError(`${name} sets the lab it runs on (lab: in its spec: ${describeLab(plan.variants.find((v) => v.lab).lab)}): run it with LAB=own, which starts that lab beside yours`);
  }
  const lab = ownsLab ? labControl({ command: labCommand, log, signal }) : null;
  const labOf = new Map(plan.variants.map((v) => [v.name, v.lab]));

  // ---- 1. the lab is fit: nothing is created before every check has passed
  const starts = [];
  const useLab = async (vname) => {
    const r = await lab.use(labOf.get(vname));
    if (r.restarted) starts.push({ at: nowIso(), lab: labOf.get(vname) ?? null, fresh: r.fresh, shape: r.shape ?? null });
    return r;
  };
  if (lab) {
    await useLab(plan.order[0]);
    esUrl = labUrl();
    try { runtime = readFileSync(join(process.env.LAB_DIR, 'runtime'), 'utf8').trim(); } catch { /* as given */ }
  }
  const esClient = () => new Client({ ...(conn ? clientOptions(conn) : {}), node: esUrl, requestTimeout: 120000, maxRetries: 2 });
  let client = esClient();
  const fitness = async () => {
    await requireUp(client, esUrl);
    const q = await requireQuiet(client);
    // a lab just started for the run: what its nodes say they run with
    if (starts.length && starts.at(-1).write_queue === undefined) starts.at(-1).write_queue = await writeQueueOf(client).catch(() => null);
    const groups = await groupsOf(client, groupAttr);
    requireVariantsFit(plan.variants.filter((v) => !lab || labKey(v.lab) === labKey(labOf.get(currentVariant))).map(flat), groups);
    return q;
  };
  let currentVariant = plan.order[0];
  if (lab) await settleAfterStart(client).catch(async (err) => { await lab.stop(); throw err; });
  const quiet = await fitness().catch(async (err) => { await lab?.stop(); throw err; });
  // the write workloads have no stores: each repetition writes into new indices of its own
  const writes = writesDocuments(plan.workload);
  const manyShards = isManyShards(plan.workload);
  const profile = writes ? null : loadProfile(plan.dataset.profile);
  const tenants = writes ? [] : generateTenants({ seed: plan.dataset.seed, profile, scale: plan.dataset.scale, prefix: TENANT_PREFIX });
  const documents = writes ? null : tenants.reduce((a, t) => a + t.expected_products, 0);
  if (!writes) await requireDisk(client, { documents, variants: plan.variants.map(flat) }).catch(async (err) => { await lab?.stop(); throw err; });
  const esVersion = (await client.info()).version.number;
  // `locust --version`: "locust 2.47.0 from /.../site-packages/locust (Python 3.12.3)"
  const loadEngine = engineOf((() => { try { return execFileSync(locust, ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim().split('\n')[0]; } catch { return null; } })());

  const runId = newRunId();
  const dir = join(resultsRoot, name, runId);
  mkdirSync(dir, { recursive: true });
  const prefix = experimentRunPrefix(runId);
  const what = manyShards ? `${plan.workload.clients} clients creating indices of ${plan.workload.docs_per_index} ${plan.dataset.profile} documents`
    : writes ? `${plan.workload.clients} clients sending bulks of ${plan.workload.bulk_docs} ${plan.dataset.profile} documents` : `${documents} documents of ${tenants.length} stores each`;
  log(`experiment ${name}, run ${runId}${plan.quick ? ' (QUICK)' : ''}: ${plan.variants.length} variants x ${plan.repetitions} repetitions, ${what}; lab: ${labMode} (${quiet.other_ops_per_s} other ops/s)`);
  log(`  results: ${dir}`);

  const results = {
    schema_version: 1,
    experiment: name,
    title: plan.title,
    hypothesis: plan.hypothesis,
    source: plan.source,
    run_id: runId,
    started_at: new Date(started).toISOString(),
    finished_at: null,
    complete: false,
    quick: plan.quick,
    lab: { mode: labMode, es_url: esUrl, ...(lab ? { starts } : {}) },
    environment: environment({ esVersion, loadEngine, runtime, labEnvFile: process.env.LAB_ENV_FILE || join(LAB_ROOT, 'lab.env'),
      data: writes
        ? { profile: plan.dataset.profile, kind: plan.dataset.kind, seed: plan.dataset.seed, stores: null, documents: null, bytes: null, document_bytes: null, bulk_bytes: null }
        : { profile: plan.dataset.profile, scale: plan.dataset.scale, seed: plan.dataset.seed, stores: tenants.length, documents, bytes: null } }),
    plan: { repetitions: plan.repetitions, confidence: plan.confidence, order: plan.order, workload: plan.workload, report: plan.report, expect: plan.expect },
    variants: plan.variants.map((v) => ({ name: v.name, label: v.label ?? v.name, settings: v.settings, ...(v.lab ? { lab: v.lab } : {}), ...(v.burst ? { burst: v.burst } : {}), ...(v.isolate ? { isolate: v.isolate } : {}), layout: null, ...(v.published ? { published: v.published } : {}), repetitions: [], summary: {} })),
    verdicts: [],
    runner: { cpu_percent: null, generator_cpu_percent: null, wall_seconds: null },
  };
  const byName = new Map(results.variants.map((v) => [v.name, v]));
  const names = new Map(plan.variants.map((v) => [v.name, layoutNames(runId, flat(v), tenants)]));
  // A closed-loop variant's stores are real allocator tenants, reached through `tenant-<id>`
  // aliases: their ids must be unique to the variant and the run (same documents otherwise).
  const loopTenants = new Map(plan.variants.filter((v) => v.isolate).map((v, k) => [v.name,
    generateTenants({ seed: plan.dataset.seed, profile, scale: plan.dataset.scale, prefix: `iso${runId.slice(-4)}${k + 1}` })]));
  const allocators = new Map();
  const loopGroups = new Map();
  let measuredCpu = 0, measuredLoadCpu = 0, measuredWall = 0;
  // the load's Prometheus endpoint (make demo, the running lab's Prometheus scrapes it): only
  // the storefront's closed loop; the experiments' own labs have no Prometheus
  // and Locust's web UI (make demo): the story in a browser while each repetition lasts
  const bind = process.env.LAB_BIND || '127.0.0.1';
  const metricsEnv = {
    ...(loadMetricsPort ? { LOAD_METRICS_PORT: String(loadMetricsPort), LOAD_METRICS_HOST: process.env.LOAD_METRICS_HOST || bind } : {}),
    ...(loadUiPort ? { LOAD_UI_PORT: String(loadUiPort), LAB_BIND: bind } : {}),
  };
  if (loadUiPort) log(`load: Locust's web UI: http://${bind}:${loadUiPort}/ (while each repetition runs)`);

  const write = () => writeFileSync(join(dir, 'results.json'), `${JSON.stringify(results, null, 2)}\n`);
  // the write workloads' bodies: made once (deterministic, the run's seed), outside the results folder
  let bodiesDir = null, bodiesFile = null, docProfile = null, bodiesCount = 0;
  const ingestUrls = new Map();
  if (writes) {
    bodiesDir = mkdtempSync(join(tmpdir(), 'tenantlab-ingest-'));
    bodiesFile = join(bodiesDir, 'bodies.json');
    const { profile: docs, seed } = plan.dataset;
    const w = manyShards
      ? writeManyShardsFixture(bodiesFile, { profile: docs, seed, docsPerIndex: plan.workload.docs_per_index })
      : writeBodies(bodiesDir, { profile: docs, seed, docsPerBulk: plan.workload.bulk_docs });
    docProfile = w.profile;
    bodiesCount = w.count;
    Object.assign(results.environment.data, { bulk_bytes: Math.round(w.bytes / w.count), document_bytes: Math.round(averageDocumentBytes({ profile: w.profile, seed })) });
  }
  const check = () => { if (signal?.aborted) throw new RunError('interrupted', 130); };
  try {
    // ---- 2. layouts, built on the lab that measures them (again when a new lab replaces it);
    // 3. a warm-up pass over a lab's variants each time its JVMs are new (JIT, caches, page
    // cache: without it the first round was several times slower than the next)
    const built = new Set();
    const build = async (v) => {
      check();
      if (writes) {
        // nothing to load: the variant's index is made empty for each repetition; the clients
        // write through the data nodes of its group, in turn
        const urls = (await nodeUrlsOf(v))(v.settings.group);
        ingestUrls.set(v.name, urls.length ? urls : [esUrl]);
        const { shards, replicas, indices: count } = v.settings;
        byName.get(v.name).layout = { indices: [], shard_count: count * shards * (1 + replicas), primary_shards: count * shards, median_shard_bytes: null, docs: null, bytes: null, segments_per_shard: null };
        built.add(v.name);
        if (manyShards) {
          log(`${v.name}: ${count} indices of 1 shard and no replica per repetition, ${plan.workload.docs_per_index} documents each, made through ${ingestUrls.get(v.name).length} data node(s)`);
          return;
        }
        log(`${v.name}: ${shards} shards, ${replicas} replica(s), refresh ${v.settings.refresh_interval}, group ${v.settings.group}; a new index per repetition, written through ${ingestUrls.get(v.name).length} data node(s)`);
        return;
      }
      const t0 = Date.now();
      log(`building ${v.name}: ${v.settings.indices} x ${v.settings.shards} shards, ${v.settings.replicas} replica(s), group ${v.settings.group}, stores ${v.settings.assign}`);
      const groups = Object.keys(await groupsOf(client, groupAttr)).filter((g) => g !== 'all').sort();
      let n = names.get(v.name);
      if (v.isolate) {
        n = await placeByAllocator(v, groups);
        names.set(v.name, n);
      } else {
        await createLayout(client, { variant: flat(v), groupAttr, names: n, groups });
        await coordinateInGroups(v, n, groups);
      }
      const loaded = await loadLayout(client, { seed: plan.dataset.seed, tenants: loopTenants.get(v.name) ?? tenants, names: n });
      check();
      await finishLayout(client, { variant: flat(v), names: n });
      const facts = await layoutFacts(client, n);
      if (facts.docs !== documents) throw new RunError(`variant ${v.name}: ${facts.docs} documents in its indices, ${documents} generated (${loaded} acknowledged): the layout is not the same dataset`, 1);
      byName.get(v.name).layout = facts;
      results.environment.data.bytes ??= facts.bytes;
      built.add(v.name);
      log(`  ${v.name} ready in ${Math.round((Date.now() - t0) / 1000)}s: ${facts.docs} documents, ${facts.shard_count} shard copies, median shard ${Math.round(facts.median_shard_bytes / 1024)} KB`);
    };
    const warmUp = async (v) => {
      check();
      log(manyShards ? `warm-up pass: ${v.name} (${Math.min(20, v.settings.indices)} indices made and deleted, not measured)` : `warm-up pass: ${v.name} (${plan.workload.ramp_up} + ${plan.workload.warmup}, not measured)`);
      const warmDir = join(dir, 'repetitions', `00-warmup-${v.name}`);
      mkdirSync(warmDir, { recursive: true });
      if (manyShards) {
        // a few indices made and deleted: the master's code paths warm, nothing is measured
        const prefixW = manyShardsPrefix(runId, v.name, 0);
        try {
          await runLoad({ locust, script: locustfile('many_shards'), esUrl, workload: plan.workload, dir: warmDir, runId: `${runId}-warmup`, signal,
            extraEnv: manyShardsEnv(v, prefixW, Math.min(20, v.settings.indices)), figures: manyShardsFiguresOf });
        } finally {
          rmSync(warmDir, { recursive: true, force: true });
          await deleteIndices(client, prefixW).catch(() => {});
        }
        return;
      }
      if (writes) {
        const index = ingestIndexName(runId, v.name, -1);
        try {
          await createIngestIndex(client, { index, variant: flat(v), mapping: docProfile.mapping, groupAttr });
          await runLoad({ locust, script: locustfile('ingest'), esUrl, workload: { ...plan.workload, measure: '1s', measure_s: 1 },
            dir: warmDir, runId: `${runId}-warmup`, signal, extraEnv: ingestEnv(v, index), figures: ingestFiguresOf });
        } finally {
          rmSync(warmDir, { recursive: true, force: true });
          await client.indices.delete({ index }, { ignore: [404] }).catch(() => {});
        }
        return;
      }
      try {
        await runLoad({ locust, script: locustfile('experiment'), esUrl, workload: { ...plan.workload, measure: '1s', measure_s: 1 },
          tenants: names.get(v.name).tenants, dir: warmDir, runId: `${runId}-warmup`, signal, extraEnv: metricsEnv });
      } finally {
        rmSync(warmDir, { recursive: true, force: true });
      }
    };
    // the data nodes' addresses on the variant's lab, by index group
    // an external cluster is reached through ES_URL only: its nodes' own addresses are not the way in
    const nodeUrlsOf = async (v) => (conn?.external ? () => [] : nodeUrlsByGroup(client, { groupAttr, env: { ...process.env, ...(lab ? labEnvOf(labOf.get(v.name)) : {}) } }));
    const ingestEnv = (v, index) => ({
      ES_URLS: ingestUrls.get(v.name).join(','), INDEX: index, BODIES_DIR: bodiesDir, BODIES_COUNT: String(bodiesCount),
      CLIENTS: String(plan.workload.clients), DOCS_PER_BULK: String(plan.workload.bulk_docs),
    });
    const manyShardsEnv = (v, prefixR, count) => ({
      ES_URLS: ingestUrls.get(v.name).join(','), INDEX_PREFIX: prefixR, INDICES: String(count), BODIES_FILE: bodiesFile,
      CLIENTS: String(plan.workload.clients), DOCS_PER_INDEX: String(plan.workload.docs_per_index),
    });
    // One many-shards repetition: the clients make the variant's indices; the master's heap and
    // GC and the cluster state's size before and after; every acknowledged document counted;
    // then the indices deleted (timed: deleting is cluster-state work too).
    const measureManyShards = async (v, round, repDir, rep) => {
      const prefixR = manyShardsPrefix(runId, v.name, round);
      const [jvm0, state0] = await Promise.all([masterJvm(client), clusterStateBytes(client)]);
      const sampler = masterSampler(client);
      const cpu0 = process.cpuUsage();
      let out, peak;
      try {
        out = await runLoad({ locust, script: locustfile('many_shards'), esUrl, workload: plan.workload, dir: repDir, runId: `${runId}-${v.name}-${round}`, signal,
          extraEnv: manyShardsEnv(v, prefixR, v.settings.indices), figures: manyShardsFiguresOf });
      } finally {
        peak = await sampler.stop();
        rmSync(pointsFileOf(repDir), { force: true });
      }
      try {
        const [jvm1, state1] = await Promise.all([masterJvm(client), clusterStateBytes(client)]);
        const cpu = process.cpuUsage(cpu0);
        const f = out.figures;
        measuredCpu += (cpu.user + cpu.system) / 1e6;
        measuredLoadCpu += out.loadCpuSeconds ?? 0;
        measuredWall += f.many_shards.elapsed_s ?? 0;
        const ms = f.many_shards;
        const held = await requireAllCreated(client, prefixR, { created: ms.indices_created, docsIndexed: ms.docs_indexed, docsFailed: ms.docs_failed });
        rep.integrity = { index: `${prefixR}*`, count: held.count, acknowledged: ms.docs_indexed };
        Object.assign(ms, {
          cluster_state_bytes: state1,
          cluster_state_bytes_before: state0,
          master_heap_max_mb: Math.round(Math.max(peak.heapUsed, jvm1?.heapUsed ?? 0) / 1048576),
          master_heap_limit_mb: jvm1 ? Math.round(jvm1.heapMax / 1048576) : null,
          master_gc_ms: jvm0 && jvm1 ? jvm1.gcMs - jvm0.gcMs : null,
          pending_tasks_max: peak.pending,
        });
        const t0 = Date.now();
        await deleteIndices(client, prefixR);
        ms.delete_s = Math.round((Date.now() - t0) / 100) / 10;
        rep.figures = f;
        rep.timeline = out.timeline;
        rep.complete = ms.indices_created === v.settings.indices;
        if (!rep.complete) rep.incomplete_reason = `${ms.indices_created} of ${v.settings.indices} indices made (${ms.indices_failed} refused or unanswered) within ${plan.workload.measure}`;
        log(`  ${ms.indices_created} indices in ${ms.elapsed_s}s (${ms.indices_per_s}/s), creation avg ${f.avg_ms} ms, p95 ${f.p95_ms} ms; cluster state ${Math.round(state0 / 1024)} -> ${Math.round(state1 / 1024)} KB; master heap up to ${ms.master_heap_max_mb} MB, GC ${ms.master_gc_ms} ms; deleted in ${ms.delete_s}s`);
      } finally {
        await deleteIndices(client, prefixR).catch(() => {});
      }
    };
    // One ingest repetition: a new empty index, the clients' bulks, the window's figures from the load engine
    // and from the index and the nodes; then every acknowledged document is counted in the
    // index (a run that lost one fails), and the index is deleted (the disk holds one at a time).
    const measureIngest = async (v, round, repDir, rep) => {
      const index = ingestIndexName(runId, v.name, round - 1);
      await createIngestIndex(client, { index, variant: flat(v), mapping: docProfile.mapping, groupAttr });
      let before = null, idxBefore = null, sampler = null, cpu0 = null;
      try {
        const out = await runLoad({
          locust, script: locustfile('ingest'), esUrl, workload: plan.workload, dir: repDir, runId: `${runId}-${v.name}-${round}`, signal,
          extraEnv: ingestEnv(v, index), figures: ingestFiguresOf,
          onMeasureStart: () => {
            cpu0 = process.cpuUsage();
            snapshot(client).then((s) => { before = s; }).catch(() => {});
            indexSnapshot(client, index).then((s) => { idxBefore = s; }).catch(() => {});
            sampler = queueSampler(client);
          },
        });
        const queues = await sampler?.stop();
        sampler = null;
        const [after, idxAfter] = await Promise.all([snapshot(client), indexSnapshot(client, index)]);
        const cpu = process.cpuUsage(cpu0 ?? undefined);
        measuredCpu += (cpu.user + cpu.system) / 1e6;
        measuredLoadCpu += out.loadCpuSeconds ?? 0;
        measuredWall += out.measureWallMs / 1000;
        rep.figures = { ...out.figures, es: before && idxBefore ? { ...windowFigures(before, after, queues), ...indexWindowFigures(idxBefore, idxAfter) } : null };
        rep.timeline = out.timeline;
        rep.integrity = { index, ...(await requireAllIndexed(client, index, acknowledgedOf(out.summary))) };
        rep.complete = true;
        const f = rep.figures;
        log(`  ${f.ingest.docs_indexed} documents indexed (${f.ingest.docs_per_s}/s, ${f.ingest.bulk_ops_per_s} bulks/s), ${f.ingest.docs_rejected} rejected, ${f.ingest.docs_failed} failed; bulk avg ${f.avg_ms} ms, p95 ${f.p95_ms} ms; ${f.es?.merges ?? '-'} merges, ${f.es?.refreshes ?? '-'} refreshes; index holds ${rep.integrity.count} of ${rep.integrity.acknowledged} acknowledged`);
      } finally {
        if (sampler) await sampler.stop();
        rmSync(pointsFileOf(repDir), { force: true });
        await client.indices.delete({ index }, { ignore: [404] }).catch(() => {});
      }
    };
    // Searches go through a data node that may hold the store's index: a node of the index's
    // group when it is held to one (as an index-groups platform routes a store to its group, so
    // no node outside the group shares the work), any data node when it is not; each tenant gets
    // one such node, in turn. Never the master: every variant pays the same coordinating hop.
    const coordinateInGroups = async (v, n, groups) => {
      const { group } = v.settings;
      const urlsOf = await nodeUrlsOf(v);
      n.tenants.forEach((t, i) => {
        const g = group === 'spread' ? groups[n.indices.indexOf(t.index)] : group;
        const urls = urlsOf(g);
        if (urls.length) Object.assign(t, { ...(g === 'all' ? {} : { group: g }), es_url: urls[i % urls.length] });
      });
    };
    // A closed-loop variant: its allocator places the stores (odd on the first group, even on the
    // second), loading runs unrefreshed as for any layout; each store searches through a node of
    // its group, the burst store through the master (it changes group mid-run, so no node of
    // either group should coordinate its crawl).
    const placeByAllocator = async (v, groups) => {
      if (groups.length < 2) throw new RunError(`variant ${v.name}: the closed loop needs two index groups (the lab has ${groups.join(', ') || 'none'})`, 1);
      const prior = allocators.get(v.name);
      if (prior) await prior.stop();
      const alloc = await startAllocator({ esUrl, prefix: `${prefix}${v.name}-`, isolate: v.isolate, dir, variant: v.name });
      allocators.set(v.name, alloc);
      const vt = loopTenants.get(v.name);
      const target = burstTarget(vt, v.burst.store);
      const n = await placeStores(alloc.api, { tenants: vt, groups, target });
      n.target = target;
      loopGroups.set(v.name, groups.slice(0, 2));
      // as createLayout does for its own indices: no replica and no refresh while loading (the
      // store-stats cache stays the default: it is not a dynamic setting, so the layout's median
      // shard size may lag by its 10 s)
      await client.indices.putSettings({ index: n.indices.join(','), settings: { 'index.number_of_replicas': 0, 'index.refresh_interval': '-1' } });
      const urlsOf = await nodeUrlsOf(v);
      n.tenants.forEach((t, i) => {
        const urls = urlsOf(t.group);
        t.es_url = t.set === 'target' || !urls.length ? esUrl : urls[i % urls.length];
      });
      log(`  ${v.name}: ${n.tenants.length} stores placed by the allocator at ${alloc.url} in ${n.indices.length} indices; burst store ${target} (${v.burst.store ?? 'biggest'} odd store) on ${groups[0]}${narrate ? `; watch it live: make watch URL=${alloc.url}` : ''}`);
      return n;
    };
    // the variants measured on the lab now up: those sharing the current variant's lab
    const sameLab = (vname) => plan.variants.filter((v) => labKey(v.lab) === labKey(labOf.get(vname)));
    const prepare = async (vname, { restarted, fresh }) => {
      if (fresh) built.clear();
      for (const v of sameLab(vname)) if (!built.has(v.name)) await build(v);
      write();
      // QUICK (a smoke run of small data) warms the JVMs with its first variant only, and the
      // write workloads not at all (their QUICK windows are seconds: nothing to compare)
      const warm = plan.quick ? (writes ? [] : sameLab(vname).slice(0, 1)) : sameLab(vname);
      if (restarted) for (const v of warm) await warmUp(v);
    };
    await prepare(plan.order[0], { restarted: true, fresh: true });
    results.plan.warmup_pass = true;
    const rounds = new Map();
    for (let i = 0; i < plan.order.length; i++) {
      check();
      const vname = plan.order[i];
      if (lab && labKey(labOf.get(vname)) !== labKey(labOf.get(currentVariant))) {
        currentVariant = vname;
        const switched = await useLab(vname);
        await client.close();
        client = esClient();
        if (switched.restarted) await settleAfterStart(client);
        await fitness();
        await prepare(vname, switched);
      }
      currentVariant = vname;
      const round = (rounds.get(vname) ?? 0) + 1;
      rounds.set(vname, round);
      const repDir = join(dir, 'repetitions', `${String(i + 1).padStart(2, '0')}-${vname}-r${round}`);
      mkdirSync(repDir, { recursive: true });
      const phases = manyShards
        ? `making ${plan.variants.find((v) => v.name === vname).settings.indices} indices (${plan.workload.measure} at most)`
        : `ramp-up ${plan.workload.ramp_up}, warm-up ${plan.workload.warmup}, measuring ${plan.workload.measure}`;
      log(`[${i + 1}/${plan.order.length}] ${vname}, repetition ${round}: ${phases}`);
      const rep = { round, started_at: nowIso(), complete: false, figures: null, timeline: [] };
      byName.get(vname).repetitions.push(rep);
      if (writes) {
        try {
          await (manyShards ? measureManyShards : measureIngest)(plan.variants.find((v) => v.name === vname), round, repDir, rep);
        } catch (err) {
          if (err instanceof RunError && err.exitCode === 130) throw err;
          rep.incomplete_reason = err instanceof RunError ? err.message : esReason(err);
          log(`  repetition failed: ${rep.incomplete_reason}`);
        }
        continue;
      }
      let before = null, sampler = null, cpu0 = null, watch = null;
      const variant = plan.variants.find((v) => v.name === vname);
      const alloc = allocators.get(vname);
      const loop = variant.isolate && alloc ? { target: names.get(vname).target, groups: loopGroups.get(vname) } : null;
      try {
        const tell = narrate && loop ? narrator({ log, pointsFile: pointsFileOf(repDir), target: loop.target, groups: loop.groups, burst: variant.burst, measureS: plan.workload.measure_s }) : null;
        const out = await runLoad({
          locust, script: locustfile('experiment'), esUrl, workload: plan.workload, extraEnv: metricsEnv,
          tenants: names.get(vname).tenants, dir: repDir, runId: `${runId}-${i + 1}`, signal, burst: plan.variants.find((v) => v.name === vname).burst ?? null,
          onMeasureStart: () => {
            if (loop) watch = watchIsolation(alloc.api, { target: loop.target, intervalMs: Math.round(variant.isolate.interval_s * 1000), onTick: tell?.tick });
            tell?.start();
            cpu0 = process.cpuUsage();
            snapshot(client).then((s) => { before = s; }).catch(() => {});
            sampler = queueSampler(client);
          },
        });
        const queueMax = sampler ? await sampler.stop() : null;
        const after = await snapshot(client);
        const cpu = process.cpuUsage(cpu0 ?? undefined);
        measuredCpu += (cpu.user + cpu.system) / 1e6;
        measuredLoadCpu += out.loadCpuSeconds ?? 0;
        measuredWall += out.measureWallMs / 1000;
        rep.figures = { ...out.figures, es: before ? windowFigures(before, after, queueMax) : null };
        if (watch) {
          const w = await watch.stop();
          watch = null;
          const burstFromMs = out.t0 + out.burstWindow.from_s * 1000;
          const loopFigures = isolationFigures({ points: out.points, t0: out.t0, burstFromMs, endMs: out.t0 + plan.workload.measure_s * 1000, watch: w, settleMs: variant.isolate.settle_s * 1000, auto: variant.isolate.auto });
          Object.assign(rep.figures, loopFigures);
          rep.isolation = isolationRecord(w, out.t0, loop.target);
          tell?.end(loopFigures);
        }
        rep.timeline = out.timeline;
        if (Object.keys(out.timelineBySet).length) rep.timeline_by_set = out.timelineBySet;
        if (out.burstTenant) rep.burst = { tenant: out.burstTenant, ...out.burstWindow };
        rep.complete = out.crossTenantHits === 0;
        if (!rep.complete) rep.incomplete_reason = `${out.crossTenantHits} cross-tenant hits`;
        const f = rep.figures;
        log(`  ${f.requests} requests (${f.throughput_rps}/s), ${f.errors} errors, avg ${f.avg_ms} ms, p95 ${f.p95_ms} ms, p99 ${f.p99_ms} ms${f.late_arrivals ? `, ${f.late_arrivals} late arrivals` : ''}`);
      } catch (err) {
        if (sampler) await sampler.stop();
        if (watch) await watch.stop();
        if (err instanceof RunError && err.exitCode === 130) throw err;
        rep.incomplete_reason = err instanceof RunError ? err.message : esReason(err);
        log(`  repetition failed: ${rep.incomplete_reason}`);
      } finally {
        rmSync(pointsFileOf(repDir), { force: true });
      }
      // every repetition of a closed-loop variant starts with the burst store in its group
      if (loop) {
        check();
        if (await putBack(alloc.api, loop.target, loop.groups[0])) log(`  ${loop.target} moved back to ${loop.groups[0]} for the next repetition`);
      }
    }
    results.complete = results.variants.every((v) => v.repetitions.length === plan.repetitions && v.repetitions.every((r) => r.complete));
    if (!results.complete) results.incomplete_reason = 'a repetition failed (see its incomplete_reason)';
  } catch (err) {
    results.complete = false;
    results.incomplete_reason = err instanceof RunError ? err.message : `stopped: ${esReason(err)}`;
    throw Object.assign(err, { resultsDir: dir, results });
  } finally {
    // ---- 4. results and report, whatever happened; the run's indices deleted
    const problems = finalize(results, plan, { started, cpuAtStart, measuredCpu, measuredLoadCpu, measuredWall });
    for (const p of problems) log(`warning: results.json does not follow its schema: ${p}`);
    write();
    try {
      await writeReport(dir, results);
    } catch (err) {
      log(`report not written: ${err.message}`);
    }
    for (const [vname, a] of allocators) {
      await a.stop().catch(() => {});
      await deletePrefix(client, `${prefix}${vname}-`).catch(() => {});
    }
    await deleteRunIndices(client, prefix, log);
    if (bodiesDir) rmSync(bodiesDir, { recursive: true, force: true });
    await client.close();
    await lab?.stop();
  }
  return { dir, results };
}

/** What results.json keeps of the watcher: times in seconds from the measured window's start. */
function isolationRecord(w, t0, target) {
  const rel = (ms) => (ms === null || ms === undefined ? null : Math.round((ms - t0) / 100) / 10);
  return {
    target,
    flagged_s: rel(w.flagged_at),
    evidence: w.evidence,
    move: w.move ? { ...w.move, created_at: undefined, started_at: undefined, finished_at: undefined, created_s: rel(w.move.created_at), started_s: rel(w.move.started_at), finished_s: rel(w.move.finished_at) } : null,
    samples: w.samples.map((x) => ({ t_s: rel(x.at), groups: x.groups, hot: x.hot })),
  };
}

function finalize(results, plan, { started, cpuAtStart, measuredCpu, measuredLoadCpu, measuredWall }) {
  const metrics = plan.report?.metrics;
  for (const v of results.variants) {
    const done = v.repetitions.filter((r) => r.figures);
    v.summary = summarize(done.map((r) => r.figures), metrics);
  }
  const figures = Object.fromEntries(results.variants.map((v) => [v.name, v.repetitions.map((r) => (r.figures && r.complete ? r.figures : null))]));
  results.verdicts = computeVerdicts(plan, figures);
  results.finished_at = nowIso();
  const cores = cpus().length;
  const used = process.cpuUsage(cpuAtStart);
  results.runner = {
    // shares of the whole machine (all cores) during the measured windows
    cpu_percent: measuredWall ? Math.round((measuredCpu / (measuredWall * cores)) * 1000) / 10 : null,
    // the load generator's (Locust's) share, measured from /proc while it ran
    generator_cpu_percent: measuredWall ? Math.round((measuredLoadCpu / (measuredWall * cores)) * 1000) / 10 : null,
    wall_seconds: Math.round((Date.now() - started) / 1000),
    total_cpu_seconds: Math.round(((used.user + used.system) / 1e6) * 10) / 10,
  };
  return validateResults(results);
}

/**
 * Deletes every index (and with it every alias) whose name starts with the run's prefix, by
 * name: Elasticsearch refuses wildcard deletes (action.destructive_requires_name).
 */
export async function deleteRunIndices(client, prefix, log = () => {}) {
  try {
    const rows = await client.cat.indices({ index: `${prefix}*`, format: 'json', h: 'index', expand_wildcards: 'all' });
    const indices = rows.map((r) => r.index).filter((i) => i.startsWith(prefix));
    for (let i = 0; i < indices.length; i += 50) await client.indices.delete({ index: indices.slice(i, i + 50).join(',') });
  } catch (err) {
    log(`warning: could not delete the run's indices ${prefix}*: ${esReason(err)}; list them with: curl '<es>/_cat/indices/${prefix}*'`);
  }
}

// ---- the `run` and `check` subcommands (bin/tenantlab-experiment) ----

function parseRunArgs(argv) {
  const o = { name: null, specDir: join(LAB_ROOT, 'experiments'), quick: false, repeat: undefined, labMode: 'running', esUrl: null, runtime: 'unknown', locust: 'locust', resultsRoot: join(LAB_ROOT, '.lab/results/experiments') };
  const takes = { '--dir': 'specDir', '--repeat': 'repeat', '--lab': 'labMode', '--lab-command': 'labCommand', '--es-url': 'esUrl', '--runtime': 'runtime', '--locust': 'locust', '--load-metrics-port': 'loadMetricsPort', '--load-ui-port': 'loadUiPort', '--results': 'resultsRoot' };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--quick') o.quick = true;
    else if (a === '--narrate') o.narrate = true;
    else if (takes[a]) {
      if (i + 1 >= argv.length) throw new RunError(`${a} needs a value`);
      o[takes[a]] = argv[++i];
    } else if (a.startsWith('--')) throw new RunError(`unknown option ${a}`);
    else if (!o.name) o.name = a;
    else throw new RunError(`one experiment at a time (got '${o.name}' and '${a}')`);
  }
  if (!o.name) throw new RunError('which experiment? e.g. run h2-split-index (list shows them)');
  if (o.loadMetricsPort !== undefined) {
    if (!/^\d{1,5}$/.test(o.loadMetricsPort) || Number(o.loadMetricsPort) > 65535) throw new RunError(`--load-metrics-port ${o.loadMetricsPort}: want a port number (0: no endpoint)`);
    o.loadMetricsPort = Number(o.loadMetricsPort) || null;
  }
  if (o.loadUiPort !== undefined) {
    if (!/^\d{1,5}$/.test(o.loadUiPort) || Number(o.loadUiPort) > 65535) throw new RunError(`--load-ui-port ${o.loadUiPort}: want a port number (0: headless)`);
    o.loadUiPort = Number(o.loadUiPort) || null;
  }
  return o;
}

function requireKnown(o) {
  const file = join(o.specDir, `${o.name}.yaml`);
  if (!existsSync(file)) {
    const known = readdirSafe(o.specDir).filter((f) => f.endsWith('.yaml')).map((f) => f.slice(0, -5)).sort();
    throw new RunError(`unknown experiment '${o.name}': pick one of ${known.join(', ') || '(none in experiments/)'}`);
  }
  return resolveSpec(loadSpec(file), { quick: o.quick, repeat: o.repeat });
}

function readdirSafe(dir) {
  try { return readdirSync(dir); } catch { return []; }
}

/** `check NAME [--quick] [--repeat N]`: the spec and the plan are valid; nothing is contacted. */
export function checkCli(argv) {
  const plan = requireKnown(parseRunArgs(argv));
  return `${plan.name}: ${plan.variants.length} variants x ${plan.repetitions} repetitions${plan.quick ? ' (QUICK)' : ''}`;
}

/** `run NAME --es-url URL ...`: the experiment; prints progress, then the table and verdicts. */
export async function runCli(argv, log = (line) => process.stderr.write(`${line}\n`)) {
  const o = parseRunArgs(argv);
  requireKnown(o);
  if (!o.esUrl && !o.labCommand) throw new RunError('--es-url (the running lab) or --lab-command (a lab of its own) is required; scripts/experiment passes one');
  if (!o.esUrl) o.esUrl = labUrl();
  // loopback only, unless the lab is an external cluster the user named (RUNTIME=external, ES_URL)
  const external = o.labMode === 'running' && clusterConnection(process.env).external;
  if (!external && !/^http:\/\/(127\.\d+\.\d+\.\d+|localhost)(:\d+)?\/?$/.test(o.esUrl)) throw new RunError(`--es-url ${o.esUrl}: the lab is loopback-only; refusing to measure anything else`);
  const abort = new AbortController();
  let signals = 0;
  const onSignal = (sig) => {
    signals += 1;
    if (signals > 1) process.exit(130);
    log(`${sig}: stopping; deleting what this run created and writing what it measured (again to quit at once)`);
    abort.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    const { dir, results } = await runExperiment({ ...o, log, signal: abort.signal });
    process.stdout.write(`${closingText(results)}\n`);
    return { dir, results };
  } finally {
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
  }
}

/** What the terminal shows at the end: each variant's figures (mean and spread), the verdicts. */
export function closingText(results) {
  const cell = (s) => (s && s.mean !== null && s.mean !== undefined ? `${s.mean.toFixed(1)} ± ${(s.stdev ?? 0).toFixed(1)}` : '-');
  const reps = (v) => `${v.repetitions.filter((r) => r.complete).length}/${v.repetitions.length}`;
  // the columns of the workload: bulks and documents for ingest, indices for many-shards
  const kind = results.plan.workload?.scenario;
  const columns = kind === 'ingest'
    ? [['shards', (v) => v.layout?.primary_shards ?? '-'], ['replicas', (v) => v.settings.replicas], ['docs/s', (v) => cell(v.summary.docs_per_s)], ['bulks/s', (v) => cell(v.summary.bulk_ops_per_s)],
      ['avg ms', (v) => cell(v.summary.avg_ms)], ['p95 ms', (v) => cell(v.summary.p95_ms)], ['rejected', (v) => cell(v.summary.docs_rejected)]]
    : kind === 'many-shards'
      ? [['indices', (v) => v.settings.indices], ['indices/s', (v) => cell(v.summary.indices_per_s)], ['create avg ms', (v) => cell(v.summary.avg_ms)], ['create p95 ms', (v) => cell(v.summary.p95_ms)],
        ['state KB', (v) => (v.summary.cluster_state_bytes?.mean ? Math.round(v.summary.cluster_state_bytes.mean / 1024) : '-')], ['master heap MB', (v) => cell(v.summary.master_heap_max_mb)]]
      : [['shards', (v) => v.layout?.primary_shards ?? '-'], ['median shard', (v) => (v.layout?.median_shard_bytes ? `${Math.round(v.layout.median_shard_bytes / 1024)} KB` : '-')],
        ['avg ms', (v) => cell(v.summary.avg_ms)], ['p95 ms', (v) => cell(v.summary.p95_ms)], ['p99 ms', (v) => cell(v.summary.p99_ms)], ['req/s', (v) => cell(v.summary.throughput_rps)]];
  const rows = results.variants.map((v) => [v.label ?? v.name, ...columns.map(([, f]) => f(v)), reps(v)]);
  const table = textTable(['variant', ...columns.map(([h]) => h), 'reps'], rows, { right: columns.map((_, i) => i + 1) });
  const verdicts = results.verdicts.map((v) => `  ${verdictLine(v).replaceAll('**', '')}`);
  return [
    '',
    `${results.experiment}${results.quick ? ' (QUICK)' : ''}: mean ± stdev over the repetitions${results.complete ? '' : ` — INCOMPLETE: ${results.incomplete_reason}`}`,
    table,
    '',
    'verdicts:',
    ...verdicts,
  ].join('\n');
}
