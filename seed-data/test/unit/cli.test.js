import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createServer } from 'node:net';
import { test } from 'node:test';

const bin = new URL('../../bin/tenantlab-seed', import.meta.url).pathname;

async function closedPort() {
  const s = createServer().listen(0, '127.0.0.1');
  await new Promise((r) => s.once('listening', r));
  const { port } = s.address();
  await new Promise((r) => s.close(r));
  return port;
}

function run(args, env = {}) {
  const r = spawnSync(process.execPath, [bin, ...args], { env: { ...process.env, SEED: '', PROFILE: '', ...env }, encoding: 'utf8', timeout: 30000 });
  return { code: r.status, stderr: r.stderr, stdout: r.stdout };
}

function assertOneLineError(r, code, re) {
  assert.equal(r.code, code, r.stderr);
  const lines = r.stderr.trim().split('\n');
  assert.equal(lines.length, 1, `more than one line:\n${r.stderr}`);
  assert.match(lines[0], /^error: /);
  assert.match(lines[0], re);
  assert.doesNotMatch(r.stderr, /\s+at .+:\d+:\d+/, 'stack trace');
}

test('unknown profile', () => assertOneLineError(run(['seed', '--profile', 'huge']), 2, /unknown profile 'huge': pick one of bigcommerce, ci, demo, large, platform/));
test('SEED not a number (env and flag)', () => {
  assertOneLineError(run(['seed', '-p', 'ci'], { SEED: 'abc' }), 2, /SEED .* must be an integer >= 0, got 'abc'/);
  assertOneLineError(run(['seed', '-p', 'ci', '--seed', '-3']), 2, /must be an integer|Option/);
  assertOneLineError(run(['seed', '-p', 'ci', '--seed', '1.5']), 2, /must be an integer/);
});
test('bad sizes and options', () => {
  assertOneLineError(run(['seed', '-p', 'ci', '--bulk-bytes', 'lots']), 2, /--bulk-bytes must be a size/);
  assertOneLineError(run(['seed', '-p', 'ci', '--concurrency', '0']), 2, /--concurrency/);
  assertOneLineError(run(['seed', '-p', 'ci', '--frobnicate']), 2, /Unknown option '--frobnicate'/);
  assertOneLineError(run(['sed', '-p', 'ci']), 2, /unknown command 'sed'/);
  assertOneLineError(run(['update', '-p', 'ci', '--tenant', 'nope-1']), 2, /tenant 'nope-1' is not in profile ci/);
  assertOneLineError(run(['seed', '-p', 'ci', '--tenant-prefix', 'Bad_Prefix']), 2, /tenant prefix/);
});
test('allocator down', async () => {
  const port = await closedPort();
  assertOneLineError(run(['seed', '-p', 'ci', '--allocator', `http://127.0.0.1:${port}`]), 3, new RegExp(`allocator not reachable at http://127.0.0.1:${port} \\(connection refused\\)`));
});
test('cluster down (verify needs only the cluster)', async () => {
  const port = await closedPort();
  assertOneLineError(run(['verify', '-p', 'ci', '--es', `http://127.0.0.1:${port}`]), 3, new RegExp(`Elasticsearch not reachable at http://127.0.0.1:${port}`));
});
test('help and profiles', () => {
  const h = run(['--help']);
  assert.equal(h.code, 0);
  assert.match(h.stdout, /usage: tenantlab-seed COMMAND/);
  assert.match(run(['profiles']).stdout, /^ci +20 stores +50000 products/m);
});

// The generators' own determinism is the dataset package's (packages/dataset/test/determinism.test.js);
// here the CLI's output: the same bytes in separate processes.
const sha = (s) => createHash('sha256').update(s).digest('hex');
const catalogBytes = (seed, extra = []) => sha(execFileSync(process.execPath, [bin, 'catalog', '-p', 'ci', '--scale', '0.1', '--seed', String(seed), ...extra], { maxBuffer: 64 << 20 }));

test('same SEED gives the same bytes, in separate processes; another SEED does not', () => {
  const a = catalogBytes(7);
  assert.equal(catalogBytes(7), a);
  assert.notEqual(catalogBytes(8), a);
});

test('the query log is byte-identical for a SEED', () => {
  const log = (seed) => sha(execFileSync(process.execPath, [bin, 'querylog', '-p', 'ci', '--seed', String(seed), '--lines', '500']));
  assert.equal(log(3), log(3));
  assert.notEqual(log(3), log(4));
});
