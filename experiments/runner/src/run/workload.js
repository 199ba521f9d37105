// One repetition's load: the load engine (Locust, the lab's pinned build from
// traffic/requirements.lock) running a locustfile (traffic/experiment.py, ingest.py,
// many_shards.py) against one variant's aliases; its summary ($RESULTS_DIR/summary.json, k6's
// key shape) gives the measured window's figures and its points file (POINTS_FILE: one CSV line
// per request) the latency over time. The generator's own CPU use is sampled from /proc while it
// runs, to report it beside the runner's.
import { spawn } from 'node:child_process';
import { constants as osConstants } from 'node:os';
import { createReadStream, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { join, resolve } from 'node:path';
import { RunError } from '../errors.js';
import { childEnv, clusterConnection } from '@tenantlab/contract/connection';

const TICKS_PER_S = 100; // USER_HZ on Linux
const LAB_ROOT = resolve(new URL('../../../..', import.meta.url).pathname);

/** What starts the engine (exec, the same pid): in the lab's load-engine group if it has one. */
export const LOAD_ENGINE_EXEC = join(LAB_ROOT, 'runtimes', 'native', 'bin', 'load-engine-exec');

/** The locustfile of a scenario: traffic/<name>.py (experiment, ingest, many_shards). */
export const locustfile = (name) => join(LAB_ROOT, 'traffic', `${name}.py`);

/** The file every request of a run is appended to (POINTS_FILE), in the repetition's folder. */
export const pointsFileOf = (dir) => join(dir, 'points.csv');

/** `locust --version`'s first line ("locust 2.47.0 from /...") -> { name: 'locust', version: '2.47.0' }. */
export function engineOf(versionText) {
  const m = /^\s*locust\s+v?(\S+)/i.exec(String(versionText ?? ''));
  return { name: 'locust', version: m ? m[1] : null };
}

function cpuTicks(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
    return Number(f[11]) + Number(f[12]); // utime + stime (fields 14, 15)
  } catch {
    return null;
  }
}

/**
 * The environment of one run of a locustfile: the plan's phases, the stores (TENANTS_FILE), the
 * model (RATE or VUS), the burst, where to write (RESULTS_DIR, POINTS_FILE), the external
 * cluster's connection (childEnv 'load'), no metrics endpoint unless extraEnv names a port.
 */
export function loadEnv({ esUrl, workload, tenants = null, dir, runId, burst = null, extraEnv = {}, tenantsFile = null, env = process.env }) {
  const out = {
    PATH: env.PATH, HOME: env.HOME,
    ...(env.LANG ? { LANG: env.LANG } : {}),
    // the lab whose load-engine group the engine joins (load-engine-exec), if it has one
    ...(env.LAB_DIR ? { LAB_DIR: env.LAB_DIR } : {}),
    ES_URL: esUrl, RESULTS_DIR: dir, RUN_ID: runId, POINTS_FILE: pointsFileOf(dir),
    RAMP_UP: workload.ramp_up, WARMUP: workload.warmup, MEASURE: workload.measure,
    // no Prometheus endpoint of its own: a run's figures are its summary and points file
    // (make demo passes LOAD_METRICS_PORT in extraEnv, for the lab's Prometheus to scrape)
    LOAD_METRICS_PORT: '0',
    // an external cluster's header and CA (RUNTIME=external), in the load engine's environment only
    ...childEnv(clusterConnection(env), 'load'),
    ...extraEnv,
  };
  // the storefront's stores and their aliases (the ingest workload has none: its index is in extraEnv)
  if (tenants) {
    Object.assign(out, { TENANTS_FILE: tenantsFile ?? join(dir, 'tenants.json'), THINK_MS: String(workload.think_ms ?? 0), PROFILE_TENANTS: String(tenants.length) });
  }
  if (workload.model === 'open') out.RATE = String(workload.rate);
  else if (workload.vus) out.VUS = String(workload.vus);
  if (burst) {
    // the burst on the biggest odd store (on g1 when the odd stores' index is there)
    // (a closed-loop variant names its store: set 'target'); BOT_TENANT names it whatever the kind
    const target = tenants.find((t) => t.set === 'target') ?? tenants.filter((t) => t.set === 'odd').sort((a, b) => b.documents - a.documents)[0] ?? tenants[0];
    // whole seconds: the locustfiles take durations like 12s (traffic/lib/config.py)
    const at = Math.round(burst.from * workload.measure_s);
    const kind = burst.kind ?? 'bot';
    Object.assign(out, {
      BOT_TENANT: target.id, BURST_KIND: kind,
      // a bot crawls at a rate; the writers go as fast as their bulks are answered
      ...(kind === 'resubmit' ? { BURST_WRITERS: String(burst.writers), BURST_BULK: String(burst.bulk_size) } : { BOT_RATE: String(burst.rate) }),
      BURST_AT: `${at}s`,
      BURST_FOR: `${Math.max(1, Math.round(burst.to * workload.measure_s) - at)}s`,
    });
  }
  return out;
}

/** Headless, or (LOAD_UI_PORT, make demo) Locust's web UI on LAB_BIND while the run lasts, gone when it ends. */
export function engineModeArgs(env) {
  const port = Number(env.LOAD_UI_PORT) || 0;
  return port ? ['--autostart', '--autoquit', '0', '--web-host', env.LAB_BIND || '127.0.0.1', '--web-port', String(port)] : ['--headless'];
}

/**
 * Runs the load engine for one repetition: `locust -f SCRIPT --headless --only-summary
 * --skip-log-setup` (the locustfile's own shape sets the users and stops at its end). Returns
 * { figures, summary, timeline, timelineBySet, points, t0, burstTenant, burstWindow, burstWrites, routes, burstStoppedAfterS,
 * loadCpuSeconds, measureWallMs, crossTenantHits, exitCode }.
 * `signal` (AbortSignal) stops it at once (Ctrl-C of the run).
 */
export async function runLoad({ locust, script, esUrl, workload, tenants = null, dir, runId, signal, onMeasureStart, burst = null, extraEnv = {}, engineCpus = null, figures = figuresOf,
  burstGraceMs = BURST_GRACE_MS, burstTermMs = BURST_TERM_MS }) {
  let tenantsFile = null;
  if (tenants) {
    tenantsFile = join(dir, 'tenants.json');
    writeFileSync(tenantsFile, JSON.stringify(tenants));
  }
  const env = loadEnv({ esUrl, workload, tenants, dir, runId, burst, extraEnv, tenantsFile });
  // the engines' CPUs (lab.load_engine.cpus_of, burst_cpus_of: engineCpusOf), for load-engine-exec
  if (engineCpus?.measure) env.LOAD_CPUS = engineCpus.measure;
  // the plan's durations in seconds (spec.js resolveSpec), beside their written form
  const warmupMs = (workload.ramp_up_s + workload.warmup_s) * 1000;
  const measureMs = workload.measure_s * 1000;
  const bound = warmupMs + measureMs + 300000;

  // a burst with an engine of its own (burst.engine: own): the shoppers' engine measures and
  // writes its clock's start, the burst's engine waits for it (traffic/experiment.py ENGINE_ROLE)
  const burstDir = burst?.engine === 'own' ? join(dir, 'burst') : null;
  if (burstDir) {
    Object.assign(env, { ENGINE_ROLE: 'measure', T0_FILE: join(dir, 't0') });
    rmSync(env.T0_FILE, { force: true });
    mkdirSync(burstDir, { recursive: true });
  }
  const main = startEngine(locust, script, env);
  const side = burstDir ? startEngine(locust, script, burstEnvOf(env, burstDir, engineCpus?.burst)) : null;
  const engines = side ? [main, side] : [main];
  // the generator's CPU from its start-up's end is not known from outside; the measured window
  // starts warmupMs after the first request, near enough to after start-up: sample then and at
  // the end (both engines' when the burst has its own)
  const started = Date.now();
  let atMeasure = null;
  let last = null;
  const poll = setInterval(() => {
    const ticks = engines.map((e) => cpuTicks(e.child.pid));
    const t = ticks.some((x) => x === null) ? null : ticks.reduce((a, x) => a + x, 0);
    if (t !== null) last = t;
    if (atMeasure === null && Date.now() - started >= warmupMs) { atMeasure = { ticks: t, at: Date.now() }; onMeasureStart?.(); }
  }, 250);
  const kill = () => engines.forEach((e) => e.child.kill('SIGKILL'));
  signal?.addEventListener('abort', kill, { once: true });
  const timer = setTimeout(kill, bound);
  const exitCode = await main.exit;
  const sideEnd = side ? await endBurstEngine(side, { mainOk: (exitCode === 0 || exitCode === 99) && !signal?.aborted, graceMs: burstGraceMs, termMs: burstTermMs }) : null;
  clearInterval(poll);
  clearTimeout(timer);
  signal?.removeEventListener('abort', kill);
  if (signal?.aborted) throw new RunError('interrupted', 130);
  // 0: every threshold held; 99: a threshold failed (the cross-tenant check): figures still count
  if (exitCode !== 0 && exitCode !== 99) throw new RunError(`locust exited with status ${exitCode}: ${tailOf(main.output)}`, 1);
  if (sideEnd?.killed) throw new RunError(`the burst's locust did not stop within ${burstTermMs / 1000} s of SIGTERM, sent ${sideEnd.stopped_after_s} s after the measuring engine's end: killed`, 1);
  const sideCode = side ? sideEnd.code : 0;
  if (sideCode !== 0 && sideCode !== 99) throw new RunError(`the burst's locust exited with status ${sideCode}: ${tailOf(side.output)}`, 1);
  const summary = readSummary(dir, exitCode, main.output);
  const loadCpuSeconds = atMeasure?.ticks != null && last != null ? (last - atMeasure.ticks) / TICKS_PER_S : null;
  const timelines = await timelinesOf(env.POINTS_FILE);
  return {
    figures: figures(summary, workload.measure_s),
    summary,
    timeline: timelines.all,
    timelineBySet: timelines.bySet,
    // every measured request: [epoch ms, duration ms, store set], for figures over spans only
    // known after the run (the closed loop's move)
    points: timelines.points,
    t0: timelines.t0,
    burstTenant: env.BOT_TENANT ?? null,
    // where the burst really lay, in seconds of the measured window (the spec's fractions, rounded)
    burstWindow: env.BOT_TENANT ? { from_s: parseInt(env.BURST_AT, 10), to_s: parseInt(env.BURST_AT, 10) + parseInt(env.BURST_FOR, 10) } : null,
    // a re-submission: what its writers wrote (and what a newer version had already superseded)
    burstWrites: env.BURST_KIND === 'resubmit' ? burstWritesOf(burstDir ? readSummary(burstDir, sideCode, side.output) : summary) : null,
    // the stores the engine routed to another group when the allocator moved them (GROUP_URLS, FOLLOW_S)
    routes: summary.routes ?? [],
    // the burst's engine still sending after the measured window: stopped, so many seconds after
    // the measuring engine's end (endBurstEngine); null when it ended by itself
    burstStoppedAfterS: sideEnd?.stopped_after_s ?? null,
    loadCpuSeconds,
    measureWallMs: measureMs,
    crossTenantHits: summary.metrics.cross_tenant_hits?.values?.count ?? 0,
    exitCode,
  };
}

// How long the burst's own engine may go on after the measuring engine's end before it is told
// to stop (SIGTERM), and how long it then has before SIGKILL. Its scenario ends with the measured
// window, but a bot that fell behind (every slot of its pool taken: the left-alone crawl at the
// lab's saturation) still dispatches the arrivals it owes, then drains them for up to a minute:
// load nobody measures, on the next repetition's lab. CI's demo, 2026-12-07: killed by the old
// 30-s SIGKILL, the repetition failed.
export const BURST_GRACE_MS = 5000;
export const BURST_TERM_MS = 30000;

/**
 * The burst's own engine (burst.engine: own) after the measuring engine's end: ended by itself
 * within graceMs, or stopped with SIGTERM (traffic/lib/run.py ends the run as at its end: the
 * summary written, its exit code its own), SIGKILL termMs later if it is still there. A measuring
 * engine that failed (mainOk false: at its start, the burst's would wait for its clock in vain)
 * has it killed at once. -> { code, stopped_after_s (null: ended by itself), killed }
 */
export async function endBurstEngine(side, { mainOk, graceMs = BURST_GRACE_MS, termMs = BURST_TERM_MS }) {
  const endedBy = (ms) => new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    side.exit.then(() => { clearTimeout(timer); resolve(true); });
  });
  const out = { stopped_after_s: null, killed: false };
  const running = side.child.exitCode === null && side.child.signalCode === null;
  if (running && !mainOk) side.child.kill('SIGKILL');
  else if (running && !(await endedBy(graceMs))) {
    out.stopped_after_s = graceMs / 1000;
    side.child.kill('SIGTERM');
    if (!(await endedBy(termMs))) {
      side.child.kill('SIGKILL');
      out.killed = true;
    }
  }
  return { code: await side.exit, ...out };
}

/**
 * The burst's own engine's environment (burst.engine: own): the shoppers' one with the burst's
 * role and folder, headless, no points file and no metrics endpoint (the allocator's latency
 * leaves the burst's requests out anyway), on its own CPUs when `cpus` names them.
 */
export function burstEnvOf(env, burstDir, cpus = null) {
  const out = { ...env, ENGINE_ROLE: 'burst', RESULTS_DIR: burstDir, POINTS_FILE: '', LOAD_METRICS_PORT: '0' };
  delete out.LOAD_UI_PORT;
  delete out.LOAD_METRICS_HOST;
  // its own CPUs (lab.load_engine.burst_cpus_of), not the shoppers' engine's
  delete out.LOAD_CPUS;
  if (cpus) out.LOAD_CPUS = cpus;
  return out;
}

/** An engine's summary.json in `dir`, or a RunError naming the file and the engine's last lines. */
function readSummary(dir, exitCode, output) {
  const file = join(dir, 'summary.json');
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new RunError(`locust exited with status ${exitCode} but its summary ${file} cannot be read (${err.code ?? err.message}): ${tailOf(output)}`, 1);
  }
}

/** One engine, through load-engine-exec (the lab's load-engine group when LOAD_CPU_WEIGHT made one): { child, exit, output }. */
function startEngine(locust, script, env) {
  const child = spawn(LOAD_ENGINE_EXEC, [locust, '-f', script, ...engineModeArgs(env), '--only-summary', '--skip-log-setup'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const engine = { child, output: '' };
  const keep = (b) => { engine.output = (engine.output + b).slice(-65536); };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  engine.exit = new Promise((resolve) => {
    child.on('error', (err) => { engine.output += `\n${err.message}`; resolve(127); });
    // a death by a signal says which (128 + its number, as a shell has it, and its name in the output)
    child.on('close', (code, sig) => {
      if (code === null && sig) engine.output += `\n(killed by ${sig})`;
      resolve(code ?? (sig ? 128 + (osConstants.signals[sig] ?? 0) : 1));
    });
  });
  return engine;
}

/** The burst writers' counts in a summary: products written, and superseded (409: a newer version was already stored). */
export function burstWritesOf(summary) {
  const count = (name) => summary.metrics?.[`${name}{scenario:burst}`]?.values?.count ?? 0;
  return { products_written: count('products_written'), products_superseded: count('products_superseded') };
}

/** The last lines of the engine's output, on one line (a RunError's tail). */
function tailOf(output) {
  return output.trim().split('\n').map((l) => l.trim()).filter(Boolean).slice(-5).join(' | ') || '(no output)';
}

const r2 = (v) => (Number.isFinite(v) ? Math.round(v * 100) / 100 : null);
const QUERY_TYPES = ['category', 'category_page', 'search', 'detail', 'autocomplete'];

/** The measured window's figures from the load engine's summary (k6's key shape: submetrics tagged scenario:measure). */
export function figuresOf(summary, measureSeconds) {
  const m = summary.metrics;
  const d = m['http_req_duration{scenario:measure}']?.values ?? {};
  const requests = m['http_reqs{scenario:measure}']?.values?.count ?? 0;
  const failedRate = m['http_req_failed{scenario:measure}']?.values;
  const errors = failedRate?.passes ?? 0;
  const byType = {};
  for (const q of QUERY_TYPES) {
    const v = m[`http_req_duration{scenario:measure,query_type:${q}}`]?.values;
    if (v && v.count) byType[q] = { requests: v.count, avg_ms: r2(v.avg), p95_ms: r2(v['p(95)']) };
  }
  // per store half (odd / even store numbers), and before / during the burst when there was one
  const bySet = {};
  for (const set of ['odd', 'even']) {
    const v = m[`http_req_duration{scenario:measure,store_set:${set}}`]?.values;
    if (!v?.count) continue;
    const out = { requests: v.count, avg_ms: r2(v.avg), p95_ms: r2(v['p(95)']) };
    const before = m[`http_req_duration{scenario:measure,store_set:${set},phase:before}`]?.values;
    const during = m[`http_req_duration{scenario:measure,store_set:${set},phase:during}`]?.values;
    if (before?.count && during?.count) {
      Object.assign(out, { before_p95_ms: r2(before['p(95)']), during_p95_ms: r2(during['p(95)']), burst_p95_ratio: before['p(95)'] > 0 ? r2(during['p(95)'] / before['p(95)']) : null });
    }
    bySet[set] = out;
  }
  return {
    requests,
    throughput_rps: r2(requests / measureSeconds),
    errors,
    // exact, never rounded: 248 rejected of 100,000 must not read 0
    error_rate: requests ? errors / requests : null,
    avg_ms: r2(d.avg), p50_ms: r2(d['p(50)'] ?? d.med), p95_ms: r2(d['p(95)']), p99_ms: r2(d['p(99)']), max_ms: r2(d.max),
    // open model: requests started later than their intended time (LATE_MS) by the generator
    late_arrivals: m['late_arrivals{scenario:measure}']?.values?.count ?? 0,
    by_type: byType,
    ...(Object.keys(bySet).length ? { by_set: bySet } : {}),
  };
}

/** Per second of the measured window: requests/s, average and p95 latency (the points file). */
export async function timelineOf(file) {
  return (await timelinesOf(file)).all;
}

/**
 * One line of a points file (`epoch_ms,duration_ms,scenario,store_set`, store_set '' when none)
 * -> [epoch ms, duration ms, store set or null] when it is a request of the measured window,
 * else null (another scenario, a partial or malformed line).
 */
export function measuredPoint(line) {
  const f = line.trim().split(',');
  if (f.length < 3 || f[2] !== 'measure') return null;
  const t = Number(f[0]);
  const d = Number(f[1]);
  if (!f[0] || !f[1] || !Number.isFinite(t) || !Number.isFinite(d)) return null;
  // Elasticsearch's own `took` of a search (column 5, empty for anything else): what the
  // cluster spent, without the load engine's own queueing
  const took = f[4] ? Number(f[4]) : null;
  return [t, d, f[3] ? f[3] : null, Number.isFinite(took) ? took : null];
}

/** The timeline of every request, and one per store half (store_set column) when tagged. */
export async function timelinesOf(file) {
  const points = [];
  let input;
  try {
    input = createReadStream(file);
    await new Promise((ok, fail) => { input.once('open', ok); input.once('error', fail); });
  } catch (err) {
    if (err.code !== 'ENOENT') throw err;
    input = null; // no request measured: no points file
  }
  if (input) {
    const lines = createInterface({ input, crlfDelay: Infinity });
    for await (const line of lines) {
      const p = measuredPoint(line);
      if (p) points.push(p);
    }
  }
  // requests are appended as they end, not in order of their start: seconds from the earliest
  const t0 = points.reduce((m, [t]) => Math.min(m, t), Infinity);
  const series = (pts) => {
    const buckets = new Map();
    for (const [t, value] of pts) {
      const s = Math.floor((t - t0) / 1000);
      if (!buckets.has(s)) buckets.set(s, []);
      buckets.get(s).push(value);
    }
    return [...buckets.entries()].sort((a, b) => a[0] - b[0]).map(([s, v]) => {
      v.sort((a, b) => a - b);
      return { t_s: s, rps: v.length, avg_ms: r2(v.reduce((a, x) => a + x, 0) / v.length), p95_ms: r2(v[Math.min(v.length - 1, Math.ceil(0.95 * v.length) - 1)]) };
    });
  };
  const bySet = {};
  for (const set of ['odd', 'even']) {
    const pts = points.filter((p) => p[2] === set);
    if (pts.length) bySet[set] = series(pts);
  }
  return { all: series(points), bySet, points, t0: Number.isFinite(t0) ? t0 : null };
}

/**
 * The cold round's workload: a full window, as a measured one (the first measured round after a
 * shorter warm-up was still 40-55% off); not `full` (QUICK, or the other variants of a lab
 * restarted on the same data): ramp-up and warm-up with a one-second window.
 */
export const warmWorkload = (plan, full = !plan.quick) => (full ? plan.workload : { ...plan.workload, measure: '1s', measure_s: 1 });
