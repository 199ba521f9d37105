// The allocator's HTTP API as the seeder uses it: the lab's one client
// (packages/contract/src/allocator-client.js) with its failures turned into the seeder's exit
// codes: nothing answering or a refusal is a ServiceError (3), a tenant that exists with
// another spec is the user's problem (UsageError, 2). Placement is the allocator's call: the
// seeder only says who the tenant is, how big it expects to be and how much traffic it gets.
import { AllocatorClient, AllocatorClientError } from '@tenantlab/contract/allocator-client';
import { ServiceError, UsageError } from './errors.js';

function seedError(err, spec) {
  if (!(err instanceof AllocatorClientError)) return err;
  if (err.code === 'tenant_conflict' && spec) {
    return new UsageError(`tenant ${spec.id} already exists with a different spec (${err.detail}): delete it first (tenantlab-seed delete) or use another --seed/--tenant-prefix`);
  }
  return new ServiceError(err.kind === 'unreachable' || err.message.startsWith('allocator') ? err.message : `allocator: ${err.message}`);
}

export class AllocatorApi extends AllocatorClient {
  async requireReady() {
    await super.requireReady().catch((err) => { throw seedError(err); });
  }

  async listTenants() {
    return super.listTenants().catch((err) => { throw seedError(err); });
  }

  /** Creates (201) or confirms (200) a tenant: { created, tenant }. */
  async createTenant(spec) {
    return super.createTenant(spec).catch((err) => { throw seedError(err, spec); });
  }

  /** Creates (or confirms) many tenants in one request, all or nothing: [{ created, tenant }]. */
  async createTenants(specs) {
    return super.createTenants(specs).catch((err) => {
      if (err instanceof AllocatorClientError && err.code === 'tenant_conflict') throw new UsageError(`${err.detail}: delete them first (tenantlab-seed delete) or use another --seed/--tenant-prefix`);
      throw seedError(err);
    });
  }

  /** True when the tenant was deleted, false when there was none. */
  async deleteTenant(id) {
    return super.deleteTenant(id).then((r) => r !== null, (err) => { throw seedError(err); });
  }
}

/** Fields of a stored tenant that differ from the spec we would send. */
export function specDifferences(stored, spec) {
  return ['name', 'expected_products', 'traffic_weight'].filter((k) => stored[k] !== spec[k]).map((k) => `${k} is ${JSON.stringify(stored[k])}, not ${JSON.stringify(spec[k])}`);
}
