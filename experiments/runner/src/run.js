// `tenantlab-experiment run NAME`: one experiment from its spec to its report, in four phases,
// each a module of run/:
//   1. fitness.js   the plan and the lab's fitness (up, quiet, groups, disk): any refusal is one
//                   line before anything is created; record.js then opens the run's folder and
//                   results.json
//   2. layouts.js   every variant's layout built and loaded (same documents in each), settled and
//                   merged, on the lab that measures it
//   3. measure.js   a full unmeasured round, then the measured rounds, each in an order drawn from
//                   the run's recorded seed, each window one run
//                   of the load engine (Locust) plus Elasticsearch's own figures for the window
//   4. finalize.js  results.json (the schema of src/results-schema.json), verdicts computed from
//                   the repetitions, report.md / report.html / SVG charts
// Whatever happens (Ctrl-C, a failed repetition, a node gone) the indices and aliases the run
// created are deleted, and what was measured is written, marked incomplete.
import { existsSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { clusterConnection } from '@tenantlab/contract/connection';
import { esReason } from '@tenantlab/contract/errors';
import { RunError } from './errors.js';
import { loadSpec, resolveSpec } from './spec.js';
import { planMinimum } from './verdict.js';
import { closingText, finishRun } from './run/finalize.js';
import { fitDataset, openLab } from './run/fitness.js';
import { engineCpusOf, labUrl } from './run/lab-control.js';
import { planLayouts, writeRunBodies } from './run/layouts.js';
import { measureWindows } from './run/measure.js';
import { openRecord } from './run/record.js';

const LAB_ROOT = resolve(new URL('../../..', import.meta.url).pathname);

/**
 * Runs one experiment. Options: name, specDir, quick, repeat, esUrl, labMode ('own'|'running'),
 * runtime, resultsRoot, locust (the load engine's executable, scripts/install/locust.sh),
 * loadMetricsPort (the load's Prometheus endpoint, make demo; default none), loadUiPort (Locust's
 * web UI while a repetition runs, make demo; default none: headless), log (a line
 * printer), signal (AbortSignal).
 * Resolves to { dir, results }. Throws RunError (one line) when the run cannot start.
 */
export async function runExperiment(opts) {
  const { name, specDir, quick, repeat, orderSeed, locust, log, signal, narrate = false, loadMetricsPort = null, loadUiPort = null } = opts;
  const plan = planOf(resolveSpec(loadSpec(join(specDir, `${name}.yaml`)), { quick, repeat, orderSeed }), { narrate });
  if (plan.lab_left_out) log(plan.lab_left_out);
  // where each variant's load engines run (lab.load_engine.cpus_of, burst_cpus_of), known before
  // anything starts: a group without a CPU slice of its own refuses the run here
  const engineCpus = new Map(plan.variants.map((v) => [v.name, engineCpusOf(v.lab)]));
  const pinned = [...new Set([...engineCpus.values()].filter((c) => c.measure || c.burst).map((c) => [c.measure ? `the shoppers' engine on CPU ${c.measure}` : null, c.burst ? `the burst's engine on CPU ${c.burst}` : null].filter(Boolean).join(', ')))];
  if (pinned.length) log(`load engines: ${pinned.join('; ')}`);
  const started = Date.now();
  const cpuAtStart = process.cpuUsage();

  // ---- 1. the lab is fit: nothing is created before every check has passed
  const lab = await openLab(plan, opts);
  const data = await fitDataset(plan, lab);
  const record = await openRecord(plan, { ...opts, started }, lab, data);
  // What every phase reads and adds to: the plan, the lab, the dataset, the record
  // (record.js), the layouts (layouts.js) and the CPU the measured windows took
  const run = {
    plan, lab, data, ...record, layouts: planLayouts(plan, { runId: record.runId, data }),
    log, signal, locust, narrate, metricsEnv: loadEnvOf({ loadMetricsPort, loadUiPort, log }), engineCpus,
    measured: { cpu: 0, loadCpu: 0, wall: 0 },
    check: () => { if (signal?.aborted) throw new RunError('interrupted', 130); },
  };
  if (data.writes) run.layouts.bodies = writeRunBodies(plan, run);
  try {
    // ---- 2. layouts, built on the lab that measures them (again when a new lab replaces it),
    // and 3. the warm-up and the measured windows
    await measureWindows(run);
  } catch (err) {
    run.results.complete = false;
    run.results.incomplete_reason = err instanceof RunError ? err.message : `stopped: ${esReason(err)}`;
    throw Object.assign(err, { resultsDir: run.dir, results: run.results });
  } finally {
    // ---- 4. results and report, whatever happened; the run's indices deleted
    await finishRun(run, { started, cpuAtStart });
  }
  return { dir: run.dir, results: run.results };
}

/**
 * The plan a run follows, refused when it asks for a verdict it cannot give: a QUICK run or the
 * demo's narration is a smoke run (every variant measured, no verdict, and said so); any other
 * run needs the repetitions its directions declare (verdict.js minRepetitions).
 */
export function planOf(plan, { narrate = false } = {}) {
  if (narrate) plan = asRunningLab(plan);
  const smoke = plan.quick || narrate;
  if (!smoke) {
    const min = planMinimum(plan);
    if (plan.repetitions < min.repetitions) {
      throw new RunError(`${plan.name}: ${plan.repetitions} repetitions give no verdict: ${min.why}; set REPEAT=${min.repetitions} (or more), or QUICK=1 for a smoke run without a verdict`);
    }
  }
  return { ...plan, smoke };
}

/**
 * make demo tells the story on the running lab as it is: node sizes a spec measures with (its
 * lab: sets only data_node and load_engine, e.g. noisy-neighbour's headroom for what floats) are the full run's
 * conditions, not something to impose on a user's lab, so the demo leaves them out and says so
 * (plan.lab_left_out). A lab: that changes the topology (groups, nodes, shape) stays, and LAB=running refuses it.
 */
export function asRunningLab(plan) {
  const sizesOnly = (lab) => lab && Object.keys(lab).every((k) => k === 'data_node' || k === 'load_engine');
  if (!plan.variants.some((v) => sizesOnly(v.lab)) || !plan.variants.every((v) => !v.lab || sizesOnly(v.lab))) return plan;
  const { data_node: sizes, load_engine: engine } = plan.variants.find((v) => v.lab).lab;
  const said = [sizes ? `each data node: ${Object.entries(sizes).map(([k, v]) => `${k} ${v}`).join(', ')}` : null,
    engine ? `the load engine: ${Object.entries(engine).map(([k, v]) => `${k} ${v}`).join(', ')}` : null].filter(Boolean).join('; ');
  return {
    ...plan,
    lab: null,
    lab_left_out: `the full run's node sizes (${said}) are left out: the demo runs on the lab as it is`,
    variants: plan.variants.map((v) => ({ ...v, lab: null })),
  };
}

// The load's Prometheus endpoint (make demo, the running lab's Prometheus scrapes it): only the
// storefront's closed loop; the experiments' own labs have no Prometheus. And Locust's web UI
// (make demo): the story in a browser while each repetition lasts.
function loadEnvOf({ loadMetricsPort, loadUiPort, log }) {
  const bind = process.env.LAB_BIND || '127.0.0.1';
  if (loadUiPort) log(`load: Locust's web UI: http://${bind}:${loadUiPort}/ (while each repetition runs)`);
  return {
    ...(loadMetricsPort ? { LOAD_METRICS_PORT: String(loadMetricsPort), LOAD_METRICS_HOST: process.env.LOAD_METRICS_HOST || bind } : {}),
    ...(loadUiPort ? { LOAD_UI_PORT: String(loadUiPort), LAB_BIND: bind } : {}),
  };
}

// ---- the `run` and `check` subcommands (bin/tenantlab-experiment) ----

function parseRunArgs(argv) {
  const o = { name: null, specDir: join(LAB_ROOT, 'experiments'), quick: false, repeat: undefined, labMode: 'running', esUrl: null, runtime: 'unknown', locust: 'locust', resultsRoot: join(LAB_ROOT, '.lab/results/experiments') };
  const takes = { '--dir': 'specDir', '--repeat': 'repeat', '--order-seed': 'orderSeed', '--lab': 'labMode', '--lab-command': 'labCommand', '--es-url': 'esUrl', '--runtime': 'runtime', '--locust': 'locust', '--load-metrics-port': 'loadMetricsPort', '--load-ui-port': 'loadUiPort', '--results': 'resultsRoot' };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--quick') o.quick = true;
    else if (a === '--publish-anyway') o.publishAnyway = true;
    else if (a === '--narrate') o.narrate = true;
    else if (takes[a]) {
      if (i + 1 >= argv.length) throw new RunError(`${a} needs a value`);
      o[takes[a]] = argv[++i];
    } else if (a.startsWith('--')) throw new RunError(`unknown option ${a}`);
    else if (!o.name) o.name = a;
    else throw new RunError(`one experiment at a time (got '${o.name}' and '${a}')`);
  }
  if (!o.name) throw new RunError('which experiment? e.g. run h2-split-index (list shows them)');
  if (o.orderSeed !== undefined) {
    if (!/^\d{1,10}$/.test(o.orderSeed) || Number(o.orderSeed) > 0xffffffff) throw new RunError(`--order-seed ${o.orderSeed}: want a whole number from 0 to 4294967295 (a run's plan.order_seed repeats its order)`);
    o.orderSeed = Number(o.orderSeed);
  }
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
  return planOf(resolveSpec(loadSpec(file), { quick: o.quick, repeat: o.repeat, orderSeed: o.orderSeed }), { narrate: o.narrate });
}

function readdirSafe(dir) {
  try { return readdirSync(dir); } catch { return []; }
}

/** `check NAME [--quick] [--repeat N]`: the spec and the plan are valid; nothing is contacted. */
export function checkCli(argv) {
  const plan = requireKnown(parseRunArgs(argv));
  return `${plan.name}: ${plan.variants.length} variants x ${plan.repetitions} repetitions${plan.smoke ? ' (QUICK: a smoke run, no verdict)' : ''}`;
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

