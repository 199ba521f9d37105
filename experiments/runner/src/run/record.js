// A run's record from its first moment: its id and folder, and results.json's first draft (the
// plan, the variants, the environment its figures come from: machine, versions, commit, data),
// written again after each step so a run stopped half-way still says what it measured.
import { createHash, randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, release, totalmem, type } from 'node:os';
import { join, resolve } from 'node:path';
import { experimentRunPrefix } from '@tenantlab/contract/naming';
import { resultsSkeleton } from '../results.js';
import { engineOf } from './workload.js';

const LAB_ROOT = resolve(new URL('../../../..', import.meta.url).pathname);
const PACKAGE = new URL('../../package.json', import.meta.url);

const pad = (n) => String(n).padStart(2, '0');

/** A run's id: when it started (UTC, to the second) and four random hex digits, e.g. 20260101t093000-1a2b. */
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

// `locust --version`: "locust 2.47.0 from /.../site-packages/locust (Python 3.12.3)"
function locustVersion(locust) {
  try {
    return execFileSync(locust, ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim().split('\n')[0];
  } catch {
    return null;
  }
}

// The JVMs the figures come from: version, heap and collector flags, per node (they may differ)
async function jvmOf(client) {
  try {
    const info = await client.nodes.info({ metric: ['jvm'] });
    const nodes = Object.values(info.nodes ?? {}).map((n) => ({
      name: n.name,
      version: n.jvm?.version ?? null,
      vm: n.jvm?.vm_name ?? null,
      heap_max_bytes: n.jvm?.mem?.heap_max_in_bytes ?? null,
      gc: n.jvm?.gc_collectors ?? [],
      // the flags that change what a measurement means: heap sizes and the collector
      flags: (n.jvm?.input_arguments ?? []).filter((a) => /^-Xm[sx]|^-XX:[+-]?Use\w*GC|^-XX:(G1|MaxGCPause|ParallelGCThreads|ConcGCThreads|ActiveProcessorCount)/.test(a)),
    })).sort((a, b) => a.name.localeCompare(b.name));
    return { nodes };
  } catch {
    return null;
  }
}

/** The CPU model most of the committed runs (experiments/results) were measured on; null when none is. */
export function referenceCpuModel(root = join(LAB_ROOT, 'experiments/results')) {
  const counts = new Map();
  for (const name of existsSync(root) ? readdirSync(root) : []) {
    const file = join(root, name, 'results.json');
    if (!existsSync(file)) continue;
    try {
      const model = JSON.parse(readFileSync(file, 'utf8')).environment?.machine?.cpu_model;
      if (model) counts.set(model, (counts.get(model) ?? 0) + 1);
    } catch { /* a broken committed file is make render CHECK=1's to report */ }
  }
  return [...counts.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? null;
}

/**
 * Whether a run may be published (committed to experiments/results): from a clean tree, on the
 * machine model of the committed runs; `override` (PUBLISH=force) publishes it anyway and says so.
 */
export function publishability({ clean, cpuModel, reference, override = false }) {
  const reasons = [];
  if (!clean) reasons.push('measured from a tree with uncommitted changes');
  if (reference && cpuModel !== reference) reasons.push(`measured on ${cpuModel ?? 'an unknown CPU'}, not on the committed runs' ${reference}`);
  return { ok: reasons.length === 0 || override, reasons, override: Boolean(override && reasons.length) };
}

function environment({ esVersion, loadEngine, runtime, labEnvFile, data, jvm, publishAnyway }) {
  const commit = git(['rev-parse', 'HEAD']);
  const dirty = commit && git(['status', '--porcelain', '--untracked-files=no']);
  const cpuModel = cpus()[0]?.model ?? null;
  return {
    machine: { cores: cpus().length, memory_bytes: totalmem(), cpu_model: cpuModel, os: `${type()} ${release()}` },
    runtime,
    // the node shape: CPU sets and quotas per group (SHAPE=groups) or none (off)
    shape: process.env.SHAPE || null,
    // the load generator that measured the run (results before it record versions.k6 instead)
    load_engine: loadEngine,
    versions: {
      elasticsearch: esVersion, node: process.version,
      tenantlab: JSON.parse(readFileSync(PACKAGE, 'utf8')).version,
    },
    jvm,
    lab_env_sha256: existsSync(labEnvFile) ? createHash('sha256').update(readFileSync(labEnvFile)).digest('hex') : null,
    git_commit: commit ? `${commit}${dirty ? '-dirty' : ''}` : null,
    git_clean: commit ? !dirty : null,
    publishable: publishability({ clean: Boolean(commit && !dirty), cpuModel, reference: referenceCpuModel(), override: publishAnyway }),
    data,
  };
}

/**
 * Opens the run's record on the lab that passed its checks (fitness.js) and the run's dataset:
 * the run's folder under resultsRoot, and results.json's first draft (src/results-schema.json),
 * not complete until the end says so. -> { runId, dir, prefix, results, byName, write() }:
 * `prefix` starts every index and alias the run creates; byName: the variants' records by name.
 */
export async function openRecord(plan, { name, labMode, resultsRoot, locust, log, started, publishAnyway = false }, lab, data) {
  const esVersion = (await lab.client.info()).version.number;
  const loadEngine = engineOf(locustVersion(locust));
  const runId = newRunId();
  const dir = join(resultsRoot, name, runId);
  mkdirSync(dir, { recursive: true });
  const { workload, dataset } = plan;
  const what = data.manyShards ? `${workload.clients} clients creating indices of ${workload.docs_per_index} ${dataset.profile} documents`
    : data.writes ? `${workload.clients} clients sending bulks of ${workload.bulk_docs} ${dataset.profile} documents` : `${data.documents} documents of ${data.tenants.length} stores each`;
  log(`experiment ${name}, run ${runId}${plan.quick ? ' (QUICK)' : ''}: ${plan.variants.length} variants x ${plan.repetitions} repetitions, ${what}; lab: ${labMode} (${lab.quiet.other_ops_per_s} other ops/s)`);
  log(`  results: ${dir}`);

  const results = resultsSkeleton(plan, {
    run_id: runId,
    started_at: new Date(started).toISOString(),
    // the same `starts` the lab keeps: a start later in the run shows here too
    lab: { mode: labMode, es_url: lab.esUrl, ...(lab.own ? { starts: lab.starts } : {}) },
    environment: environment({ esVersion, loadEngine, jvm: await jvmOf(lab.client), publishAnyway, runtime: lab.runtime, labEnvFile: process.env.LAB_ENV_FILE || join(LAB_ROOT, 'lab.env'),
      data: data.writes
        ? { profile: dataset.profile, kind: dataset.kind, seed: dataset.seed, stores: null, documents: null, bytes: null, document_bytes: null, bulk_bytes: null }
        : { profile: dataset.profile, scale: dataset.scale, seed: dataset.seed, stores: data.tenants.length, documents: data.documents, bytes: null } }),
    workload,
  });
  return {
    runId, dir, prefix: experimentRunPrefix(runId), results,
    byName: new Map(results.variants.map((v) => [v.name, v])),
    write: () => writeFileSync(join(dir, 'results.json'), `${JSON.stringify(results, null, 2)}\n`),
  };
}
