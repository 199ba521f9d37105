// One repetition's load: k6 (the lab's pinned build) running k6-scripts/experiment.js against one
// variant's aliases; its summary gives the measured window's figures and its JSON output the
// latency over time. k6's own CPU use is sampled from /proc while it runs, to report it beside
// the runner's.
import { spawn } from 'node:child_process';
import { createReadStream, readFileSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { RunError } from './errors.js';
import { childEnv, clusterConnection } from '@tenantlab/contract/connection';

const TICKS_PER_S = 100; // USER_HZ on Linux

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
 * Runs k6 for one repetition. Returns { figures, timeline, k6CpuSeconds, measureWallMs, exitCode }.
 * `signal` (AbortSignal) stops k6 at once (Ctrl-C of the run).
 */
export async function runK6({ k6, script, esUrl, workload, tenants = null, dir, runId, signal, onMeasureStart, burst = null, extraEnv = {}, figures = figuresOf }) {
  const samples = join(dir, 'samples.json');
  const env = {
    PATH: process.env.PATH, HOME: process.env.HOME, K6_NO_USAGE_REPORT: 'true',
    ES_URL: esUrl, RESULTS_DIR: dir, RUN_ID: runId,
    RAMP_UP: workload.ramp_up, WARMUP: workload.warmup, MEASURE: workload.measure,
    // an external cluster's header and CA (RUNTIME=external), in k6's environment only
    ...childEnv(clusterConnection(process.env), 'k6'),
    ...extraEnv,
  };
  // the storefront's stores and their aliases (the ingest workload has none: its index is in extraEnv)
  if (tenants) {
    const tenantsFile = join(dir, 'tenants.json');
    writeFileSync(tenantsFile, JSON.stringify(tenants));
    Object.assign(env, { TENANTS_FILE: tenantsFile, THINK_MS: String(workload.think_ms ?? 0), PROFILE_TENANTS: String(tenants.length) });
  }
  if (workload.model === 'open') env.RATE = String(workload.rate);
  else if (workload.vus) env.VUS = String(workload.vus);
  if (burst) {
    // the crawler on the biggest odd store (on g1 when the odd stores' index is there)
    // (a closed-loop variant names its store: set 'target')
    const target = tenants.find((t) => t.set === 'target') ?? tenants.filter((t) => t.set === 'odd').sort((a, b) => b.documents - a.documents)[0] ?? tenants[0];
    // whole seconds: the k6 scripts take durations like 12s (lib/config.js)
    const at = Math.round(burst.from * workload.measure_s);
    Object.assign(env, {
      BOT_TENANT: target.id, BOT_RATE: String(burst.rate),
      BURST_AT: `${at}s`,
      BURST_FOR: `${Math.max(1, Math.round(burst.to * workload.measure_s) - at)}s`,
    });
  }
  // the plan's durations in seconds (spec.js resolveSpec), beside their k6 form
  const warmupMs = (workload.ramp_up_s + workload.warmup_s) * 1000;
  const measureMs = workload.measure_s * 1000;
  const bound = warmupMs + measureMs + 300000;

  const child = spawn(k6, ['run', '--quiet', '--no-color', '--out', `json=${samples}`, script], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (b) => { output += b; });
  child.stderr.on('data', (b) => { output += b; });
  // k6's CPU from its setup's end is not known from outside; the measured window starts
  // warmupMs after the first iteration, near enough to after setup: sample then and at the end
  const started = Date.now();
  let atMeasure = null;
  let last = null;
  const poll = setInterval(() => {
    const t = cpuTicks(child.pid);
    if (t !== null) last = t;
    if (atMeasure === null && Date.now() - started >= warmupMs) { atMeasure = { ticks: t, at: Date.now() }; onMeasureStart?.(); }
  }, 250);
  const kill = () => child.kill('SIGKILL');
  signal?.addEventListener('abort', kill, { once: true });
  const timer = setTimeout(kill, bound);
  const exitCode = await new Promise((resolve) => child.on('close', (code, sig) => resolve(code ?? (sig ? 128 : 1))));
  clearInterval(poll);
  clearTimeout(timer);
  signal?.removeEventListener('abort', kill);
  if (signal?.aborted) throw new RunError('interrupted', 130);
  // 0: every threshold held; 99: a threshold failed (the cross-tenant check): figures still count
  if (exitCode !== 0 && exitCode !== 99) {
    const tail = output.trim().split('\n').slice(-5).join(' | ');
    throw new RunError(`k6 exited with status ${exitCode}: ${tail}`, 1);
  }
  const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'));
  const k6CpuSeconds = atMeasure?.ticks != null && last != null ? (last - atMeasure.ticks) / TICKS_PER_S : null;
  const timelines = await timelinesOf(samples);
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
    k6CpuSeconds,
    measureWallMs: measureMs,
    crossTenantHits: summary.metrics.cross_tenant_hits?.values?.count ?? 0,
    exitCode,
  };
}

const r2 = (v) => (Number.isFinite(v) ? Math.round(v * 100) / 100 : null);
const QUERY_TYPES = ['category', 'category_page', 'search', 'detail', 'autocomplete'];

/** The measured window's figures from k6's summary (submetrics tagged scenario:measure). */
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
    error_rate: requests ? r2(errors / requests) : null,
    avg_ms: r2(d.avg), p50_ms: r2(d['p(50)'] ?? d.med), p95_ms: r2(d['p(95)']), p99_ms: r2(d['p(99)']), max_ms: r2(d.max),
    dropped_iterations: m['dropped_iterations{scenario:measure}']?.values?.count ?? 0,
    by_type: byType,
    ...(Object.keys(bySet).length ? { by_set: bySet } : {}),
  };
}

/** Per second of the measured window: requests/s, average and p95 latency (k6's JSON output). */
export async function timelineOf(file) {
  return (await timelinesOf(file)).all;
}

/** The timeline of every request, and one per store half (store_set tag) when tagged. */
export async function timelinesOf(file) {
  const points = [];
  const lines = createInterface({ input: createReadStream(file), crlfDelay: Infinity });
  for await (const line of lines) {
    if (!line.includes('"http_req_duration"') || !line.includes('"Point"')) continue;
    const p = JSON.parse(line);
    if (p.data?.tags?.scenario !== 'measure') continue;
    points.push([Date.parse(p.data.time), p.data.value, p.data.tags.store_set ?? null]);
  }
  // k6 writes the points of its VUs as they come, not in time order: seconds from the earliest
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
