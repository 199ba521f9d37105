import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { LabEnvError, mergeLabEnv, parseLabEnv } from '../src/lab-env.js';
import { labEnvFile, labRoot, loadLabEnv } from '../src/lab-env-file.js';

const cli = new URL('../bin/lab-env', import.meta.url).pathname;
const tmpFile = (text) => {
  const file = join(mkdtempSync(join(tmpdir(), 'lab-env-')), 'lab.env');
  writeFileSync(file, text);
  return file;
};

test('KEY=VALUE lines are read; blanks and comments (indented too) skipped', () => {
  assert.deepEqual(parseLabEnv('# c\n\n  # indented\n   \nA=1\nB_2=x,y\nEMPTY=\nEQ=a=b\n'), { A: '1', B_2: 'x,y', EMPTY: '', EQ: 'a=b' });
  assert.deepEqual(parseLabEnv('A=1'), { A: '1' }, 'no final newline');
  assert.deepEqual(parseLabEnv('A=1\nA=2\n'), { A: '2' }, 'the last definition wins, as in bash');
});

test('a malformed line is one error naming file and line', () => {
  const bad = ['A = 1', 'a=1', '1A=x', 'A=two words', 'A="x y"', 'export A=1', 'A=1 ', 'A=1\r', 'just text'];
  for (const line of bad) {
    assert.throws(() => parseLabEnv(`# head\nOK=1\n${line}\n`, '/x/lab.env'), (err) => {
      assert.ok(err instanceof LabEnvError);
      assert.equal(err.message, `error: /x/lab.env:3: not a KEY=VALUE line: ${line}`);
      assert.equal(err.line, 3);
      return true;
    }, line);
  }
});

test('the environment wins over the file', () => {
  assert.deepEqual(mergeLabEnv({ A: '1', B: '2' }, { A: 'env', C: 'other' }), { A: 'env', B: '2' });
  const file = tmpFile('A=1\nB=2\n');
  const e = loadLabEnv({ file, env: { A: 'env', C: 'c' } });
  assert.equal(e.A, 'env');
  assert.equal(e.B, '2');
  assert.equal(e.C, 'c', 'the rest of the environment is kept');
  assert.equal(loadLabEnv({ env: { LAB_ENV_FILE: file } }).B, '2', 'LAB_ENV_FILE is honoured');
  assert.deepEqual(loadLabEnv({ file: join(tmpdir(), 'no-such-lab.env'), env: { X: '1' } }), { X: '1' }, 'no file (a container): the environment alone');
  assert.throws(() => loadLabEnv({ file: tmpFile('A=1\nB 2\n'), env: {} }), (err) => /^error: .*lab\.env:2: not a KEY=VALUE line: B 2$/.test(err.message));
});

test("the checkout's own lab.env parses", () => {
  assert.equal(labEnvFile({}), join(labRoot, 'lab.env'));
  const e = loadLabEnv({ env: {} });
  assert.match(e.LAB_NODES, /^[a-z0-9-]+(,[a-z0-9-]+)*$/);
});

test('the CLI prints quoted export lines, environment winning; a bad line is one line and exit 2', () => {
  const file = tmpFile("A=1\nB=it's\nC=$HOME\n");
  const out = execFileSync(cli, { env: { PATH: process.env.PATH, LAB_ENV_FILE: file, A: 'from env' }, encoding: 'utf8' });
  assert.equal(out, "export A='from env'\nexport B='it'\\''s'\nexport C='$HOME'\n");
  const evaluated = execFileSync('bash', ['-c', `eval "$(${cli})"; printf '%s|%s|%s' "$A" "$B" "$C"`], { env: { PATH: process.env.PATH, LAB_ENV_FILE: file }, encoding: 'utf8' });
  assert.equal(evaluated, "1|it's|$HOME");
  const bad = spawnSync(cli, { env: { PATH: process.env.PATH, LAB_ENV_FILE: tmpFile('A=1\nB = 2\n') }, encoding: 'utf8' });
  assert.equal(bad.status, 2);
  assert.equal(bad.stdout, '');
  assert.match(bad.stderr, /^error: \/.*lab\.env:2: not a KEY=VALUE line: B = 2\n$/);
  const missing = spawnSync(cli, { env: { PATH: process.env.PATH, LAB_ENV_FILE: '/no/such/lab.env' }, encoding: 'utf8' });
  assert.equal(missing.status, 2);
  assert.equal(missing.stderr, 'error: /no/such/lab.env: no such file (LAB_ENV_FILE)\n');
});
