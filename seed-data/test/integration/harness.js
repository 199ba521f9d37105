// The integration tests' view of the lab: the cluster from ES_URL (default: lab.env), the
// allocator from ALLOCATOR_URL, or, when that is not set, an allocator of our own started from
// ../allocator on a free loopback port with a unique index prefix, deleted afterwards.
// Tenant ids carry a unique prefix too, so runs never collide with the lab's own tenants.
import { Client } from '@elastic/elasticsearch';
import { aliasFor } from '@tenantlab/contract/naming';
import { AllocatorProcess } from 'tenantlab-allocator/process';
import { clusterHealthy, deletePrefix } from '@tenantlab/test-support/cluster';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config.js';

export { setTimeout as sleep } from 'node:timers/promises';
const config = loadConfig();
export const esUrl = config.esUrl;
export const es = new Client({ node: esUrl, requestTimeout: 60000 });
const bin = new URL('../../bin/tenantlab-seed', import.meta.url).pathname;
// Load settings recorded by these runs stay out of the lab's own state directory.
const labDir = mkdtempSync(join(tmpdir(), 'seed-it-'));

export const uid = () => randomBytes(3).toString('hex');

export const clusterUp = () => clusterHealthy(es);

export async function startAllocator() {
  if (process.env.ALLOCATOR_URL) return { url: process.env.ALLOCATOR_URL, stop: async () => {} };
  const prefix = `sdit${uid()}-`;
  const allocator = await AllocatorProcess.start({ prefix, env: { ALLOCATOR_ES_URL: esUrl }, timeoutMs: 60000 });
  return {
    url: allocator.url,
    prefix,
    async stop() {
      await allocator.stop();
      await deletePrefix(es, prefix);
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
  await es.indices.refresh({ index: ids.map(aliasFor).join(','), ignore_unavailable: true });
  const res = await es.msearch({ searches: ids.flatMap((id) => [{ index: aliasFor(id) }, { size: 0, track_total_hits: true }]) });
  return new Map(res.responses.map((r, k) => [ids[k], r.error ? null : r.hits.total.value]));
}
