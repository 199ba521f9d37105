// The runner's pure parts: store assignment, names, the load engine's summary -> figures, its
// points file -> timelines, its environment and exit statuses (a stand-in `locust`), ES stats
// windows, the lab-fit rule. (The runner against a real lab: tests/live/80-experiments.bats.)
import test from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { indexOfTenant, layoutNames } from '../src/run/layout.js';
import { burstEnvOf, engineOf, figuresOf, loadEnv, locustfile, measuredPoint, pointsFileOf, runLoad, timelineOf, timelinesOf } from '../src/run/workload.js';
import { follower, neighboursLine, outcomeLine } from '../src/run/narrate.js';
import { describeLab, engineCpusOf, labEnvOf, structureOf } from '../src/run/lab-control.js';
import { windowFigures } from '../src/run/es-stats.js';
import { BYTES_PER_DOC_ON_DISK, diskVerdict, requireVariantsFit } from '../src/run/lab-check.js';
import { newRunId } from '../src/run/record.js';

const tenants = [0, 1, 2, 3, 4].map((index) => ({ index, id: `exp-000${index + 1}`, traffic_weight: 1, expected_products: 10 }));

test('stores go to indices: all, odd/even store numbers, round-robin', () => {
  assert.deepEqual(tenants.map((t) => indexOfTenant({ assign: 'all', indices: 1 }, t)), [0, 0, 0, 0, 0]);
  // store numbers 1..5: odd ones (1, 3, 5) in the first index, even ones in the second
  assert.deepEqual(tenants.map((t) => indexOfTenant({ assign: 'odd-even', indices: 2 }, t)), [0, 1, 0, 1, 0]);
  assert.deepEqual(tenants.map((t) => indexOfTenant({ assign: 'round-robin', indices: 3 }, t)), [0, 1, 2, 0, 1]);
});

test('a variant\'s names: its indices and one alias per tenant, all under the run\'s prefix', () => {
  const n = layoutNames('r1', { name: '2x4', indices: 2, assign: 'odd-even' }, tenants);
  assert.deepEqual(n.indices, ['exp-r1-2x4-1', 'exp-r1-2x4-2']);
  assert.equal(n.tenants[1].alias, 'exp-r1-2x4-t-exp-0002');
  assert.equal(n.tenants[1].index, 'exp-r1-2x4-2');
  assert.ok(n.tenants.every((t) => t.alias.startsWith('exp-r1-')));
});

test('run ids sort by time and are valid index-name parts', () => {
  const id = newRunId(new Date(Date.UTC(2026, 10, 23, 14, 5, 9)));
  assert.match(id, /^20261123t140509-[0-9a-f]{4}$/);
});

test('the load engine\'s summary (k6\'s key shape) -> the measured window\'s figures', () => {
  const summary = { metrics: {
    'http_req_duration{scenario:measure}': { values: { avg: 12.345, 'p(50)': 10, 'p(95)': 30.1, 'p(99)': 50, max: 80, count: 100 } },
    'http_reqs{scenario:measure}': { values: { count: 100 } },
    'http_req_failed{scenario:measure}': { values: { rate: 0.02, passes: 2, fails: 98 } },
    'late_arrivals{scenario:measure}': { values: { count: 3 } },
    'http_req_duration{scenario:measure,query_type:search}': { values: { avg: 20, 'p(95)': 40, count: 60 } },
  } };
  const f = figuresOf(summary, 10);
  assert.equal(f.requests, 100);
  assert.equal(f.throughput_rps, 10);
  assert.equal(f.errors, 2);
  assert.equal(f.error_rate, 0.02);
  assert.equal(f.avg_ms, 12.35);
  assert.equal(f.p95_ms, 30.1);
  assert.equal(f.late_arrivals, 3);
  assert.equal('dropped_iterations' in f, false, 'k6\'s name is gone from new figures');
  assert.deepEqual(f.by_type, { search: { requests: 60, avg_ms: 20, p95_ms: 40 } });
});

test('points file (requests out of time order) -> per-second timeline of the measured window only', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'exp-'));
  const t = Date.UTC(2026, 0, 1);
  // epoch_ms (the intended start, fractions allowed), duration_ms, scenario, store_set ('' when none)
  writeFileSync(join(dir, 'points.csv'), [`${t - 5000},999,warmup,`, `${t + 500},20,measure,`, `${t}.25,10,measure,`, `${t + 1200},30,measure,`, ''].join('\n'));
  assert.deepEqual(await timelineOf(join(dir, 'points.csv')), [
    { t_s: 0, rps: 2, avg_ms: 15, p95_ms: 20 },
    { t_s: 1, rps: 1, avg_ms: 30, p95_ms: 30 },
  ]);
  // no request measured, no file: an empty timeline rather than an error
  assert.deepEqual(await timelinesOf(join(dir, 'none.csv')), { all: [], bySet: {}, points: [], t0: null });
});

test('a points line: measured requests only; a partial or malformed line is skipped', () => {
  assert.deepEqual(measuredPoint('1767225600000.5,12.25,measure,odd'), [1767225600000.5, 12.25, 'odd', null]);
  assert.deepEqual(measuredPoint('1767225600000,12,measure,'), [1767225600000, 12, null, null]);
  assert.deepEqual(measuredPoint('1767225600000,12,measure'), [1767225600000, 12, null, null]);
  // Elasticsearch's own took, when the request was a search
  assert.deepEqual(measuredPoint('1767225600000,12,measure,odd,7'), [1767225600000, 12, 'odd', 7]);
  assert.deepEqual(measuredPoint('1767225600000,12,measure,odd,'), [1767225600000, 12, 'odd', null]);
  assert.deepEqual(measuredPoint('1767225600000,12,measure,odd,x'), [1767225600000, 12, 'odd', null]);
  assert.equal(measuredPoint('1767225600000,12,warmup,odd'), null);
  assert.equal(measuredPoint('1767225600000,12,burst,target'), null);
  assert.equal(measuredPoint('1767225600000,,measure,odd'), null);
  assert.equal(measuredPoint('17672256'), null);
  assert.equal(measuredPoint(''), null);
  assert.equal(measuredPoint('epoch_ms,duration_ms,scenario,store_set'), null);
});

test('the narrator\'s follower reads what was appended since its last call, a partial line once it is whole', () => {
  const dir = mkdtempSync(join(tmpdir(), 'exp-'));
  const file = join(dir, 'points.csv');
  const f = follower(file);
  f.read(); // no file yet: nothing
  assert.deepEqual(f.points, []);
  writeFileSync(file, '1000,5,measure,odd\n900,7,warmup,\n2000,6,meas');
  f.read();
  assert.deepEqual(f.points, [[1000, 5, 'odd', null]]);
  appendFileSync(file, 'ure,even,4\n');
  f.read();
  assert.deepEqual(f.points, [[1000, 5, 'odd', null], [2000, 6, 'even', 4]]);
});

test('the load engine: its locustfiles, its version line, its environment', () => {
  assert.match(locustfile('experiment'), /\/traffic\/experiment\.py$/);
  assert.match(locustfile('many_shards'), /\/traffic\/many_shards\.py$/);
  assert.deepEqual(engineOf('locust 2.47.0 from /x/lib/python3.12/site-packages/locust (Python 3.12.3)'), { name: 'locust', version: '2.47.0' });
  assert.deepEqual(engineOf(null), { name: 'locust', version: null });
  const workload = { model: 'open', rate: 40, think_ms: 0, ramp_up: '2s', warmup: '3s', measure: '10s', measure_s: 10 };
  const stores = [{ id: 's1', set: 'odd', documents: 5 }, { id: 's2', set: 'even', documents: 9 }, { id: 's3', set: 'odd', documents: 7 }];
  const base = { PATH: '/bin', HOME: '/h', LAB_DIR: mkdtempSync(join(tmpdir(), 'lab-')), ES_URL: 'http://127.0.0.1:9200', SECRET_OF_THE_SHELL: 'x' };
  const env = loadEnv({ esUrl: 'http://127.0.0.1:9201', workload, tenants: stores, dir: '/r', runId: 'run-1', burst: { from: 0.4, to: 0.7, rate: 30 }, env: base });
  assert.deepEqual(env, {
    PATH: '/bin', HOME: '/h', LAB_DIR: base.LAB_DIR, ES_URL: 'http://127.0.0.1:9201', RESULTS_DIR: '/r', RUN_ID: 'run-1', POINTS_FILE: '/r/points.csv',
    RAMP_UP: '2s', WARMUP: '3s', MEASURE: '10s', LOAD_METRICS_PORT: '0',
    TENANTS_FILE: '/r/tenants.json', THINK_MS: '0', PROFILE_TENANTS: '3', RATE: '40',
    BOT_TENANT: 's3', BURST_KIND: 'bot', BOT_RATE: '30', BURST_AT: '4s', BURST_FOR: '3s',
  }, 'only what the run needs: nothing else of the caller\'s environment (LAB_DIR: the lab whose load-engine group it joins)');
  // a write burst: the store's writers and their bulks, no rate
  const writer = loadEnv({ esUrl: 'u', workload, tenants: stores, dir: '/r', runId: 'r', burst: { kind: 'resubmit', from: 0.25, to: 1, writers: 3, bulk_size: 200 }, env: base });
  assert.deepEqual([writer.BOT_TENANT, writer.BURST_KIND, writer.BURST_WRITERS, writer.BURST_BULK, writer.BOT_RATE, writer.BURST_AT, writer.BURST_FOR], ['s3', 'resubmit', '3', '200', undefined, '3s', '7s']);
  assert.equal(pointsFileOf('/r'), '/r/points.csv');
  // a closed model with VUs; the caller's extra keys (make demo's metrics port) win
  const closed = loadEnv({ esUrl: 'u', workload: { ...workload, model: 'closed', vus: 4 }, dir: '/r', runId: 'r', extraEnv: { LOAD_METRICS_PORT: '9646', INDEX: 'i' }, env: base });
  assert.equal(closed.VUS, '4');
  assert.equal(closed.RATE, undefined);
  assert.equal(closed.TENANTS_FILE, undefined);
  assert.deepEqual([closed.LOAD_METRICS_PORT, closed.INDEX], ['9646', 'i']);
  // an external cluster: its connection through childEnv(conn, 'load')
  const ca = join(base.LAB_DIR, 'ca.pem');
  writeFileSync(ca, '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');
  const ext = loadEnv({ esUrl: 'https://es:9200', workload, dir: '/r', runId: 'r', env: { ...base, RUNTIME: 'external', ES_URL: 'https://es:9200', ES_API_KEY: 'aWQ6a2V5', ES_CA_CERT: ca } });
  assert.deepEqual([ext.ES_AUTHORIZATION, ext.ES_CA_CERT, ext.ES_TLS_VERIFY, ext.ES_EXTERNAL], ['ApiKey aWQ6a2V5', ca, undefined, '1']);
  assert.equal(ext.ES_API_KEY, undefined, 'the key itself stays out: only its header');
});

// A stand-in for `locust`: records its arguments and environment, writes a summary and points,
// exits with EXIT (or prints a line and exits without a summary)
function fakeLocust(dir) {
  const bin = join(dir, 'locust');
  writeFileSync(bin, `#!/bin/sh
printf '%s\\n' "$@" > "$RESULTS_DIR/args"
env > "$RESULTS_DIR/env"
echo $$ > "$RESULTS_DIR/pid"
if [ "$FAKE_EXIT" = 2 ]; then echo "error: the lab does not answer at $ES_URL" >&2; exit 2; fi
cat > "$RESULTS_DIR/summary.json" <<'JSON'
{"engine":{"name":"locust","version":"2.47.0"},"metrics":{"http_reqs{scenario:measure}":{"values":{"count":4}},"http_req_duration{scenario:measure}":{"values":{"avg":10,"p(95)":20,"count":4}},"late_arrivals{scenario:measure}":{"values":{"count":1}},"cross_tenant_hits":{"values":{"count":0}}}}
JSON
# two engines on one clock (burst.engine: own): the measuring one writes it, the burst's waits for it
if [ "$ENGINE_ROLE" = measure ]; then echo 1000.5 > "$T0_FILE"; fi
if [ "$ENGINE_ROLE" = burst ]; then
  i=0; while [ ! -s "$T0_FILE" ]; do i=$((i + 1)); [ $i -gt 100 ] && { echo "load: error: no clock" >&2; exit 2; }; sleep 0.05; done
  cp "$T0_FILE" "$RESULTS_DIR/clock"
  if [ -n "$FAKE_BURST_EXIT" ]; then echo "load: error: the burst cannot start" >&2; exit "$FAKE_BURST_EXIT"; fi
  # a bot that fell behind: still sending after the measuring engine's end; Locust's SIGTERM
  # (its summary written, its own exit code), or an engine that ignores it
  if [ -n "$FAKE_BURST_LINGER" ]; then
    if [ "$FAKE_BURST_TERM" = ignore ]; then trap '' TERM; elif [ "$FAKE_BURST_TERM" = die ]; then trap 'trap - TERM; kill -TERM $$' TERM; else trap 'echo term > "$RESULTS_DIR/stopped"; exit 0' TERM; fi
    # short sleeps: the trap runs between them, and a killed shell leaves no sleep behind
    i=0; while [ $i -lt $((FAKE_BURST_LINGER * 10)) ]; do sleep 0.1 >/dev/null 2>&1; i=$((i + 1)); done
  fi
fi
if [ -n "$POINTS_FILE" ]; then printf '1000,10,measure,odd\n1500,12,measure,even\n2100,8,measure,odd\n2200,10,measure,\n500,99,warmup,\n' > "$POINTS_FILE"; fi
exit "\${FAKE_EXIT:-0}"
`);
  chmodSync(bin, 0o755);
  return bin;
}

test('runLoad: locust -f <locustfile> headless, its summary and points read; 0 and 99 accepted, others a one-line error', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'load-'));
  const locust = fakeLocust(dir);
  const workload = { model: 'closed', vus: 2, ramp_up: '0s', warmup: '0s', measure: '2s', ramp_up_s: 0, warmup_s: 0, measure_s: 2 };
  const out = await runLoad({ locust, script: locustfile('experiment'), esUrl: 'http://127.0.0.1:1', workload, tenants: [{ id: 's1', set: 'odd' }], dir, runId: 'r1' });
  assert.deepEqual(readFileSync(join(dir, 'args'), 'utf8').trim().split('\n'), ['-f', locustfile('experiment'), '--headless', '--only-summary', '--skip-log-setup']);
  const env = readFileSync(join(dir, 'env'), 'utf8');
  for (const kv of [`POINTS_FILE=${join(dir, 'points.csv')}`, 'LOAD_METRICS_PORT=0', `TENANTS_FILE=${join(dir, 'tenants.json')}`, 'VUS=2', 'RUN_ID=r1']) assert.ok(env.split('\n').includes(kv), kv);
  assert.deepEqual(JSON.parse(readFileSync(join(dir, 'tenants.json'), 'utf8')), [{ id: 's1', set: 'odd' }]);
  assert.equal(out.exitCode, 0);
  assert.deepEqual([out.figures.requests, out.figures.p95_ms, out.figures.late_arrivals], [4, 20, 1]);
  assert.deepEqual(out.timeline.map((p) => [p.t_s, p.rps]), [[0, 2], [1, 2]]);
  assert.deepEqual(Object.keys(out.timelineBySet), ['odd', 'even']);
  assert.equal(out.t0, 1000);
  assert.equal(out.crossTenantHits, 0);
  assert.ok('loadCpuSeconds' in out && !('k6CpuSeconds' in out));

  assert.equal((await runLoad({ locust, script: locustfile('experiment'), esUrl: 'u', workload, dir, runId: 'r2', extraEnv: { FAKE_EXIT: '99' } })).exitCode, 99, 'a breached threshold: the figures still count');
  await assert.rejects(runLoad({ locust, script: locustfile('experiment'), esUrl: 'http://127.0.0.1:1', workload, dir, runId: 'r3', extraEnv: { FAKE_EXIT: '2' } }),
    (err) => err.name === 'RunError' && err.message === 'locust exited with status 2: error: the lab does not answer at http://127.0.0.1:1');
  await assert.rejects(runLoad({ locust: join(dir, 'no-such-locust'), script: locustfile('experiment'), esUrl: 'u', workload, dir, runId: 'r4' }), /^RunError: locust exited with status 127: .*no-such-locust: not found$/);
});

test('runLoad with burst.engine own: the burst in an engine of its own, on the measuring engine\'s clock; either failing is one line', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'load-'));
  const locust = fakeLocust(dir);
  const workload = { model: 'open', rate: 10, ramp_up: '0s', warmup: '0s', measure: '8s', ramp_up_s: 0, warmup_s: 0, measure_s: 8 };
  const burst = { kind: 'bot', from: 0.25, to: 1, rate: 5, engine: 'own' };
  const load = (runId, extraEnv = {}) => runLoad({ locust, script: locustfile('experiment'), esUrl: 'u', workload, tenants: [{ id: 's1', set: 'odd', documents: 3 }], dir, runId, burst, extraEnv });
  // make demo's web UI and metrics port: the shoppers' engine's only
  const out = await load('r1', { LOAD_UI_PORT: '18089', LOAD_METRICS_PORT: '19646' });
  assert.equal(out.exitCode, 0);
  const envOf = (d) => Object.fromEntries(readFileSync(join(d, 'env'), 'utf8').split('\n').filter(Boolean).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
  const main = envOf(dir);
  const side = envOf(join(dir, 'burst'));
  assert.deepEqual([main.ENGINE_ROLE, main.T0_FILE, main.BOT_TENANT, main.BURST_AT, main.LOAD_METRICS_PORT], ['measure', join(dir, 't0'), 's1', '2s', '19646']);
  assert.deepEqual([side.ENGINE_ROLE, side.T0_FILE, side.BOT_TENANT, side.BURST_AT, side.BURST_FOR, side.BOT_RATE], ['burst', join(dir, 't0'), 's1', '2s', '6s', '5']);
  assert.deepEqual([side.RESULTS_DIR, side.POINTS_FILE, side.LOAD_METRICS_PORT, side.LOAD_UI_PORT], [join(dir, 'burst'), '', '0', undefined]);
  assert.ok(readFileSync(join(dir, 'args'), 'utf8').includes('--autostart'));
  assert.ok(readFileSync(join(dir, 'burst', 'args'), 'utf8').split('\n').includes('--headless'));
  assert.equal(readFileSync(join(dir, 'burst', 'clock'), 'utf8').trim(), '1000.5', 'the burst engine started on the measuring engine\'s clock');
  assert.deepEqual([out.figures.requests, out.burstTenant, out.burstWindow.from_s, out.burstWindow.to_s], [4, 's1', 2, 8]);
  // the burst's engine failing: one line naming it
  await assert.rejects(load('r2', { FAKE_BURST_EXIT: '2' }), (err) => err.name === 'RunError' && err.message === 'the burst\'s locust exited with status 2: load: error: the burst cannot start');
  // the measuring engine failing at its start: the burst's, waiting for a clock that never comes, is stopped at once
  const t = Date.now();
  await assert.rejects(load('r3', { FAKE_EXIT: '2' }), /^RunError: locust exited with status 2: error: the lab does not answer at u$/);
  assert.ok(Date.now() - t < 4000, `the burst engine was left waiting (${Date.now() - t} ms)`);
  // a bot still sending after the measuring engine's end (left-alone, fallen behind): stopped
  // with SIGTERM after the grace, its exit code its own, said in burstStoppedAfterS
  const late = await runLoad({ locust, script: locustfile('experiment'), esUrl: 'u', workload, tenants: [{ id: 's1', set: 'odd', documents: 3 }], dir, runId: 'r6', burst,
    extraEnv: { FAKE_BURST_LINGER: '20' }, burstGraceMs: 300, burstTermMs: 2000 });
  assert.equal(readFileSync(join(dir, 'burst', 'stopped'), 'utf8').trim(), 'term');
  assert.ok(late.burstStoppedAfterS >= 0.3 && late.burstStoppedAfterS < 2, `stopped ${late.burstStoppedAfterS} s after`);
  assert.equal(out.burstStoppedAfterS, null, 'a burst engine that ended by itself was not stopped');
  // one that ignores SIGTERM: killed, one line saying so
  const t1 = Date.now();
  await assert.rejects(runLoad({ locust, script: locustfile('experiment'), esUrl: 'u', workload, tenants: [{ id: 's1', set: 'odd', documents: 3 }], dir, runId: 'r7', burst,
    extraEnv: { FAKE_BURST_LINGER: '20', FAKE_BURST_TERM: 'ignore' }, burstGraceMs: 300, burstTermMs: 500 }),
  (err) => err.name === 'RunError' && /^the burst's locust did not stop within 0\.5 s of SIGTERM, sent 0\.\d s after the measuring engine's end: killed$/.test(err.message));
  assert.ok(Date.now() - t1 < 5000, `the engine that ignored SIGTERM was not killed (${Date.now() - t1} ms)`);
  // an engine that dies of a signal: its number as a shell has it, and its name
  await assert.rejects(runLoad({ locust, script: locustfile('experiment'), esUrl: 'u', workload, tenants: [{ id: 's1', set: 'odd', documents: 3 }], dir, runId: 'r8', burst,
    extraEnv: { FAKE_BURST_LINGER: '20', FAKE_BURST_TERM: 'die' }, burstGraceMs: 300, burstTermMs: 2000 }),
  (err) => err.name === 'RunError' && err.message === 'the burst\'s locust exited with status 143: (killed by SIGTERM)');
  // a shared engine (the default): one process, no role, no clock file
  const shared = mkdtempSync(join(tmpdir(), 'load-'));
  await runLoad({ locust: fakeLocust(shared), script: locustfile('experiment'), esUrl: 'u', workload, tenants: [{ id: 's1', set: 'odd', documents: 3 }], dir: shared, runId: 'r4', burst: { ...burst, engine: undefined } });
  assert.equal(envOf(shared).ENGINE_ROLE, undefined);
  assert.deepEqual(burstEnvOf({ A: '1', LOAD_UI_PORT: '1', LOAD_METRICS_HOST: 'h', POINTS_FILE: 'p' }, '/b'), { A: '1', ENGINE_ROLE: 'burst', RESULTS_DIR: '/b', POINTS_FILE: '', LOAD_METRICS_PORT: '0' });
  // each engine on the CPUs it is given (LOAD_CPUS, for load-engine-exec), the burst's not the shoppers'
  const pinned = mkdtempSync(join(tmpdir(), 'load-'));
  await runLoad({ locust: fakeLocust(pinned), script: locustfile('experiment'), esUrl: 'u', workload, tenants: [{ id: 's1', set: 'odd', documents: 3 }], dir: pinned, runId: 'r5', burst, engineCpus: { measure: '0', burst: '1' } });
  assert.deepEqual([envOf(pinned).LOAD_CPUS, envOf(join(pinned, 'burst')).LOAD_CPUS], ['0', '1']);
  assert.equal(burstEnvOf({ LOAD_CPUS: '0' }, '/b').LOAD_CPUS, undefined, 'not pinned where the shoppers\' engine is');
  assert.equal(envOf(dir).LOAD_CPUS, undefined, 'no CPUs given: every CPU');
});

// runs fn with process.env.LAB_DIR set to dir, as scripts/experiment exports it for the runner
async function withLabDir(dir, fn) {
  const saved = process.env.LAB_DIR;
  process.env.LAB_DIR = dir;
  try {
    return await fn();
  } finally {
    if (saved === undefined) delete process.env.LAB_DIR;
    else process.env.LAB_DIR = saved;
  }
}

test('runLoad: the engine joins the lab\'s load-engine group when make up made one (LOAD_CPU_WEIGHT), the same pid', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'load-'));
  const locust = fakeLocust(dir);
  const workload = { model: 'closed', vus: 2, ramp_up: '0s', warmup: '0s', measure: '2s', ramp_up_s: 0, warmup_s: 0, measure_s: 2 };
  const load = (runId) => runLoad({ locust, script: locustfile('experiment'), esUrl: 'u', workload, dir, runId });
  // a plain file stands for the group's cgroup.procs: load-engine-exec writes the engine's pid in it, then execs it
  const lab = join(dir, 'lab');
  mkdirSync(join(lab, 'run'), { recursive: true });
  writeFileSync(join(lab, 'run', 'load-engine.cgroup'), `${join(dir, 'procs')}\n`);
  assert.equal((await withLabDir(lab, () => load('r1'))).exitCode, 0);
  assert.equal(readFileSync(join(dir, 'procs'), 'utf8').trim(), readFileSync(join(dir, 'pid'), 'utf8').trim());
  // a lab without the group: the engine starts as it is
  assert.equal((await withLabDir(join(dir, 'no-lab'), () => load('r2'))).exitCode, 0);
  assert.notEqual(readFileSync(join(dir, 'procs'), 'utf8').trim(), readFileSync(join(dir, 'pid'), 'utf8').trim());
});

test('ES stats window: per-query times, rejections, GC, CPU per node', () => {
  const node = (q, qms, f, fms, rej, gc, cpu) => ({ query: q, queryMs: qms, fetch: f, fetchMs: fms, rejected: rej, gcMs: gc, cpuMs: cpu });
  const before = { at: 0, nodes: { a: node(0, 0, 0, 0, 0, 0, 0), b: node(10, 10, 5, 5, 1, 100, 1000) } };
  const after = { at: 10000, nodes: { a: node(100, 200, 50, 25, 0, 50, 5000), b: node(110, 210, 55, 30, 3, 100, 6000) } };
  const w = windowFigures(before, after, { search: 4 });
  assert.equal(w.query_ms_per_query, 2);
  assert.equal(w.fetch_ms_per_fetch, 0.5);
  assert.equal(w.search_rejected, 2);
  assert.equal(w.gc_ms, 50);
  assert.equal(w.search_queue_max, 4);
  assert.deepEqual(w.cpu_percent_by_node, { a: 50, b: 50 });
});

test('a variant the lab cannot hold is refused with one line', () => {
  const groups = { all: 4, g1: 2, g2: 2 };
  assert.doesNotThrow(() => requireVariantsFit([{ name: 'a', group: 'g1', replicas: 1 }, { name: 'b', group: 'all', replicas: 3 }], groups));
  assert.throws(() => requireVariantsFit([{ name: 'x', group: 'g1', replicas: 2 }], groups), /^RunError: variant x: 2 replica\(s\) need 3 data nodes in group g1; the lab has 2$/);
  assert.throws(() => requireVariantsFit([{ name: 'y', group: 'g9', replicas: 0 }], groups), /variant y: no index group 'g9' in this lab \(it has g1, g2; or 'all'\)/);
});

test('too little disk for the dataset is refused with one line; enough passes', () => {
  const variants = [{ replicas: 1 }, { replicas: 0 }]; // 3 copies
  const need = 1000 * BYTES_PER_DOC_ON_DISK * 3 * 1.2;
  assert.deepEqual(diskVerdict({ documents: 1000, variants, freeBytes: [need * 2, need] }), { need_bytes: Math.round(need), free_bytes: need });
  assert.throws(() => diskVerdict({ documents: 1000, variants, freeBytes: [need * 10, need - 1] }),
    /^RunError: too little disk: the dataset needs about 0\.0 GB \(1000 documents x 3 shard copies over the variants\), the data nodes have 0\.0 GB free; use QUICK=1/);
  assert.throws(() => diskVerdict({ documents: 1, variants, freeBytes: [] }), /too little disk/);
});

test('store halves: each tenant carries its half; submetrics per half and per burst phase -> by_set', () => {
  const n = layoutNames('r1', { name: 'g', indices: 2, assign: 'odd-even' }, tenants);
  assert.deepEqual(n.tenants.map((t) => t.set), ['odd', 'even', 'odd', 'even', 'odd']);
  const d = (avg, p95, count) => ({ values: { avg, 'p(95)': p95, count } });
  const summary = { metrics: {
    'http_req_duration{scenario:measure}': d(10, 20, 100),
    'http_reqs{scenario:measure}': { values: { count: 100 } },
    'http_req_duration{scenario:measure,store_set:odd}': d(12, 30, 60),
    'http_req_duration{scenario:measure,store_set:even}': d(8, 16, 40),
    'http_req_duration{scenario:measure,store_set:even,phase:before}': d(7, 15, 15),
    'http_req_duration{scenario:measure,store_set:even,phase:during}': d(9, 18, 12),
  } };
  assert.deepEqual(figuresOf(summary, 10).by_set, {
    odd: { requests: 60, avg_ms: 12, p95_ms: 30 },
    even: { requests: 40, avg_ms: 8, p95_ms: 16, before_p95_ms: 15, during_p95_ms: 18, burst_p95_ratio: 1.2 },
  });
  assert.equal(figuresOf({ metrics: { 'http_reqs{scenario:measure}': { values: { count: 1 } } } }, 1).by_set, undefined);
});

test('timelines per store half from the store_set column', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'exp-'));
  const t = Date.UTC(2026, 0, 1);
  writeFileSync(join(dir, 'points.csv'), [`${t},10,measure,odd`, `${t + 100},30,measure,even`, `${t + 1100},20,measure,even`, `${t + 1200},500,measure,target`].join('\n'));
  const { all, bySet, points } = await timelinesOf(join(dir, 'points.csv'));
  assert.equal(all.length, 2);
  assert.deepEqual(bySet.odd, [{ t_s: 0, rps: 1, avg_ms: 10, p95_ms: 10 }]);
  assert.deepEqual(bySet.even.map((p) => [p.t_s, p.avg_ms]), [[0, 30], [1, 20]]);
  assert.deepEqual(points.at(-1), [t + 1200, 500, 'target', null], 'the burst store\'s own requests are points too (the closed loop leaves them out)');
});

test('group spread: one group per index, each deep enough for the copies', () => {
  const groups = { all: 4, g1: 2, g2: 2 };
  requireVariantsFit([{ name: 'groups-4', indices: 2, replicas: 1, group: 'spread' }], groups);
  assert.throws(() => requireVariantsFit([{ name: 'x', indices: 3, replicas: 1, group: 'spread' }], groups), /group spread puts each of its 3 indices on a group of its own; the lab has 2 \(g1, g2\)/);
  assert.throws(() => requireVariantsFit([{ name: 'x', indices: 2, replicas: 2, group: 'spread' }], groups), /2 replica\(s\) need 3 data nodes in group g1; the lab has 2/);
});

test('a spec\'s lab -> lab.env keys: the master kept, data nodes by group with ports after its own, sizes, SHAPE', () => {
  const env = { LAB_MASTER_NODE: 'es-master', ES_MASTER_HTTP_PORT: '11200', ES_MASTER_TRANSPORT_PORT: '11300', LAB_NODES: 'es-master,es-data-1,es-data-2', ES_DATA_1_GROUP: 'g1', ES_DATA_2_GROUP: 'g2' };
  assert.deepEqual(labEnvOf(null, env), {});
  assert.deepEqual(labEnvOf({ shape: 'off' }, env), { SHAPE: 'off' });
  const keys = labEnvOf({ groups: 3, data_nodes_per_group: 1, data_node: { cpus: 0.5 } }, env);
  assert.equal(keys.LAB_NODES, 'es-master,es-data-1,es-data-2,es-data-3');
  assert.deepEqual([keys.ES_DATA_3_GROUP, keys.ES_DATA_3_HTTP_PORT, keys.ES_DATA_3_TRANSPORT_PORT, keys.ES_DATA_3_CPUS, keys.ES_DATA_3_MEM], ['g3', '11203', '11303', '0.5', '']);
  // only the sizes: the lab's own node set (2 groups of 1 here), each node sized
  const sized = labEnvOf({ data_node: { cpus: 0.5, cpu_weight: 1000 } }, env);
  assert.equal(sized.LAB_NODES, 'es-master,es-data-1,es-data-2');
  assert.deepEqual([sized.ES_DATA_1_GROUP, sized.ES_DATA_2_GROUP, sized.ES_DATA_2_CPUS, sized.ES_DATA_2_CPU_WEIGHT, keys.ES_DATA_3_CPU_WEIGHT], ['g1', 'g2', '0.5', '1000', '']);
  assert.equal(describeLab({ data_node: { cpus: 0.35, cpu_weight: 1000 } }), '0.35 cores, CPU weight 1000 each');
  assert.equal(describeLab({ groups: 2, data_nodes_per_group: 2, data_node: { cpus: 0.5, mem: '1g' }, shape: 'off' }), '2 groups x 2 data nodes, 0.5 cores, 1g memory each, SHAPE=off');
  // every node's write queue: lab.env's ES_WRITE_QUEUE, which both runtimes render
  assert.equal(labEnvOf({ write_queue: 20 }, env).ES_WRITE_QUEUE, '20');
  assert.equal(describeLab({ data_node: { cpus: 0.5 }, write_queue: 20 }), '0.5 cores each, write queue 20');
  // the load engine's weight: lab.env's LOAD_CPU_WEIGHT, beside the nodes' sizes
  const weighed = labEnvOf({ data_node: { cpus: 0.35, cpu_weight: 1000 }, load_engine: { cpu_weight: 1000 } }, env);
  assert.deepEqual([weighed.LOAD_CPU_WEIGHT, weighed.ES_DATA_1_CPU_WEIGHT], ['1000', '1000']);
  assert.equal(labEnvOf({ data_node: { cpus: 0.5 } }, env).LOAD_CPU_WEIGHT, undefined, 'unset: lab.env\'s stands');
  assert.equal(describeLab({ data_node: { cpus: 0.35, cpu_weight: 1000 }, load_engine: { cpu_weight: 1000 } }), '0.35 cores, CPU weight 1000 each, the load engine at CPU weight 1000');
  assert.equal(describeLab({ load_engine: { cpus_of: 'g1', burst_cpus_of: 'g2' } }), "the shoppers' engine on g1's CPUs, the burst's engine on g2's CPUs");
});

test('the load engines\' CPUs: an index group\'s slice, as the nodes get it on this machine (SHAPE=groups); a group without one is one line', () => {
  const env = { PATH: process.env.PATH };
  // lab.env (the checkout's): two groups; on 2 CPUs g1 gets CPU 0 and g2 CPU 1, on 4 CPUs 0-1 and 2-3
  assert.deepEqual(engineCpusOf({ load_engine: { cpus_of: 'g1', burst_cpus_of: 'g2' } }, env, [0, 1]), { measure: '0', burst: '1' });
  assert.deepEqual(engineCpusOf({ load_engine: { cpus_of: 'g1', burst_cpus_of: 'g2' } }, env, [0, 1, 2, 3]), { measure: '0-1', burst: '2-3' });
  assert.deepEqual(engineCpusOf({ load_engine: { burst_cpus_of: 'g2' } }, env, [0, 1]), { measure: null, burst: '1' });
  assert.deepEqual(engineCpusOf({ data_node: { cpus: 0.35 } }, env, [0, 1]), { measure: null, burst: null });
  assert.deepEqual(engineCpusOf(null, env, [0, 1]), { measure: null, burst: null });
  assert.throws(() => engineCpusOf({ load_engine: { cpus_of: 'g3' } }, env, [0, 1]), (err) => err.name === 'RunError' && err.message === 'lab.load_engine.cpus_of: g3 has no CPU slice of its own in this lab (its groups: g1, g2): name one of its groups, with SHAPE=groups');
  assert.throws(() => engineCpusOf({ load_engine: { cpus_of: 'g1' } }, { ...env, SHAPE: 'off' }, [0, 1]), /g1 has no CPU slice of its own in this lab \(SHAPE=off\)/);
});

test('two labs differ in structure only when their nodes, roles or groups do', () => {
  const base = { LAB_NODES: 'es-master,es-data-1', LAB_MASTER_NODE: 'es-master', LAB_GROUP_ATTR: 'index_group', ES_MASTER_ROLES: 'master', ES_MASTER_HTTP_PORT: '1', ES_MASTER_TRANSPORT_PORT: '2', ES_DATA_1_ROLES: 'data', ES_DATA_1_GROUP: 'g1', ES_DATA_1_HTTP_PORT: '3', ES_DATA_1_TRANSPORT_PORT: '4' };
  assert.equal(structureOf(base), structureOf({ ...base, SHAPE: 'off', ES_DATA_1_CPUS: '0.5' }));
  assert.notEqual(structureOf(base), structureOf({ ...base, ES_DATA_1_GROUP: 'g2' }));
});

test('closed loop: the stores placed odd on the first group, even on the second; a control\'s burst store on the other group from the start', async () => {
  const { placeStores } = await import('../src/run/isolation.js');
  const calls = [];
  const api = { call: async (method, path, body) => { calls.push(body); return { index: `idx-${body.group}` }; } };
  const tenants = [1, 2, 3, 4].map((n, index) => ({ index, id: `s${n}`, name: `s${n}`, expected_products: 10 * n, traffic_weight: 1 }));
  const same = await placeStores(api, { tenants, groups: ['g1', 'g2'], target: 's3' });
  assert.deepEqual(same.tenants.map((t) => [t.id, t.group, t.set]), [['s1', 'g1', 'odd'], ['s2', 'g2', 'even'], ['s3', 'g1', 'target'], ['s4', 'g2', 'even']]);
  calls.length = 0;
  const control = await placeStores(api, { tenants, groups: ['g1', 'g2'], target: 's3', targetGroup: 'g2' });
  assert.deepEqual(control.tenants.map((t) => [t.id, t.group, t.set]), [['s1', 'g1', 'odd'], ['s2', 'g2', 'even'], ['s3', 'g2', 'target'], ['s4', 'g2', 'even']]);
  assert.equal(calls.find((b) => b.id === 's3').group, 'g2');
});

test('closed loop: the burst store is the smallest or biggest odd store', async () => {
  const { burstTarget } = await import('../src/run/isolation.js');
  const ts = [30, 5, 20, 1, 8].map((n, index) => ({ index, id: `s${index + 1}`, expected_products: n }));
  // odd store numbers: s1 (30), s3 (20), s5 (8)
  assert.equal(burstTarget(ts, 'smallest'), 's5');
  assert.equal(burstTarget(ts, 'biggest'), 's1');
  assert.equal(burstTarget(ts), 's1');
});

test('closed loop: neighbours before, during until the move ended, after it; the loop\'s times', async () => {
  const { isolationFigures } = await import('../src/run/isolation.js');
  const t0 = 1_000_000;
  const points = [];
  // neighbours (odd) at 10 ms before the burst (0-20 s), 50 ms until the move ended (at 35 s),
  // 11 ms after; the other group (even) at 20 ms throughout; the burst store's own requests
  // (target) do not count
  for (let s = 0; s < 60; s += 0.25) {
    const at = t0 + s * 1000;
    // took: what Elasticsearch spent, below the client's time (4 ms before, 30 until the move, 4 after)
    points.push([at, s < 20 ? 10 : s < 35 ? 50 : 11, 'odd', s < 20 ? 4 : s < 35 ? 30 : 4], [at, 20, 'even', 8], [at, 500, 'target', 400], [at, 9, 'odd', null]);
  }
  const watch = { flagged_at: t0 + 28000, move: { state: 'succeeded', created_at: t0 + 30000, finished_at: t0 + 35000 } };
  const f = isolationFigures({ points, t0, burstFromMs: t0 + 20000, endMs: t0 + 60000, watch, settleMs: 5000 });
  // recovered_share: (50 - 11) / (50 - 10) of the rise is gone
  assert.deepEqual(f.neighbours, { before_p95_ms: 10, during_p95_ms: 50, after_p95_ms: 11, during_ratio: 5, after_ratio: 1.1, recovered_share: 0.975 });
  assert.equal(f.others.after_ratio, 1);
  // on Elasticsearch's took: a request without one (not a search) does not count; took is
  // floored whole milliseconds, its p95 read as grouped data (every 4 stands for 4.0-4.99 ms)
  assert.deepEqual(f.neighbours_es, { before_p95_ms: 4.95, during_p95_ms: 30.95, after_p95_ms: 4.95, during_ratio: 6.25, after_ratio: 1, recovered_share: 1 });
  // no rise, nothing to recover from: null, not a share
  assert.deepEqual(f.others_es, { before_p95_ms: 8.95, during_p95_ms: 8.95, after_p95_ms: 8.95, during_ratio: 1, after_ratio: 1, recovered_share: null });
  // the client's time is not floored: nearest rank, as before
  assert.equal(f.neighbours.before_p95_ms, 10);
  assert.deepEqual(f.isolation, { flag_s: 8, move_start_s: 10, move_s: 5, recovered_s: 15, recovered_rise_s: 15, moved: true });
  // nothing moved (auto-isolation off): during = the burst's first two thirds, after = the last third
  const still = isolationFigures({ points, t0, burstFromMs: t0 + 20000, endMs: t0 + 60000, watch: { flagged_at: t0 + 28000, move: null }, settleMs: 5000, auto: false });
  assert.equal(still.isolation.moved, false);
  assert.equal(still.isolation.move_s, null);
  assert.equal(still.neighbours.after_p95_ms, 11); // this synthetic tenant recovered by itself
  // auto-isolation on and nothing moved: no "after the move" at all
  const unmoved = isolationFigures({ points, t0, burstFromMs: t0 + 20000, endMs: t0 + 60000, watch: { flagged_at: null, move: null }, settleMs: 5000 });
  assert.equal(unmoved.neighbours.after_p95_ms, null);
  assert.equal(unmoved.neighbours.after_ratio, null);
  const never = isolationFigures({ points: points.map(([t, v, s]) => [t, s === 'odd' && t >= t0 + 20000 ? 50 : v, s]), t0, burstFromMs: t0 + 20000, endMs: t0 + 60000, watch: null, settleMs: 5000, auto: false });
  assert.equal(never.isolation.recovered_s, null);
  assert.equal(never.isolation.recovered_rise_s, null);
  assert.equal(never.neighbours.after_ratio, 5);
  assert.equal(never.neighbours.recovered_share, 0, 'as slow after as during: none of the rise gone');
});

test('closed loop: the share of the burst\'s rise gone after it; null with no rise or no after', async () => {
  const { recoveredShare } = await import('../src/run/isolation.js');
  assert.equal(recoveredShare(20, 620, 26), 0.99);
  assert.equal(recoveredShare(20, 620, 20), 1);
  assert.equal(recoveredShare(20, 620, 15), 1.008, 'faster than before: more than the rise gone');
  assert.equal(recoveredShare(20, 620, 700), -0.133, 'slower than during: below 0');
  assert.equal(recoveredShare(20, 20, 10), null, 'no rise');
  assert.equal(recoveredShare(20, 22.9, 20), null, 'a rise under 15% of before is none');
  assert.equal(recoveredShare(20, 23, 20), 1, 'from 15% on it counts');
  assert.equal(recoveredShare(20, 22.9, 20, 0.1), 1, 'the least rise is a parameter');
  assert.equal(recoveredShare(20, 15, 10), null, 'faster during than before: no rise');
  assert.equal(recoveredShare(20, 620, null), null, 'no after (nothing moved)');
  assert.equal(recoveredShare(null, 620, 20), null);
  assert.equal(recoveredShare(0, 620, 20), null);
});

test('closed loop: after a move, "after" is the same last third as the controls\' (or from the move\'s end + settle, if later)', async () => {
  const { isolationFigures } = await import('../src/run/isolation.js');
  const t0 = 1_000_000;
  // burst at 20 s, window to 80 s: the controls' after is 60-80 s. The neighbours at 10 ms
  // before, 50 during, 30 for a hangover after the move (35-55 s), 10 from 55 s
  const points = [];
  for (let s = 0; s < 80; s += 0.25) points.push([t0 + s * 1000, s < 20 ? 10 : s < 35 ? 50 : s < 55 ? 30 : 10, 'odd', null]);
  const early = { flagged_at: t0 + 28000, move: { state: 'succeeded', created_at: t0 + 30000, finished_at: t0 + 35000 } };
  const f = isolationFigures({ points, t0, burstFromMs: t0 + 20000, endMs: t0 + 80000, watch: early, settleMs: 5000 });
  assert.equal(f.neighbours.after_p95_ms, 10, 'the hangover 40-55 s is outside the last third');
  const control = isolationFigures({ points, t0, burstFromMs: t0 + 20000, endMs: t0 + 80000, watch: null, settleMs: 5000, auto: false });
  assert.equal(control.neighbours.after_p95_ms, f.neighbours.after_p95_ms);
  // a move that ends inside the last third (at 62 s): after starts at its end + settle, 67 s
  const late = { flagged_at: t0 + 50000, move: { state: 'succeeded', created_at: t0 + 55000, finished_at: t0 + 62000 } };
  const pointsLate = points.map(([t, v, set]) => [t, t >= t0 + 62000 && t < t0 + 67000 ? 99 : v, set, null]);
  assert.equal(isolationFigures({ points: pointsLate, t0, burstFromMs: t0 + 20000, endMs: t0 + 80000, watch: late, settleMs: 5000 }).neighbours.after_p95_ms, 10);
});

test('closed loop: the allocator policy of a variant is the lab policy with the loop values', async () => {
  const { isolationPolicy } = await import('../src/run/isolation.js');
  const p = isolationPolicy({ window_s: 15, share: 0.3, objective_ms: 10, cool_down_s: 60 }, { auto: false });
  assert.deepEqual([p.observe.windowS, p.hot.share, p.hot.objectiveMs.default, p.auto.enabled, p.auto.coolDownS], [15, 0.3, 10, false, 60]);
  assert.ok(p.shared.capacity.tenants > 0, 'the rest is the lab policy');
  // the relative objective and the probe's pace: only what the spec sets (else the allocator's default)
  for (const k of ['probeIntervalMs']) assert.equal(k in p.observe, false);
  for (const k of ['relative', 'minRiseMs', 'shareRise', 'baselineS']) assert.equal(k in p.hot, false);
  const q = isolationPolicy({ window_s: 15, share: 0.3, objective_ms: 60, relative: 1.25, min_rise_ms: 10, share_rise: 0.2, baseline_s: 120, probe_interval_ms: 250, cool_down_s: 240 });
  assert.deepEqual(q.observe, { windowS: 15, minQueries: 20, probeIntervalMs: 250 });
  assert.deepEqual(q.hot, { share: 0.3, objectiveMs: { default: 60 }, dedicated: false, relative: 1.25, minRiseMs: 10, shareRise: 0.2, baselineS: 120 });
  assert.deepEqual(q.auto, { enabled: true, coolDownS: 240 });
  const some = isolationPolicy({ window_s: 15, share: 0.3, objective_ms: 60, min_rise_ms: 0, cool_down_s: 240 });
  assert.deepEqual([some.hot.minRiseMs, 'relative' in some.hot], [0, false], 'a 0 is a value, not an absence');
});

test('closed loop: a watcher sample keeps the judged p95, its sources, baseline and limit, and each hot flag\'s kind; absent fields are null', async () => {
  const { sampleOf } = await import('../src/run/isolation.js');
  const hot = {
    groups: [
      { group: 'g1', p95_ms: 48, signal: 'load', probe_p95_ms: 40, load_p95_ms: 48, baseline_p95_ms: 31, relative_limit_ms: 40.3, objective_ms: 60, meets_objective: false, missed: 'relative', search_rate: 12, queue: 0, cpu_percent: 80, extra: 'not kept' },
      { group: 'g2', probe_ms: 20, latency_ms: 3 },
    ],
    hot: [{ tenant: 's5', kind: 'write', crossed: 'relative', p95_ms: 48, why: 'because' }, { tenant: 's7' }],
  };
  const s = sampleOf(hot, 1000);
  assert.equal(s.at, 1000);
  assert.deepEqual(s.groups[0], { group: 'g1', p95_ms: 48, signal: 'load', probe_p95_ms: 40, load_p95_ms: 48, baseline_p95_ms: 31, relative_limit_ms: 40.3, objective_ms: 60, meets_objective: false, missed: 'relative', latency_ms: null, search_rate: 12, queue: 0, cpu_percent: 80 });
  assert.deepEqual(s.groups[1], { group: 'g2', p95_ms: null, signal: null, probe_p95_ms: null, load_p95_ms: null, baseline_p95_ms: null, relative_limit_ms: null, objective_ms: null, meets_objective: null, missed: null, latency_ms: 3, search_rate: null, queue: null, cpu_percent: null });
  assert.deepEqual(s.hot, [{ tenant: 's5', kind: 'write', crossed: 'relative' }, { tenant: 's7', kind: null, crossed: null }]);
  assert.deepEqual(sampleOf({}, 1), { at: 1, groups: [], hot: [] });
});

test('closed loop: a repetition learns first when its stretch before the burst is under two allocator windows and a loop group has no baseline', async () => {
  const { learnsTooLate, unlearned } = await import('../src/run/isolation.js');
  const isolate = { window_s: 15 };
  const burst = { from: 0.25 };
  // make demo / QUICK: 2 + 2 s and a quarter of 45 s = 15.25 s, under 30 s
  assert.equal(learnsTooLate({ ramp_up_s: 2, warmup_s: 2, measure_s: 45 }, { isolate, burst }), true);
  // noisy-neighbour's full run: 5 + 10 + 25 s = 40 s; noisy-writer's: 5 + 10 + 0.1 x 150 = 30 s, exactly two windows
  assert.equal(learnsTooLate({ ramp_up_s: 5, warmup_s: 10, measure_s: 100 }, { isolate, burst }), false);
  assert.equal(learnsTooLate({ ramp_up_s: 5, warmup_s: 10, measure_s: 150 }, { isolate, burst: { from: 0.1 } }), false);
  // no loop, no burst: nothing to learn for
  assert.equal(learnsTooLate({ ramp_up_s: 0, warmup_s: 0, measure_s: 10 }, { burst }), false);
  assert.equal(learnsTooLate({ ramp_up_s: 0, warmup_s: 0, measure_s: 10 }, { isolate }), false);
  const hot = { groups: [{ group: 'g1', baseline_p95_ms: 15.8 }, { group: 'g2', baseline_p95_ms: null }, { group: 'g3', baseline_p95_ms: 0 }] };
  assert.deepEqual(unlearned(hot, ['g1', 'g2']), ['g2']);
  assert.deepEqual(unlearned(hot, ['g1', 'g3', 'g4']), ['g3', 'g4'], 'a 0 ms baseline or a group GET /hot does not give is not learned');
  assert.deepEqual(unlearned({}, ['g1']), ['g1']);
});

test('the narration: each group\'s judged p95 against its baseline and limit; the burst in words, of either kind', async () => {
  const { burstText, groupText } = await import('../src/run/narrate.js');
  assert.equal(groupText('g1', { p95_ms: 48, baseline_p95_ms: 31, relative_limit_ms: 40.3, meets_objective: true }), 'g1 p95 48 ms (baseline 31, limit 40.3)');
  assert.equal(groupText('g1', { p95_ms: 48.04, baseline_p95_ms: 31, relative_limit_ms: 40.3, meets_objective: false, missed: 'relative' }), 'g1 p95 48 ms (baseline 31, limit 40.3) MISSED (relative)');
  assert.equal(groupText('g2', { p95_ms: 70, baseline_p95_ms: null, objective_ms: 60, meets_objective: false, missed: 'absolute' }), 'g2 p95 70 ms (no baseline yet) MISSED (absolute 60 ms)');
  assert.equal(groupText('g2', undefined), 'g2 -');
  assert.equal(burstText({ kind: 'bot', rate: 100 }, 's5', ' (on g1)'), 'a search bot starts crawling s5 (on g1) at 100 pages/s');
  assert.equal(burstText({ rate: 30 }, 's5'), 'a search bot starts crawling s5 at 30 pages/s', 'a burst without a kind is the bot');
  assert.equal(burstText({ kind: 'resubmit', writers: 2, bulk_size: 500 }, 's1', ' (on g1)'), '2 writers start re-submitting the whole catalogue of s1 (on g1) in bulks of 500');
  assert.equal(burstText({ kind: 'resubmit', writers: 1, bulk_size: 10 }, 's1'), '1 writer starts re-submitting the whole catalogue of s1 in bulks of 10');
});

test('the closed loop\'s count: in how many repetitions of each auto-isolating variant the burst store was flagged and moved', async () => {
  const { flaggedAndMovedLines } = await import('../src/run/finalize.js');
  const rep = (flag_s, moved) => ({ figures: { isolation: { flag_s, moved } } });
  const results = {
    variants: [
      { name: 'isolated', isolate: { auto: true }, repetitions: [rep(8, true), rep(null, false), rep(12, false), { figures: null }, rep(5, true)] },
      { name: 'left-alone', isolate: { auto: false }, repetitions: [rep(8, false)] },
      { name: 'plain', repetitions: [{ figures: {} }] },
    ],
  };
  assert.deepEqual(flaggedAndMovedLines(results, { demo: true }), ['[demo] flagged and moved in 2 of 5 repetitions']);
  assert.deepEqual(flaggedAndMovedLines(results), ['flagged and moved in 2 of 5 repetitions']);
  // several auto-isolating variants: each line names its own
  results.variants[1].isolate.auto = true;
  assert.deepEqual(flaggedAndMovedLines(results), ['isolated: flagged and moved in 2 of 5 repetitions', 'left-alone: flagged and moved in 0 of 1 repetitions']);
  assert.deepEqual(flaggedAndMovedLines({ variants: [{ name: 'a', repetitions: [] }] }), [], 'no closed loop, no line');
});

test('a write burst\'s counts come from the summary\'s burst counters', async () => {
  const { burstWritesOf } = await import('../src/run/workload.js');
  assert.deepEqual(burstWritesOf({ metrics: { 'products_written{scenario:burst}': { values: { count: 950 } }, 'products_superseded{scenario:burst}': { values: { count: 50 } }, products_written: { values: { count: 2000 } } } }),
    { products_written: 950, products_superseded: 50 });
  assert.deepEqual(burstWritesOf({ metrics: {} }), { products_written: 0, products_superseded: 0 });
});

test('engineModeArgs: headless by default; make demo (LOAD_UI_PORT) keeps the web UI up on LAB_BIND while the run lasts', async () => {
  const { engineModeArgs } = await import('../src/run/workload.js');
  assert.deepEqual(engineModeArgs({}), ['--headless']);
  assert.deepEqual(engineModeArgs({ LOAD_UI_PORT: '0' }), ['--headless']);
  assert.deepEqual(engineModeArgs({ LOAD_UI_PORT: '8089', LAB_BIND: '127.0.0.1' }), ['--autostart', '--autoquit', '0', '--web-host', '127.0.0.1', '--web-port', '8089']);
});

test("the experiment's own lab: other nodes than lab.env's run natively when RUNTIME was left to choose; a RUNTIME asked for that cannot is one line", async () => {
  const { labControl } = await import('../src/run/lab-control.js');
  const dir = mkdtempSync(join(tmpdir(), 'labctl-'));
  const calls = join(dir, 'calls');
  const command = join(dir, 'lab');
  writeFileSync(command, `#!/bin/sh\necho "\${RUNTIME:-unset} $1" >> '${calls}'\n`);
  chmodSync(command, 0o755);
  const { RUNTIME, ...base } = process.env;
  const said = [];
  const control = labControl({ command, log: (l) => said.push(l), env: base });
  await control.use(null); // lab.env's nodes: the runtime left to choose (auto)
  await control.use({ groups: 1, data_nodes_per_group: 1 }); // other nodes: what runs goes, then natively
  await control.use(null); // and natively from then on
  assert.deepEqual(readFileSync(calls, 'utf8').trim().split('\n'), ['unset clean', 'unset up', 'unset clean', 'native clean', 'native up', 'native clean', 'native up']);
  assert.ok(said.some((l) => /has other nodes than lab\.env's: it runs on the native runtime/.test(l)), said.join('\n'));
  const compose = labControl({ command, env: { ...base, RUNTIME: 'compose' } });
  await assert.rejects(compose.use({ groups: 1, data_nodes_per_group: 1 }), /only the native runtime can start on the fly: run it with RUNTIME=native \(RUNTIME=compose was asked for\)$/);
});

test('neighboursLine: before, during, after, and the share of the rise gone when there was one', () => {
  assert.equal(neighboursLine({ before_p95_ms: 23.1, during_p95_ms: 805, after_p95_ms: 34.1, after_ratio: 1.47, recovered_share: 0.986 }), "neighbours' p95: 23.1 ms before the burst, 805 ms while it hit them, 34.1 ms after the move (1.47x of before; 99% of the rise gone)");
  assert.equal(neighboursLine({ before_p95_ms: 23, during_p95_ms: 24, after_p95_ms: null, after_ratio: null, recovered_share: null }), "neighbours' p95: 23 ms before the burst, 24 ms while it hit them, - ms after the move (-x of before)");
});

test('outcomeLine: the closed loop of a repetition in words, no "-" or "never" standing for a time', () => {
  assert.equal(outcomeLine({ flag_s: 10.11, move_start_s: 10.36, move_s: 13.2, recovered_s: 31.5 }), 'flagged 10.11 s after the burst started; move started at 10.36 s and took 13.2 s; neighbours back within 15% of before at 31.5 s');
  assert.equal(outcomeLine({ flag_s: 15.83, move_start_s: null, move_s: null, recovered_s: null }), 'flagged 15.83 s after the burst started; not moved; neighbours not back within 15% of before in the window');
  assert.equal(outcomeLine({ flag_s: null, move_start_s: null, move_s: null, recovered_s: null }), 'not flagged; not moved; neighbours not back within 15% of before in the window');
  // with the recovery against the burst's rise (figures since 2026-12-04)
  assert.equal(outcomeLine({ flag_s: 4.4, move_start_s: 4.8, move_s: 7.1, recovered_s: null, recovered_rise_s: 14 }), "flagged 4.4 s after the burst started; move started at 4.8 s and took 7.1 s; neighbours not back within 15% of before in the window; within 15% of the burst's rise at 14 s");
  assert.equal(outcomeLine({ flag_s: 4.4, move_start_s: null, move_s: null, recovered_s: null, recovered_rise_s: null }), "flagged 4.4 s after the burst started; not moved; neighbours not back within 15% of before in the window; not within 15% of the burst's rise in the window");
});
