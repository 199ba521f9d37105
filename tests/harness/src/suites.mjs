// One suite of each kind, run and counted where it runs: a bats file, a node --test suite (an
// npm script of a package, or node --test on files), pytest (JUnit XML), and promtool's rule
// tests (one test a group). Each under its time limit, its lines to OUT (the console and the
// log, or a buffer when it runs beside another), its wall time into the tally's suites.
import { mkdtempSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseDocument, stringify } from 'yaml';
import { run } from './proc.mjs';
import { BatsCounter } from './bats.mjs';
import { NodeTapCounter } from './node-tap.mjs';
import { countJUnit } from './junit.mjs';
import { limitOf } from './limits.mjs';

// A suite: {kind, name (how the report and the tables name it), ...what its kind needs}
export const bats = (file) => ({ kind: 'bats', name: file, file });
export const npm = (dir, script) => ({ kind: 'npm', name: dir, dir, script });
export const nodeTest = (name, cwd, files) => ({ kind: 'node', name, cwd, files });
export const pytest = (name, cwd, tests) => ({ kind: 'pytest', name, cwd, tests });
export const promtool = (file) => ({ kind: 'promtool', name: file, file });

// runSuite(ctx, suite, {env, out}): ctx = {root, tally, limits, batsDir, python}
export async function runSuite(ctx, suite, { env = process.env, out = ctx.tally.out } = {}) {
  const { tally } = ctx;
  const limitS = limitOf(ctx.limits, suite.name);
  const started = Date.now();
  const rel = (p) => path.relative(ctx.root, p.replace(/^file:\/\//, ''));
  let testsMs = 0;
  if (suite.kind === 'bats') {
    out(`# ${suite.file}`);
    const c = new BatsCounter(tally, suite.file, out);
    const r = await run(path.join(ctx.batsDir, 'node_modules/bats/bin/bats'), ['--tap', '--timing', path.join(ctx.root, suite.file)], {
      cwd: ctx.root, env: { ...env, BATS_LIB_PATH: path.join(ctx.batsDir, 'node_modules') }, limitS,
      onLine: (l) => { out(l); c.line(l); },
    });
    c.end({ ...r, limit: limitS });
    testsMs = c.testsMs;
  } else if (suite.kind === 'npm' || suite.kind === 'node') {
    const what = suite.kind === 'npm' ? `npm run ${suite.script}` : `node --test ${suite.files.join(' ')}`;
    out(`# ${suite.name}: ${what}`);
    const c = new NodeTapCounter(tally, suite.name, rel, out);
    const [cmd, args, cwd] = suite.kind === 'npm'
      ? ['npm', ['run', '--silent', suite.script], path.join(ctx.root, suite.dir)]
      : ['node', ['--test', '--test-reporter=tap', ...suite.files], path.join(ctx.root, suite.cwd)];
    const r = await run(cmd, args, { cwd, env, limitS, onLine: (l) => { out(l); c.line(l); } });
    c.end({ ...r, limit: limitS, what });
    testsMs = c.testsMs;
  } else if (suite.kind === 'pytest') {
    out(`# ${suite.name}: pytest`);
    const dir = mkdtempSync(path.join(tmpdir(), 'harness-pytest-'));
    const xml = path.join(dir, 'junit.xml');
    try {
      const r = await run(ctx.pythonPath, ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', '-rfEsxX', `--junitxml=${xml}`, '-o', 'junit_family=xunit1', suite.tests], {
        cwd: path.join(ctx.root, suite.cwd), env, limitS, onLine: out,
      });
      countJUnit(tally, suite.name, xml, { ...r, limit: limitS, out, where: (c) => (c.file ? `${suite.cwd}/${c.file}${c.line != null ? `:${Number(c.line) + 1}` : ''}` : suite.name) });
    } finally { rmSync(dir, { recursive: true, force: true }); }
  } else if (suite.kind === 'promtool') {
    testsMs = await runPromtool(ctx, suite, { env, out, limitS });
  } else throw new Error(`unknown suite kind ${suite.kind}`);
  tally.suites.push({ suite: suite.name, ms: Date.now() - started, testsMs: Math.round(testsMs), runtime: tally.runtime, part: tally.currentPart() });
}

// promtool test rules, one group at a time: a group is named by the comment above it (the
// file's own words), each its own test. The group goes into a file of its own beside the rules
// (promtool reads rule_files relative to the test file), with the file's rule_files and settings.
async function runPromtool(ctx, suite, { env, out, limitS }) {
  const { tally } = ctx;
  const file = path.join(ctx.root, suite.file);
  out(`# ${suite.file}: promtool test rules, a test a group`);
  // promtool ships in Debian's prometheus package: installed (cached) before the first group, so
  // the suite does not depend on another part having installed it first (on a fresh machine the
  // test lab's start, beside it, had not yet)
  const said = [];
  const inst = await run(path.join(ctx.root, 'scripts/install/prometheus.sh'), [], { cwd: ctx.root, env, limitS, onLine: (l) => said.push(l) });
  if (inst.rc !== 0 || inst.timedOut) { for (const l of said) out(`# ${l}`); tally.failStep(`${suite.file}: promtool could not be installed (scripts/install/prometheus.sh exit ${inst.rc})`, out); return 0; }
  const doc = parseDocument(readFileSync(file, 'utf8'));
  const all = doc.toJS();
  const seq = doc.get('tests');
  const groups = seq?.items ?? [];
  if (!groups.length) { tally.failStep(`${suite.file}: no test group`, out); return 0; }
  const until = Date.now() + limitS * 1000;
  let total = 0;
  for (const [i, node] of groups.entries()) {
    // the first group's comment is the sequence's own
    const comment = node.commentBefore ?? (i === 0 ? seq.commentBefore : null);
    const label = (comment ?? '').split('\n')[0].trim() || `group ${i + 1}`;
    const name = `${i + 1}: ${label}`;
    const one = { ...all, tests: [all.tests[i]] };
    const tmp = path.join(path.dirname(file), `.promtool-group-${process.pid}-${i}.yml`);
    writeFileSync(tmp, stringify(one));
    const lines = [];
    try {
      const left = Math.max(1, Math.ceil((until - Date.now()) / 1000));
      const r = await run('promtool', ['test', 'rules', path.basename(tmp)], { cwd: path.dirname(file), env, limitS: left, onLine: (l) => lines.push(l) });
      total += r.ms;
      if (r.rc === 0 && !r.timedOut) { out(`ok ${i + 1} ${name} in ${r.ms}ms`); tally.pass(`${suite.file}: ${name}`, r.ms); }
      else {
        out(`not ok ${i + 1} ${name}${r.timedOut ? ` (over the suite's limit of ${limitS} s)` : ''}`);
        for (const l of lines) out(`# ${l}`);
        tally.fail(`${suite.file}: ${name}`);
        if (r.timedOut) break;
      }
    } finally { rmSync(tmp, { force: true }); }
  }
  return total;
}
