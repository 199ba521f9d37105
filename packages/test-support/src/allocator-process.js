// A real allocator (allocator/src/main.js as a child process, exactly as `make up` starts it) on
// a free loopback port with the index prefix a test run chose, so runs never collide with the
// lab's own tenants or each other. Used by the allocator's and the seeder's integration tests
// and by both benchmarks.
import { AllocatorClient } from '@tenantlab/contract/allocator-client';
import { spawn } from 'node:child_process';
import { freePort, sleep } from './net.js';

const allocatorDir = new URL('../../../allocator/', import.meta.url).pathname;

export class AllocatorProcess {
  /** @param env extra environment (e.g. ALLOCATOR_ES_URL); policyFile: ALLOCATOR_POLICY_FILE */
  constructor({ prefix, port, env = {}, policyFile, logLevel = 'warn' }) {
    Object.assign(this, { prefix, port, env, policyFile, logLevel });
    this.url = `http://127.0.0.1:${port}`;
    this.api = new AllocatorClient(this.url);
    this.output = '';
  }

  static async start(opts) {
    const a = new AllocatorProcess({ ...opts, port: opts.port ?? (await freePort()) });
    await a.spawn({ timeoutMs: opts.timeoutMs });
    return a;
  }

  /** Starts the process; resolves once /readyz (or /healthz) answers 200. */
  async spawn({ waitReady = true, timeoutMs = 30000 } = {}) {
    this.proc = spawn(process.execPath, ['src/main.js'], {
      cwd: allocatorDir,
      env: {
        ...process.env,
        ALLOCATOR_PORT: String(this.port),
        ALLOCATOR_LISTEN_HOST: '127.0.0.1',
        ALLOCATOR_INDEX_PREFIX: this.prefix,
        ALLOCATOR_LOG_LEVEL: this.logLevel,
        ALLOCATOR_STATS_INTERVAL_MS: '2000',
        ...(this.policyFile ? { ALLOCATOR_POLICY_FILE: this.policyFile } : {}),
        ...this.env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.proc.stdout.on('data', (d) => (this.output += d));
    this.proc.stderr.on('data', (d) => (this.output += d));
    this.exited = new Promise((r) => this.proc.on('exit', r));
    try {
      await this.api.waitUntil({ path: waitReady ? '/readyz' : '/healthz', timeoutMs, alive: () => this.proc.exitCode === null });
    } catch {
      throw new Error(`allocator did not become ready:\n${this.output}`);
    }
  }

  async kill(signal = 'SIGKILL') {
    if (this.proc.exitCode !== null) return;
    this.proc.kill(signal);
    await this.exited;
  }

  /** SIGTERM, then SIGKILL if it has not exited within 5 s. */
  async stop() {
    if (this.proc.exitCode !== null) return;
    this.proc.kill('SIGTERM');
    await Promise.race([this.exited, sleep(5000)]);
    if (this.proc.exitCode === null) await this.kill('SIGKILL');
  }

  /** { status, body, headers } of one API call, whatever the status. */
  request(method, path, body, opts) {
    return this.api.request(method, path, body, opts);
  }

  /** A job once it is over (polled every 200 ms); throws after timeoutMs. */
  waitJob(id, { timeoutMs = 120000 } = {}) {
    return this.api.waitJob(id, { timeoutMs, intervalMs: 200 });
  }
}
