// The allocator's HTTP API, as far as seeding needs it. Placement is the allocator's call: the
// seeder only says who the tenant is, how big it expects to be and how much traffic it gets.
import { ServiceError, UsageError } from './errors.js';

export class AllocatorApi {
  constructor(url) {
    this.url = url.replace(/\/+$/, '');
  }

  async #call(method, path, body) {
    let res;
    try {
      res = await fetch(`${this.url}${path}`, {
        method,
        headers: body ? { 'content-type': 'application/json' } : {},
        body: body ? JSON.stringify(body) : undefined,
        signal: AbortSignal.timeout(120000),
      });
    } catch (err) {
      const why = err.cause?.code === 'ECONNREFUSED' ? 'connection refused' : (err.cause?.code ?? err.cause?.message ?? err.message);
      throw new ServiceError(`allocator not reachable at ${this.url} (${why}): is the lab up? (make up)`);
    }
    const text = await res.text();
    let json = null;
    try {
      json = JSON.parse(text);
    } catch {}
    return { status: res.status, body: json ?? text };
  }

  async requireReady() {
    const { status, body } = await this.#call('GET', '/readyz');
    if (status !== 200) throw new ServiceError(`allocator at ${this.url} is not ready: ${body?.reason ?? body?.message ?? `HTTP ${status}`}`);
  }

  async listTenants() {
    const { status, body } = await this.#call('GET', '/tenants');
    if (status !== 200) throw this.#error('GET /tenants', status, body);
    return body.tenants;
  }

  /** Creates (201) or confirms (200) a tenant; a different existing spec is the user's problem. */
  async createTenant(spec) {
    const { status, body } = await this.#call('POST', '/tenants', spec);
    if (status === 200 || status === 201) return { created: status === 201, tenant: body };
    if (status === 409 && body?.error === 'tenant_conflict') {
      throw new UsageError(`tenant ${spec.id} already exists with a different spec (${body.message}): delete it first (tenantlab-seed delete) or use another --seed/--tenant-prefix`);
    }
    throw this.#error(`POST /tenants ${spec.id}`, status, body);
  }

  async deleteTenant(id) {
    const { status, body } = await this.#call('DELETE', `/tenants/${encodeURIComponent(id)}`);
    if (status === 200 || status === 404) return status === 200;
    throw this.#error(`DELETE /tenants/${id}`, status, body);
  }

  #error(what, status, body) {
    const msg = body?.message ?? (typeof body === 'string' ? body.slice(0, 200) : `HTTP ${status}`);
    return status === 503 ? new ServiceError(`allocator: ${what}: ${msg}`) : new ServiceError(`allocator refused ${what} (${status}): ${msg}`);
  }
}

/** Fields of a stored tenant that differ from the spec we would send. */
export function specDifferences(stored, spec) {
  return ['name', 'expected_products', 'traffic_weight'].filter((k) => stored[k] !== spec[k]).map((k) => `${k} is ${JSON.stringify(stored[k])}, not ${JSON.stringify(spec[k])}`);
}
