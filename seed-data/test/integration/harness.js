// The integration tests' view of the lab: the cluster from ES_URL (default: lab.env), the
// allocator from ALLOCATOR_URL, or, when that is not set, an allocator of our own started from
// ../allocator on a free loopback port with a unique index prefix, deleted afterwards.
// Tenant ids carry a unique prefix too, so runs never collide with the lab's own tenants.
import { Client } from '@elastic/elasticsearch';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config.js';
// Generic helpers of the allocator's own integration tests (the seeder's tests need its
// node_modules anyway, to start an allocator)
import { clusterHealthy, freePort } from '../../../allocator/test/integration/harness.js';

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const config = loadConfig();
export const esUrl = config.esUrl;
export const es = new Client({ node: esUrl, requestTimeout: 60000 });
const bin = new URL('../../bin/tenantlab-seed', import.meta.url).pathname;
const allocatorDir = new URL('../../../allocator/', import.meta.url).pathname;
// Load settings recorded by these runs stay out of the lab's own state directory.
const labDir = mkdtempSync(join(tmpdir(), 'seed-it-'));

export const uid = () => randomBytes(3).toString('hex');

export const clusterUp = () => clusterHealthy(es);

export async function startAllocator() {
  if (process.env.ALLOCATOR_URL) return { url: process.env.ALLOCATOR_URL, stop: async () => {} };
  if (!existsSync(join(allocatorDir, 'node_modules'))) throw new Error('ALLOCATOR_URL is not set and ../allocator has no node_modules (npm ci there)');
  const port = await freePort();
  const prefix = `sdit${uid()}-`;
  const proc = spawn(process.execPath, ['src/main.js'], {
    cwd: allocatorDir,
    env: { ...process.env, ALLOCATOR_PORT: String(port), ALLOCATOR_LISTEN_HOST: '127.0.0.1', ALLOCATOR_INDEX_PREFIX: prefix, ALLOCATOR_ES_URL: esUrl, ALLOCATOR_LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let output = '';
  proc.stderr.on('data', (d) => (output += d));
  const exited = new Promise((r) => proc.on('exit', r));
  const url = `http://127.0.0.1:${port}`;
  for (const deadline = Date.now() + 60000; ; ) {
    try {
      if ((await fetch(`${url}/readyz`)).status === 200) break;
    } catch {}
    if (Date.now() > deadline || proc.exitCode !== null) throw new Error(`allocator did not become ready: ${output}`);
    await sleep(250);
  }
  return {
    url,
    prefix,
    async stop() {
      proc.kill('SIGTERM');
      await Promise.race([exited, sleep(5000)]);
      if (proc.exitCode === null) proc.kill('SIGKILL');
      // Wildcard deletes are refused (action.destructive_requires_name): delete by name.
      const rows = await es.cat.indices({ index: `${prefix}*`, format: 'json', h: 'index', expand_wildcards: 'all' }).catch(() => []);
      const names = rows.map((r) => r.index).filter((n) => n.startsWith(prefix));
      if (names.length) await es.indices.delete({ index: names.join(','), ignore_unavailable: true });
      await es.indices.deleteIndexTemplate({ name: `${prefix}products` }).catch(() => {});
    },
  };
}

/** Runs the CLI; resolves { code, stdout, stderr }. */
export function seedCli(args, { env = {}, onStderr } = {}) {
  return new Promise((resolve) => {
    const proc = spawn(process.execPath, [bin, ...args], { env: { ...process.env, LAB_DIR: labDir, ES_URL: esUrl, SEED_PROGRESS: 'plain', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    proc.stdout.on('data', (d) => (stdout += d));
    proc.stderr.on('data', (d) => {
      stderr += d;
      onStderr?.(String(d), proc);
    });
    proc.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Runs a shell command (the kill/restart hooks) without blocking the event loop. */
export function runShell(command) {
  return new Promise((resolve, reject) => {
    const proc = spawn('bash', ['-c', command], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    proc.stdout.on('data', (d) => (out += d));
    proc.stderr.on('data', (d) => (out += d));
    proc.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`'${command}' failed (${code}): ${out}`))));
  });
}

/** Documents through each tenant's alias, as a storefront sees them. */
export async function aliasCounts(ids) {
  await es.indices.refresh({ index: ids.map((id) => `tenant-${id}`).join(','), ignore_unavailable: true });
  const res = await es.msearch({ searches: ids.flatMap((id) => [{ index: `tenant-${id}` }, { size: 0, track_total_hits: true }]) });
  return new Map(res.responses.map((r, k) => [ids[k], r.error ? null : r.hits.total.value]));
}
