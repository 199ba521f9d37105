// JSON Schemas of the API: they validate requests (unknown fields are errors, not silently
// dropped) and are the source of /openapi.json.
import { PHASES } from '../moves/procedure.js';
import { TENANT_ID_PATTERN } from '@tenantlab/contract/naming';

export const error = {
  $id: 'Error',
  type: 'object',
  required: ['error', 'message'],
  properties: { error: { type: 'string', description: 'machine-readable code' }, message: { type: 'string' } },
};

const errorRef = { $ref: 'Error#' };
export const errors = (...codes) => Object.fromEntries(codes.map((c) => [c, errorRef]));

export const tenantIdParam = {
  type: 'object',
  required: ['id'],
  additionalProperties: false,
  properties: { id: { type: 'string', pattern: TENANT_ID_PATTERN, description: 'tenant id' } },
};

export const tenantSpec = {
  $id: 'TenantSpec',
  type: 'object',
  additionalProperties: false,
  required: ['id', 'name', 'expected_products'],
  properties: {
    id: { type: 'string', pattern: TENANT_ID_PATTERN, description: 'store id; also the store_id of its documents' },
    name: { type: 'string', minLength: 1, maxLength: 200 },
    expected_products: { type: 'integer', minimum: 0, maximum: 1e9, description: 'expected product count (drives shared vs dedicated)' },
    traffic_weight: { type: 'number', minimum: 0, maximum: 1e6, default: 1, description: 'relative traffic; independent of size' },
    group: { type: 'string', minLength: 1, maxLength: 100, description: 'pin to an index group' },
    dedicated: { type: 'boolean', description: 'force (true) or forbid (false) a dedicated index' },
  },
};

export const tenant = {
  $id: 'Tenant',
  type: 'object',
  additionalProperties: true,
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    expected_products: { type: 'integer' },
    traffic_weight: { type: 'number' },
    group: { type: 'string' },
    index: { type: 'string' },
    kind: { type: 'string', enum: ['shared', 'dedicated'] },
    alias: { type: 'string' },
    state: { type: 'string', enum: ['active', 'moving', 'deleting'] },
    job_id: { type: ['string', 'null'] },
    documents: { type: 'integer', description: 'documents visible through the alias' },
    search_rate: { type: 'number', description: 'shard-level searches/s tagged with stats group tenant-<id>, over the observation window' },
    cost: { type: 'object', additionalProperties: true, description: 'observed over the window: search rate, search time (ms/s), share of its index and group, write rate' },
    hot: { type: ['object', 'null'], additionalProperties: true, description: 'the evidence when the tenant is flagged hot' },
  },
};

export const moveRequest = {
  $id: 'MoveRequest',
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: {
    group: { type: 'string', minLength: 1, maxLength: 100, description: 'target group (index with most headroom there)' },
    index: { type: 'string', pattern: '^[a-z0-9][a-z0-9._-]{0,254}$', description: 'target shared index' },
    dedicated: { type: 'boolean', description: 'true: a dedicated index (in group, or the current group)' },
  },
};

export const job = {
  $id: 'Job',
  type: 'object',
  additionalProperties: true,
  properties: {
    id: { type: 'string' },
    type: { type: 'string', enum: ['move', 'rebalance'] },
    state: { type: 'string', enum: ['queued', 'running', 'succeeded', 'failed'] },
    phase: { type: 'string', enum: PHASES },
    tenant: { type: 'string' },
    trigger: { type: 'string', enum: ['api', 'rebalance', 'auto'], description: 'who asked for the move' },
    reason: { type: ['string', 'null'], description: 'why: the numbers behind a planned or automatic move' },
    documents_copied: { type: 'integer' },
    documents_skipped: { type: 'integer' },
    documents_deleted: { type: 'integer' },
    rate_docs_per_s: { type: 'number' },
    errors: { type: 'array', items: { type: 'object', additionalProperties: true } },
  },
};

export const plan = {
  $id: 'RebalancePlan',
  type: 'object',
  additionalProperties: true,
  properties: {
    by: { type: 'string', enum: ['observed', 'static'], description: 'what the plan weighed: observed search cost or declared traffic weights' },
    observed_enough: { type: 'boolean', description: 'the observation window holds enough searches to plan by' },
    window_s: { type: 'number' },
    hot: { type: 'array', items: { type: 'string' } },
    tolerance: { type: 'number' },
    mean: { type: ['number', 'null'] },
    balanced: { type: 'boolean' },
    before: { type: 'array', items: { type: 'object', additionalProperties: true } },
    after: { type: 'array', items: { type: 'object', additionalProperties: true } },
    moves: { type: 'array', items: { type: 'object', additionalProperties: true } },
  },
};

export const shared = [error, tenantSpec, tenant, moveRequest, job, plan];
