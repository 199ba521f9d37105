// Runs the real allocator (as a child process, exactly as `make up` would) against the real
// cluster, on a free loopback port and with a unique index prefix so runs never collide, and
// removes everything it created afterwards.
import { Client } from '@elastic/elasticsearch';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before } from 'node:test';
import { loadConfig } from '../../src/config.js';

const allocatorDir = new URL('../..', import.meta.url).pathname;
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
export const labConfig = loadConfig({ ...process.env, ALLOCATOR_PORT: '0' });
export const es = new Client({ node: labConfig.esUrl, requestTimeout: 30000 });

export function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

/** True when the cluster behind `client` answers and is not red (shared with seed-data's tests). */
export async function clusterHealthy(client) {
  try {
    const h = await client.cluster.health({ timeout: '5s' });
    return h.status !== 'red';
  } catch {
    return false;
  }
}

export const clusterUp = () => clusterHealthy(es);

export function uniquePrefix() {
  return `tlit${randomBytes(3).toString('hex')}-`;
}

/** A policy for tests: the lab policy with shorter waits. */
export function testPolicyFile(overrides = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'tl-policy-'));
  const policy = structuredClone(labConfig.policy);
  policy.move = { ...policy.move, drainMs: 1000, batchSize: 500, ...overrides.move };
  Object.assign(policy.shared, overrides.shared ?? {});
  const file = join(dir, 'policy.json');
  writeFileSync(file, JSON.stringify(policy));
  return file;
}

export class AllocatorProcess {
  constructor({ prefix, port, env = {}, policyFile }) {
    Object.assign(this, { prefix, port, env, policyFile });
    this.url = `http://127.0.0.1:${port}`;
    this.output = '';
  }

  static async start(opts) {
    const a = new AllocatorProcess({ ...opts, port: opts.port ?? (await freePort()) });
    await a.spawn();
    return a;
  }

  async spawn({ waitReady = true } = {}) {
    this.proc = spawn(process.execPath, ['src/main.js'], {
      cwd: allocatorDir,
      env: {
        ...process.env,
        ALLOCATOR_PORT: String(this.port),
        ALLOCATOR_LISTEN_HOST: '127.0.0.1',
        ALLOCATOR_INDEX_PREFIX: this.prefix,
        ALLOCATOR_LOG_LEVEL: 'warn',
        ALLOCATOR_STATS_INTERVAL_MS: '2000',
        ...(this.policyFile ? { ALLOCATOR_POLICY_FILE: this.policyFile } : {}),
        ...this.env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.proc.stdout.on('data', (d) => (this.output += d));
    this.proc.stderr.on('data', (d) => (this.output += d));
    this.exited = new Promise((r) => this.proc.on('exit', r));
    const deadline = Date.now() + 30000;
    for (;;) {
      try {
        const res = await fetch(`${this.url}/${waitReady ? 'readyz' : 'healthz'}`);
        if (res.status === 200) return;
      } catch {}
      if (Date.now() > deadline) throw new Error(`allocator did not become ready:\n${this.output}`);
      await sleep(200);
    }
  }

  async kill(signal = 'SIGKILL') {
    if (this.proc.exitCode !== null) return;
    this.proc.kill(signal);
    await this.exited;
  }

  async request(method, path, body, { raw, headers = {} } = {}) {
    const init = { method, headers: { ...headers } };
    if (raw !== undefined) {
      init.body = raw;
      init.headers['content-type'] ??= 'application/json';
    } else if (body !== undefined) {
      init.body = JSON.stringify(body);
      init.headers['content-type'] = 'application/json';
    }
    const res = await fetch(`${this.url}${path}`, init);
    const text = await res.text();
    let json;
    try {
      json = JSON.parse(text);
    } catch {
      json = text;
    }
    return { status: res.status, body: json, headers: res.headers };
  }

  async waitJob(id, { timeoutMs = 120000 } = {}) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const { body } = await this.request('GET', `/jobs/${id}`);
      if (body.state === 'succeeded' || body.state === 'failed') return body;
      if (Date.now() > deadline) throw new Error(`job ${id} still ${body.state} (${body.phase})`);
      await sleep(200);
    }
  }
}

/** Deletes every index, alias and template this run's prefix created. */
export async function cleanup(prefix) {
  // Wildcard deletes are refused (action.destructive_requires_name): delete by name.
  const rows = await es.cat.indices({ index: `${prefix}*`, format: 'json', h: 'index', expand_wildcards: 'all' }).catch(() => []);
  const names = rows.map((r) => r.index).filter((n) => n.startsWith(prefix));
  if (names.length) await es.indices.delete({ index: names.join(','), ignore_unavailable: true });
  await es.indices.deleteIndexTemplate({ name: `${prefix}products` }).catch(() => {});
}

/**
 * Call inside a describe(): starts one allocator for the suite (after checking the cluster is
 * there) and stops it and removes the prefix's indices afterwards. Returns the allocator, usable
 * from the first test on.
 */
export function allocatorForSuite(prefix) {
  let allocator;
  before(async () => {
    if (!(await clusterUp())) throw new Error(`Elasticsearch is not reachable at ${labConfig.esUrl}; start the lab (make up) first`);
    allocator = await AllocatorProcess.start({ prefix, policyFile: testPolicyFile() });
  });
  after(async () => {
    await allocator?.kill();
    await cleanup(prefix);
  });
  return new Proxy({}, {
    get(_, key) {
      const value = allocator[key];
      return typeof value === 'function' ? value.bind(allocator) : value;
    },
  });
}
