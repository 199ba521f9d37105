// A run's record from its first moment: its id and folder, and results.json's first draft (the
// plan, the variants, the environment its figures come from: machine, versions, commit, data),
// written again after each step so a run stopped half-way still says what it measured.
import { createHash, randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, release, totalmem, type } from 'node:os';
import { join, resolve } from 'node:path';
import { experimentRunPrefix } from '@tenantlab/contract/naming';
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
      tenantlab: JSON.parse(readFileSync(PACKAGE, 'utf8')).version,
    },
    lab_env_sha256: existsSync(labEnvFile) ? createHash('sha256').update(readFileSync(labEnvFile)).digest('hex') : null,
    git_commit: commit ? `${commit}${dirty ? '-dirty' : ''}` : null,
    data,
  };
}

/**
 * Opens the run's record on the lab that passed its checks (fitness.js) and the run's dataset:
 * the run's folder under resultsRoot, and results.json's first draft (src/results-schema.json),
 * not complete until the end says so. -> { runId, dir, prefix, results, byName, write() }:
 * `prefix` starts every index and alias the run creates; byName: the variants' records by name.
 */
export async function openRecord(plan, { name, labMode, resultsRoot, locust, log, started }, lab, data) {
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
    // the same `starts` the lab keeps: a start later in the run shows here too
    lab: { mode: labMode, es_url: lab.esUrl, ...(lab.own ? { starts: lab.starts } : {}) },
    environment: environment({ esVersion, loadEngine, runtime: lab.runtime, labEnvFile: process.env.LAB_ENV_FILE || join(LAB_ROOT, 'lab.env'),
      data: data.writes
        ? { profile: dataset.profile, kind: dataset.kind, seed: dataset.seed, stores: null, documents: null, bytes: null, document_bytes: null, bulk_bytes: null }
        : { profile: dataset.profile, scale: dataset.scale, seed: dataset.seed, stores: data.tenants.length, documents: data.documents, bytes: null } }),
    plan: { repetitions: plan.repetitions, confidence: plan.confidence, order: plan.order, workload, report: plan.report, expect: plan.expect },
    variants: plan.variants.map((v) => ({ name: v.name, label: v.label ?? v.name, settings: v.settings, ...(v.lab ? { lab: v.lab } : {}), ...(v.burst ? { burst: v.burst } : {}), ...(v.isolate ? { isolate: v.isolate } : {}), layout: null, ...(v.published ? { published: v.published } : {}), repetitions: [], summary: {} })),
    verdicts: [],
    runner: { cpu_percent: null, generator_cpu_percent: null, wall_seconds: null },
  };
  return {
    runId, dir, prefix: experimentRunPrefix(runId), results,
    byName: new Map(results.variants.map((v) => [v.name, v])),
    write: () => writeFileSync(join(dir, 'results.json'), `${JSON.stringify(results, null, 2)}\n`),
  };
}
