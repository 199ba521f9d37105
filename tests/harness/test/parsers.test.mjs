// The harness's parsers and tables, on strings: what each counts, and the faults it names.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { globMatch } from '../src/glob.mjs';
import { loadAllowedSkips, allowedBy } from '../src/skips.mjs';
import { loadLimits, limitOf } from '../src/limits.mjs';
import { Tally } from '../src/tally.mjs';
import { BatsCounter } from '../src/bats.mjs';
import { NodeTapCounter } from '../src/node-tap.mjs';
import { parseJUnit } from '../src/junit.mjs';

const tmpFile = (text) => { const f = path.join(mkdtempSync(path.join(tmpdir(), 'harness-')), 't.tsv'); writeFileSync(f, text); return f; };
const tally = (rows = [], o = {}) => new Tally({ allowed: rows, out: () => {}, ...o });

test('bash globs: * crosses slashes, ? one character, [..] a class, \\x a literal', () => {
  assert.ok(globMatch('tests/live/*.bats', 'tests/live/a/b.bats'));
  assert.ok(globMatch('tests/live/8[05]-*', 'tests/live/85-write'));
  assert.ok(!globMatch('tests/live/8[05]-*', 'tests/live/82-x'));
  assert.ok(globMatch('a\\[1]', 'a[1]'));
  assert.ok(globMatch('one CPU?', 'one CPU!'));
  assert.ok(!globMatch('abc', 'abcd'));
});

test('allowed skips: a row for its runtimes only; a dev: row never under CI', () => {
  const rows = loadAllowedSkips(tmpFile('# c\nnative,compose\tf.bats\t*\twhy*\tok\ndev:native\tg.bats\tt\tr\tok\n'));
  const q = { runtime: 'native', ci: false, file: 'f.bats', test: 'x', reason: 'why not' };
  assert.ok(allowedBy(rows, q));
  assert.ok(!allowedBy(rows, { ...q, runtime: 'external' }));
  const dev = { runtime: 'native', ci: false, file: 'g.bats', test: 't', reason: 'r' };
  assert.ok(allowedBy(rows, dev));
  assert.ok(!allowedBy(rows, { ...dev, ci: true }));
});

test('the tables refuse a row they cannot read, naming its line', () => {
  assert.throws(() => loadAllowedSkips(tmpFile('native\tf\tt\tr\n')), /t\.tsv:1: want 5 tab-separated fields/);
  assert.throws(() => loadAllowedSkips(tmpFile('nativ\tf\tt\tr\tw\n')), /t\.tsv:1: unknown runtime 'nativ'/);
  assert.throws(() => loadLimits(tmpFile('# x\na\t0\tw\n')), /t\.tsv:2: seconds must be a whole number above 0/);
  const limits = loadLimits(tmpFile('tests/live/80-*\t900\tw\ntests/*\t60\tw\n'));
  assert.equal(limitOf(limits, 'tests/live/80-experiments.bats'), 900);
  assert.equal(limitOf(limits, 'tests/static/a.bats'), 60);
  assert.throws(() => limitOf(limits, 'allocator'), /no row of tests\/limits.tsv gives allocator a time limit/);
});

test('bats: results, a failure at its line, skips, and a file that fell short of its plan', () => {
  const t = tally();
  const c = new BatsCounter(t, 'f.bats');
  for (const l of ['1..4', 'ok 1 a in 5ms', 'not ok 2 b in 7ms', '# (in test file f.bats, line 12)', 'ok 3 c # skip why']) c.line(l);
  c.end({ rc: 1 });
  assert.deepEqual([t.passed, t.failed], [1, 3]);
  assert.deepEqual(t.failures, ['f.bats:12: b', 'unexpected skip: f.bats: c # skip why', 'f.bats: 3 of its 4 tests ran, the file died part-way (bats exit 1)']);
  assert.equal(c.testsMs, 12);
});

test('bats: a file over its limit names the test it was in', () => {
  const t = tally();
  const c = new BatsCounter(t, 'f.bats');
  for (const l of ['1..3', 'ok 1 first in 1ms']) c.line(l);
  c.end({ rc: 143, timedOut: true, limit: 5 });
  assert.deepEqual(t.failures, ['f.bats: over its limit of 5 s, stopped in test 2 of 3, after "first"']);
});

const nodeTap = (lines) => lines.join('\n').split('\n');

test('node --test: counts from the last summary, a todo fails unless allowed, a skip through the list', () => {
  const t = tally(loadAllowedSkips(tmpFile('native\tpkg\tlater one\ttodo: soon\tok\n')));
  const c = new NodeTapCounter(t, 'pkg');
  for (const l of nodeTap([
    'TAP version 13', '# pass 99', 'ok 1 - a', '  ---', '  duration_ms: 3.5', '  ...',
    'ok 2 - later one # TODO soon', 'ok 3 - not yet # TODO', 'ok 4 - s # SKIP nope',
    '1..4', '# tests 4', '# pass 1', '# fail 0', '# cancelled 0', '# skipped 1', '# todo 2',
  ])) c.line(l);
  c.end({ rc: 0 });
  assert.deepEqual([t.passed, t.failed, t.todo], [1, 2, 1]);
  assert.deepEqual(t.failures, ['unexpected todo: pkg: not yet # todo:', 'unexpected skip: pkg: s # skip nope']);
});

test('node --test: no summary, or a plan the results do not match, is a failure naming the suite', () => {
  let t = tally();
  let c = new NodeTapCounter(t, 'pkg');
  c.line('ok 1 - a');
  c.end({ rc: 0, what: 'npm run test' });
  assert.deepEqual(t.failures, ["pkg: npm run test ended without the runner's summary (exit 0)"]);
  t = tally();
  c = new NodeTapCounter(t, 'pkg');
  for (const l of ['ok 1 - a', '1..2', '# pass 1', '# fail 0', '# cancelled 0']) c.line(l);
  c.end({ rc: 0, what: 'npm run test' });
  assert.deepEqual(t.failures, ['pkg: npm run test: 1 top-level results for a plan of 2']);
});

test('JUnit: passed, failed, errored, skipped and xfailed cases with file and line', () => {
  const cases = parseJUnit(`<?xml version="1.0"?><testsuites><testsuite name="pytest">
    <testcase classname="t" name="ok" file="t.py" line="1" time="0.5"/>
    <testcase classname="t" name="bad" file="t.py" line="4" time="0.1"><failure message="assert 1 == 2">x</failure></testcase>
    <testcase classname="t" name="err" file="t.py" line="8"><error message="boom"/></testcase>
    <testcase classname="t" name="sk" file="t.py" line="9"><skipped type="pytest.skip" message="why &amp; not"/></testcase>
    <testcase classname="t" name="xf" file="t.py" line="12"><skipped type="pytest.xfail" message="known"/></testcase>
  </testsuite></testsuites>`);
  assert.deepEqual(cases.map((c) => [c.name, c.outcome, c.kind, c.message]), [
    ['t.py::ok', 'passed', null, ''], ['t.py::bad', 'failed', 'failure', 'assert 1 == 2'], ['t.py::err', 'failed', 'error', 'boom'],
    ['t.py::sk', 'skipped', null, 'why & not'], ['t.py::xf', 'skipped', null, 'xfail: known'],
  ]);
  assert.equal(cases[0].ms, 500);
});
