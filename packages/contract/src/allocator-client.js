// A client of the allocator's HTTP API (allocator/README.md), the one every node consumer uses:
// the allocator's CLI, the seeder, the test harnesses and the benchmarks. Node 24 (fetch).
// Failures are AllocatorClientError with a `kind` the caller maps to its own exit code:
// 'unreachable' (nothing answers), 'unavailable' (503: the cluster behind it is not ready),
// 'refused' (any other 4xx/5xx: the API said no).
import { AllocatorClientError } from './errors.js';

export { AllocatorClientError };

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** The allocator's URL: ALLOCATOR_URL, else http://LAB_BIND:ALLOCATOR_PORT (lab.env's keys). */
export function allocatorUrl(env = {}) {
  if (env.ALLOCATOR_URL) return env.ALLOCATOR_URL;
  const host = !env.LAB_BIND || env.LAB_BIND === '0.0.0.0' ? '127.0.0.1' : env.LAB_BIND;
  return `http://${host}:${env.ALLOCATOR_PORT || '8080'}`;
}

/** Why a fetch failed, in a word or two (ECONNREFUSED -> 'connection refused'). */
function whyUnreachable(err) {
  const code = err.cause?.code ?? err.cause?.errors?.[0]?.code;
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (err.name === 'TimeoutError') return 'timed out';
  return code ?? err.cause?.message ?? err.message;
}

/** A job is over when it succeeded or failed (a resumable job is not over: it resumes). */
export const jobFinished = (job) => job.state === 'succeeded' || job.state === 'failed' || job.state === 'rolled_back';

export class AllocatorClient {
  /** @param url the allocator's base URL; timeoutMs per request */
  constructor(url, { timeoutMs = 120000 } = {}) {
    this.url = String(url).replace(/\/+$/, '');
    this.timeoutMs = timeoutMs;
  }

  /**
   * One request, whatever the status: { status, body (JSON, else text), headers }. Throws
   * AllocatorClientError('unreachable') when nothing answers. `raw` sends a body as is.
   */
  async request(method, path, body, { raw, headers = {} } = {}) {
    const init = { method, headers: { ...headers }, signal: AbortSignal.timeout(this.timeoutMs) };
    if (raw !== undefined) {
      init.body = raw;
      init.headers['content-type'] ??= 'application/json';
    } else if (body !== undefined) {
      init.body = JSON.stringify(body);
      init.headers['content-type'] = 'application/json';
    }
    let res;
    try {
      res = await fetch(`${this.url}${path}`, init);
    } catch (err) {
      throw new AllocatorClientError(`allocator not reachable at ${this.url} (${whyUnreachable(err)}): is the lab up? (make up)`, { kind: 'unreachable' });
    }
    const text = await res.text();
    let json;
    try {
      json = JSON.parse(text);
    } catch {
      json = text;
    }
    return { status: res.status, body: json, headers: res.headers };
  }

  /** The body of a 2xx answer; any other status throws AllocatorClientError naming the call. */
  async call(method, path, body) {
    const res = await this.request(method, path, body);
    if (res.status < 300) return res.body;
    throw this.error(`${method} ${path}`, res);
  }

  /** The error of a refused call: `what: STATUS code: message`. */
  error(what, { status, body }) {
    const code = typeof body === 'object' && body ? body.error ?? null : null;
    const msg = (typeof body === 'object' && body ? body.message : null) ?? (typeof body === 'string' && body ? body.slice(0, 200) : `HTTP ${status}`);
    return new AllocatorClientError(`${what}: ${status}${code ? ` ${code}` : ''}: ${msg}`, { kind: status === 503 ? 'unavailable' : 'refused', status, code, detail: msg });
  }

  /** True when the allocator answers /readyz with 200 (its cluster is usable). */
  async isReady() {
    try {
      return (await this.request('GET', '/readyz')).status === 200;
    } catch {
      return false;
    }
  }

  /** Throws unless ready: 'unreachable', or 'unavailable' with the allocator's reason. */
  async requireReady() {
    const { status, body } = await this.request('GET', '/readyz');
    if (status !== 200) throw new AllocatorClientError(`allocator at ${this.url} is not ready: ${body?.reason ?? body?.message ?? `HTTP ${status}`}`, { kind: 'unavailable', status });
  }

  /** Polls until the allocator answers `path` (default /readyz) with 200, or throws after timeoutMs. */
  async waitUntil({ path = '/readyz', timeoutMs = 30000, intervalMs = 200, alive = () => true } = {}) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      try {
        if ((await this.request('GET', path)).status === 200) return;
      } catch {}
      if (Date.now() > deadline || !alive()) throw new AllocatorClientError(`allocator at ${this.url} did not answer ${path} with 200`, { kind: 'unreachable' });
      await sleep(intervalMs);
    }
  }

  async listTenants() {
    return (await this.call('GET', '/tenants')).tenants;
  }

  getTenant(id) {
    return this.call('GET', `/tenants/${encodeURIComponent(id)}`);
  }

  /** Creates (201) or confirms (200) a tenant: { created, tenant }. */
  async createTenant(spec) {
    const res = await this.request('POST', '/tenants', spec);
    if (res.status === 200 || res.status === 201) return { created: res.status === 201, tenant: res.body };
    throw this.error(`POST /tenants ${spec.id}`, res);
  }

  /**
   * Creates (or confirms) many tenants in one request, all or nothing (POST /tenants/_bulk):
   * [{ created, tenant }] in the order given.
   */
  async createTenants(specs) {
    const res = await this.request('POST', '/tenants/_bulk', { tenants: specs });
    if (res.status === 200 || res.status === 201) return res.body.tenants;
    throw this.error(`POST /tenants/_bulk (${specs.length} tenants)`, res);
  }

  /** Deletes a tenant: the API's answer, or null when there was no such tenant (404). */
  async deleteTenant(id) {
    const res = await this.request('DELETE', `/tenants/${encodeURIComponent(id)}`);
    if (res.status === 200) return res.body;
    if (res.status === 404) return null;
    throw this.error(`DELETE /tenants/${id}`, res);
  }

  /** Starts a move ({ group } | { index } | { dedicated: true }); resolves the job. */
  moveTenant(id, target) {
    return this.call('POST', `/tenants/${encodeURIComponent(id)}/move`, target);
  }

  getJob(id) {
    return this.call('GET', `/jobs/${encodeURIComponent(id)}`);
  }

  groups() {
    return this.call('GET', '/groups');
  }

  planRebalance() {
    return this.call('GET', '/plan/rebalance');
  }

  rebalance() {
    return this.call('POST', '/rebalance');
  }

  /** Polls a job until it is over; onPoll(job) sees every state on the way. */
  async waitJob(id, { timeoutMs = Infinity, intervalMs = 500, onPoll } = {}) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const job = await this.getJob(id);
      if (jobFinished(job)) return job;
      onPoll?.(job);
      if (Date.now() > deadline) throw new AllocatorClientError(`job ${id} still ${job.state} (${job.phase}) after ${timeoutMs} ms`, { kind: 'refused' });
      await sleep(intervalMs);
    }
  }
}
