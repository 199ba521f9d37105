// The allocator as a child process of another program (src/main.js, exactly as `make up` starts
// it), on a free loopback port with the index prefix its caller chose, so it never collides with
// the lab's own tenants or another run. The experiments' closed loop runs the real allocator this
// way, and so do the integration tests and the benchmarks of the allocator and the seeder.
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { AllocatorClient } from '@tenantlab/contract/allocator-client';

const allocatorDir = new URL('..', import.meta.url).pathname;

/** A loopback port nobody listens on right now. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

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
