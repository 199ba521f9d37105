// The harness's runs: `native` (make test: static and unit suites, a test lab of its own, the
// live suite on it, then the compose runtime), `compose` (make test-compose), `check` (make
// check: everything that needs no lab) and `suites` (given suites, for the harness's own
// fixture tests). A run ends with the closing line only when it reached its end; a signal, a
// crash of the harness or a step it cannot go on without ends it with a line saying where.
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Tally } from './tally.mjs';
import { loadAllowedSkips } from './skips.mjs';
import { loadLimits, limitOf } from './limits.mjs';
import { openLog, console2 } from './log.mjs';
import { pool, buffered } from './pool.mjs';
import { run, capture, stopAll } from './proc.mjs';
import { reportLines, summary } from './report.mjs';
import * as S from './suites.mjs';

// A step the run cannot go on without failed: the run stops there (reported as incomplete)
class Stop extends Error {}

export async function main(argv, { root }) {
  const [mode = 'native', ...rest] = argv;
  const opts = parseOptions(rest);
  const env = process.env;
  const ci = env.CI === 'true';
  const log = opts.log === false ? null : openLog(opts.logDir ?? path.join(root, '.lab/test/logs'), mode === 'compose' ? 'compose' : mode === 'check' ? 'check' : '');
  const out = console2(log);
  const tally = new Tally({
    allowed: loadAllowedSkips(opts.allowed ?? path.join(root, 'tests/allowed-skips.tsv')),
    runtime: opts.runtime ?? (mode === 'compose' ? 'compose' : 'native'), ci,
    stepFile: mode === 'compose' ? 'tests/compose/run' : 'tests/run', out,
  });
  const ctx = {
    root, env, tally, out, ci, only: opts.only ?? env.ONLY ?? '', jobs: Number(env.HARNESS_JOBS ?? 2),
    limits: loadLimits(opts.limits ?? path.join(root, 'tests/limits.tsv')),
    batsDir: null, cleanups: [], pythonPath: null,
  };
  const startedAt = new Date().toISOString();
  let ending = false;
  const end = async (complete, stoppedAt) => {
    if (ending) return; ending = true;
    await stopAll();
    for (const c of ctx.cleanups.splice(0).reverse()) {
      try { await c(); } catch (e) { tally.failStep(`cleanup: ${e.message}`); }
    }
    tally.endParts();
    for (const l of reportLines(tally, { logPath: log?.file, complete, stoppedAt })) out(l);
    if (log) writeFileSync(log.file.replace(/\.log$/, '.json'), `${JSON.stringify(summary(tally, { complete, stoppedAt, startedAt }), null, 1)}\n`);
    log?.close();
    process.exit(complete && tally.failed === 0 ? 0 : 1);
  };
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(sig, () => { out(`interrupted (${sig})`); end(false, `interrupted by ${sig}`); });
  process.on('uncaughtException', (e) => { out(`the harness itself failed: ${e.stack ?? e}`); end(false, `the harness itself failed: ${e.message ?? e}`); });
  process.on('unhandledRejection', (e) => { out(`the harness itself failed: ${e?.stack ?? e}`); end(false, `the harness itself failed: ${e?.message ?? e}`); });
  try {
    if (mode === 'native') await nativeRun(ctx);
    else if (mode === 'compose') await composeRun(ctx, { standalone: true });
    else if (mode === 'check') await checkRun(ctx);
    else if (mode === 'suites') await suitesRun(ctx, opts.specs);
    else throw new Stop(`unknown mode '${mode}' (native, compose, check, suites)`);
  } catch (e) {
    if (!(e instanceof Stop)) out(`the harness itself failed: ${e.stack ?? e}`);
    await end(false, e instanceof Stop ? e.message : `the harness itself failed: ${e.message ?? e}`);
    return;
  }
  await end(true);
}

function parseOptions(args) {
  const o = { specs: [] };
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    const val = () => { if (i + 1 >= args.length) throw new Error(`${a} needs a value`); return args[++i]; };
    if (a === '--allowed') o.allowed = val();
    else if (a === '--limits') o.limits = val();
    else if (a === '--log-dir') o.logDir = val();
    else if (a === '--no-log') o.log = false;
    else if (a === '--runtime') o.runtime = val();
    else if (a.startsWith('--')) throw new Error(`unknown option ${a}`);
    else if (a.includes('=')) o.specs.push(a);
    else o.only = a;
  }
  return o;
}

const selected = (ctx, p) => !ctx.only || new RegExp(ctx.only).test(path.join(ctx.root, p));
const scriptPath = (ctx, p) => path.join(ctx.root, p);

// step(ctx, what, cmd, args, {env, quiet}): a helper script's step; its output printed (or kept
// and printed only when it fails); false when it failed, counted as one failed test
async function step(ctx, what, cmd, args = [], { env = ctx.env, quiet = false, limitName = null, out = ctx.out } = {}) {
  const keep = [];
  const limitS = limitName ? limitOf(ctx.limits, limitName) : null;
  const r = await run(cmd, args, { cwd: ctx.root, env, limitS, onLine: (l) => (quiet ? keep.push(l) : out(l)) });
  if (r.rc === 0 && !r.timedOut) return r;
  for (const l of keep.slice(-40)) out(l);
  ctx.tally.failStep(`${what}${r.timedOut ? ` (over its limit of ${limitS} s)` : ` (exit ${r.rc})`}`, out);
  return null;
}

async function installTools(ctx) {
  ctx.tally.startPart('installing test tools (cached)');
  const ok = await step(ctx, 'install Debian packages', 'bash', ['-c', 'source scripts/lib/apt.sh && ensure_apt_packages curl jq procps iproute2'])
    && await step(ctx, 'install the Node.js dependencies', scriptPath(ctx, 'scripts/install/npm-deps.sh'));
  if (!ok) throw new Stop('the test tools could not be installed');
  await installBats(ctx);
  if (!await step(ctx, 'build Compose v2', scriptPath(ctx, 'scripts/install/compose.sh'), [], { quiet: true })) throw new Stop('Compose v2 could not be built');
}

// installBats: bats-core and its libraries (cached); sets ctx.batsDir
async function installBats(ctx) {
  const b = await capture(scriptPath(ctx, 'scripts/install/bats.sh'), [], { cwd: ctx.root, env: ctx.env });
  if (b.rc !== 0) { for (const l of b.lines) ctx.out(l); ctx.tally.failStep('install bats'); throw new Stop('bats could not be installed'); }
  ctx.batsDir = b.lines.at(-1);
}

// the load engine's Python (its venv), for the pytest suite: installed when first needed

async function ensurePython(ctx) {
  if (ctx.pythonPath) return true;
  const r = await capture(scriptPath(ctx, 'scripts/install/locust.sh'), [], { cwd: ctx.root, env: ctx.env });
  if (r.rc !== 0) { for (const l of r.lines) ctx.out(l); ctx.tally.failStep('install the load engine (scripts/install/locust.sh)'); return false; }
  ctx.pythonPath = r.lines.at(-1).replace(/locust$/, 'python');
  return true;
}

// The no-lab suites: the static bats files, every workspace's unit suite, the load engine's
// pytest suite, the k8s renderer's node tests, promtool's rule tests
function noLabSuites(ctx) {
  const list = [];
  for (const f of globDir(ctx, 'tests/static', /\.bats$/)) list.push(S.bats(f));
  for (const dir of workspaceTestPackages(ctx)) list.push(S.npm(dir, 'test'));
  list.push(S.pytest('traffic/tests', 'traffic', 'tests'));
  list.push(S.nodeTest('k8s/test', 'k8s', globDir(ctx, 'k8s/test', /\.test\.mjs$/).map((f) => path.relative('k8s', f))));
  list.push(S.promtool('prometheus/rules.test.yml'));
  return list.filter((s) => selected(ctx, s.kind === 'npm' ? `${s.name}/test/` : s.kind === 'bats' ? s.file : `${s.name}/`));
}

function globDir(ctx, dir, re) {
  return readdirSync(path.join(ctx.root, dir)).filter((f) => re.test(f)).sort().map((f) => `${dir}/${f}`);
}

// every workspace of the root package.json ("dir" or "dir/*") whose package.json has a test
// script, so a package added or moved is never left out without a word
function workspaceTestPackages(ctx) {
  const dirs = [];
  for (const w of JSON.parse(readFileSync(path.join(ctx.root, 'package.json'), 'utf8')).workspaces ?? []) {
    const ds = !w.endsWith('/*') ? [w] : readdirSync(path.join(ctx.root, w.slice(0, -2)), { withFileTypes: true })
      .filter((d) => d.isDirectory()).map((d) => `${w.slice(0, -2)}/${d.name}`).sort();
    for (const d of ds) {
      const file = path.join(ctx.root, d, 'package.json');
      if (!existsSync(file)) { if (!w.endsWith('/*')) ctx.tally.failStep(`workspace ${d} has no package.json`); continue; }
      if (JSON.parse(readFileSync(file, 'utf8')).scripts?.test) dirs.push(d);
    }
  }
  return dirs;
}

// the packages with an integration suite (test:integration) on a running lab
const integrationPackages = (ctx) => workspaceTestPackages(ctx).filter((d) => selected(ctx, `${d}/test/`) && hasScript(ctx, d, 'test:integration'));

// the integration suites' environment: the seeder's fault test kills and restarts a data node
const integrationEnv = (ctx, env) => ({ ...env, SEED_IT_KILL_CMD: `${ctx.root}/scripts/lab kill es-data-3`, SEED_IT_RESTART_CMD: `${ctx.root}/scripts/lab restart es-data-3` });

// engineAnswers(env, {compose}): a Docker engine answers (and compose v2 with it)
async function engineAnswers(env, { compose = false } = {}) {
  const cmd = `timeout 10 docker version${compose ? ' && timeout 10 docker compose version' : ''}`;
  return (await capture('bash', ['-c', cmd], { env })).rc === 0;
}

const hasScript = (ctx, dir, name) => Boolean(JSON.parse(readFileSync(path.join(ctx.root, dir, 'package.json'), 'utf8')).scripts?.[name]);

// runMany(ctx, suites, width, env): suites `width` at a time, each printed whole when it ends
async function runMany(ctx, suites, width, env = ctx.env) {
  if (suites.some((s) => s.kind === 'pytest') && !await ensurePython(ctx)) suites = suites.filter((s) => s.kind !== 'pytest');
  await pool(suites, width, async (s) => {
    const b = width > 1 ? buffered(ctx.out) : { out: ctx.out, flush() {} };
    try { await S.runSuite(ctx, s, { env, out: b.out }); } finally { b.flush(); }
  });
}

async function checkRun(ctx) {
  await installTools(ctx);
  ctx.tally.startPart(`static and unit suites (${ctx.jobs} at a time)`);
  await runMany(ctx, noLabSuites(ctx), ctx.jobs);
}

async function suitesRun(ctx, specs) {
  if (specs.some((s) => s.startsWith('bats='))) await installBats(ctx);
  const list = [];
  const flushList = async () => { await runMany(ctx, list.splice(0), ctx.jobs); };
  for (const spec of specs) {
    const [k, v] = [spec.slice(0, spec.indexOf('=')), spec.slice(spec.indexOf('=') + 1)];
    if (k === 'part') { await flushList(); ctx.tally.startPart(v); }
    else if (k === 'bats') list.push(S.bats(v));
    else if (k === 'npm') { const [dir, script] = v.split(':'); list.push(S.npm(dir, script)); }
    else if (k === 'pytest') { const [cwd, tests] = v.split(':'); list.push(S.pytest(`${cwd}/${tests}`, cwd, tests)); ctx.pythonPath ??= ctx.env.HARNESS_PYTHON; }
    else if (k === 'promtool') list.push(S.promtool(v));
    // a fault of the harness itself, for its fixture tests: it throws where it stands
    else if (k === 'throw') { await flushList(); throw new Error(v); }
    else throw new Stop(`unknown suite spec ${spec}`);
  }
  await flushList();
}

// ---- make test: the native run ----
async function nativeRun(ctx) {
  const { tally } = ctx;
  await installTools(ctx);
  const live = globDir(ctx, 'tests/live', /\.bats$/).filter((f) => selected(ctx, f)).map(S.bats);
  const noLab = noLabSuites(ctx);
  const integration = integrationPackages(ctx);
  const labDir = ctx.env.LAB_DIR;
  let lab = null;
  const stopNative = () => stopTestLab(ctx);
  if (live.length + integration.length) {
    // the test lab starts while the static and unit suites run: its JVMs' start is mostly waiting
    // not a part of its own: it runs beside the next one (its time is in its "is up" line)
    ctx.out(`# starting a fresh test lab in ${labDir}, beside the static and unit suites`);
    ctx.cleanups.push(stopNative);
    lab = startTestLab(ctx);
  }
  tally.startPart(`static and unit suites (${ctx.jobs} at a time)`);
  await runMany(ctx, noLab, ctx.jobs);
  if (lab) {
    tally.startPart('waiting for the test lab');
    const { ok, flush } = await lab;
    flush();
    if (ok) {
      tally.startPart('live tests');
      const env = { ...ctx.env, SEED: '0' };
      for (const s of live) await S.runSuite(ctx, s, { env });
      // the seeder's fault test kills and restarts a data node of this test lab
      const itEnv = integrationEnv(ctx, ctx.env);
      for (const d of integration) {
        tally.startPart(`${d} integration tests (real cluster)`);
        await S.runSuite(ctx, S.npm(d, 'test:integration'), { env: itEnv });
      }
    }
    // the compose lab below takes the same ports and both cores
    tally.startPart('stopping the test lab');
    ctx.cleanups.splice(ctx.cleanups.indexOf(stopNative), 1);
    await stopNative();
  }
  // the files that start labs of their own (benchmarks, experiments on their own labs), one at
  // a time once the test lab is gone: a second lab beside it would be ten JVMs on 2 cores
  const ownLab = globDir(ctx, 'tests/own-lab', /\.bats$/).filter((f) => selected(ctx, f)).map(S.bats);
  if (ownLab.length) {
    tally.startPart('on labs of their own (the test lab stopped)');
    for (const s of ownLab) await S.runSuite(ctx, s, { env: ctx.env });
  }
  await composePart(ctx);
}

// startTestLab(ctx) -> Promise<boolean>: nothing of an earlier test lab but the logs, then
// SEED=0 make up (the live tests seed what they need); its lines printed when it is waited for
async function startTestLab(ctx) {
  const b = buffered(ctx.out);
  const lab = scriptPath(ctx, 'scripts/lab');
  const top = path.join(ctx.root, '.lab/test');
  // a lab of the layout before (.lab/test itself its LAB_DIR) is stopped first
  if (existsSync(path.join(top, 'runtime'))) await run(lab, ['down'], { cwd: ctx.root, env: { ...ctx.env, LAB_DIR: top } });
  await run(lab, ['clean'], { cwd: ctx.root, env: { ...ctx.env, FORCE: '1' } });
  if (existsSync(top)) for (const e of readdirSync(top)) if (e !== 'logs') rmSync(path.join(top, e), { recursive: true, force: true });
  const r = await step(ctx, 'make up (test lab)', lab, ['up'], { env: { ...ctx.env, SEED: '0' }, limitName: 'scripts/lab up', out: b.out });
  b.out(r ? `# the test lab is up (${Math.round(r.ms / 1000)} s)` : '# the test lab did not start');
  return { ok: Boolean(r), flush: b.flush };
}

// stopTestLab: the native test lab stopped; any of its processes left is a bug of ours:
// reported, then killed. Idempotent.
async function stopTestLab(ctx) {
  if (existsSync(ctx.env.LAB_DIR)) await run(scriptPath(ctx, 'scripts/lab'), ['down'], { cwd: ctx.root, env: ctx.env });
  const left = await capture('bash', ['-c', 'source scripts/lib/process.sh && lab_process_pids'], { cwd: ctx.root, env: ctx.env });
  const pids = left.lines.filter((l) => /^[0-9]+$/.test(l));
  if (pids.length) {
    ctx.tally.failStep(`processes left behind after the tests: ${pids.join(' ')}`);
    for (const p of pids) { try { process.kill(Number(p), 'SIGKILL'); } catch { /* gone */ } }
  }
}

// ---- the compose runtime (make test-compose, and the last part of make test) ----
// Under make test it runs in this process: its counts are this run's, and a crash in it is this
// run's crash, so there is no sub-harness' last line to trust.
async function composeRun(ctx) {
  await installTools(ctx);
  await composePart(ctx, { standalone: true });
}

function composeSelection(ctx, standalone) {
  const files = [...globDir(ctx, 'tests/compose', /^[0-8].*\.bats$/), ...globDir(ctx, 'tests/live', /\.bats$/)].filter((f) => selected(ctx, f)).map(S.bats);
  // the files that take the lab down (9*.bats) run last, after the integration suites
  const endFiles = globDir(ctx, 'tests/compose', /^9.*\.bats$/).filter((f) => selected(ctx, f)).map(S.bats);
  // the integration suites speak HTTP to Elasticsearch only: under make test they ran on the
  // native lab, so they run here only when this part runs alone (make test-compose)
  const integration = standalone ? integrationPackages(ctx) : [];
  return { files, endFiles, integration };
}

async function composePart(ctx, { standalone = false } = {}) {
  const { tally, root, env: base } = ctx;
  const sel = composeSelection(ctx, standalone);
  if (!(sel.files.length + sel.endFiles.length + sel.integration.length)) return;
  const before = { runtime: tally.runtime, stepFile: tally.stepFile };
  if (!standalone) {
    if (base.TEST_COMPOSE === '0') { tally.stepSkip('compose runtime', 'TEST_COMPOSE=0'); return; }
    const answers = await engineAnswers(base);
    const mayStart = process.getuid?.() === 0 && (ctx.ci || base.TEST_COMPOSE === '1');
    if (!answers && !mayStart) {
      tally.stepSkip('compose runtime', 'no Docker engine answers and no private one may start here (it needs root and CI=true or TEST_COMPOSE=1)');
      return;
    }
  }
  tally.startPart('compose runtime (tests/compose/run)');
  tally.runtime = 'compose'; tally.stepFile = 'tests/compose/run';
  const env = { ...base, LAB_DIR: path.join(root, '.lab/test-compose'), RUNTIME: 'compose' };
  let engineStarted = false, labStarted = false;
  const cleanup = async () => {
    tally.runtime = 'compose'; tally.stepFile = 'tests/compose/run';
    if (labStarted) {
      const r = await run(scriptPath(ctx, 'scripts/lab'), ['clean'], { cwd: root, env: { ...env, FORCE: '1' } });
      if (r.rc !== 0) tally.failStep('clean the compose test lab');
      // nothing of the project may be left: containers, networks
      for (const [kind, ls, rm] of [['containers', ['ps', '-aq'], ['rm', '-f']], ['networks', ['network', 'ls', '-q'], ['network', 'rm']]]) {
        const left = (await capture('docker', [...ls, '--filter', `label=com.docker.compose.project=${env.COMPOSE_PROJECT_NAME}`], { env })).lines.filter(Boolean);
        if (left.length) { tally.failStep(`${kind} left behind after clean: ${left.join(' ')}`); await run('docker', [...rm, ...left], { env }); }
      }
    }
    // a failure to stop it is counted by step
    if (engineStarted) await step(ctx, 'stop the private Docker engine', scriptPath(ctx, 'scripts/docker-engine'), ['stop'], { env });
    rmSync(env.LAB_DIR, { recursive: true, force: true });
    Object.assign(tally, before);
  };
  ctx.cleanups.push(cleanup);
  try {
    ctx.out('# Docker engine');
    const answers = !base.DOCKER_HOST && await engineAnswers(env, { compose: true });
    if (answers) ctx.out('# using the Docker engine that answers');
    else {
      const r = await capture(scriptPath(ctx, 'scripts/docker-engine'), ['start'], { cwd: root, env });
      if (r.rc !== 0) { for (const l of r.lines) ctx.out(l); tally.failStep('start the private Docker engine'); return; }
      engineStarted = true;
      for (const l of r.lines) { const m = /^export ([A-Z_]+)=(.*)$/.exec(l); if (m) env[m[1]] = m[2]; }
      // a private engine reaches no registry: the images are built here
      env.LAB_IMAGES = base.LAB_IMAGES_FOR_TEST ?? 'local';
    }
    if ((env.LAB_IMAGES ?? 'official') === 'local') {
      ctx.out('# local images (runtimes/compose/images/build)');
      if (!await step(ctx, 'build the local images', scriptPath(ctx, 'runtimes/compose/images/build'), [], { env, quiet: true, limitName: 'runtimes/compose/images/build' })) return;
    }
    ctx.out(`# a fresh compose test lab (project ${env.COMPOSE_PROJECT_NAME}, images: ${env.LAB_IMAGES ?? 'official'})`);
    labStarted = true;
    await run(scriptPath(ctx, 'scripts/lab'), ['clean'], { cwd: root, env: { ...env, FORCE: '1' } });
    rmSync(env.LAB_DIR, { recursive: true, force: true });
    if (!await step(ctx, 'make up (compose test lab)', scriptPath(ctx, 'scripts/lab'), ['up'], { env: { ...env, SEED: '0' }, limitName: 'scripts/lab up' })) return;
    const runEnv = { ...env, SEED: '0' };
    for (const s of sel.files) await S.runSuite(ctx, s, { env: runEnv });
    const itEnv = integrationEnv(ctx, env);
    for (const d of sel.integration) await S.runSuite(ctx, S.npm(d, 'test:integration'), { env: itEnv });
    for (const s of sel.endFiles) await S.runSuite(ctx, s, { env: runEnv });
  } finally {
    ctx.cleanups.splice(ctx.cleanups.indexOf(cleanup), 1);
    await cleanup();
  }
}
