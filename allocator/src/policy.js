// The placement policy: how big shared indices are, when a tenant gets its own index, and
// how a move copies. Lab-scaled numbers: "documents" stands in for Elastic's 10-50 GB/shard.
import { readFileSync } from 'node:fs';
import Ajv from 'ajv';

export const policySchema = {
  type: 'object',
  additionalProperties: false,
  required: ['shared', 'dedicated'],
  properties: {
    shared: {
      type: 'object',
      additionalProperties: false,
      required: ['shards', 'replicas', 'capacity'],
      properties: {
        shards: { type: 'integer', minimum: 1, maximum: 64 },
        replicas: { type: 'integer', minimum: 0, maximum: 8 },
        capacity: {
          type: 'object',
          additionalProperties: false,
          required: ['tenants', 'documents', 'traffic'],
          properties: {
            tenants: { type: 'integer', minimum: 1 },
            documents: { type: 'integer', minimum: 1 },
            traffic: { type: 'number', exclusiveMinimum: 0 },
          },
        },
      },
    },
    dedicated: {
      type: 'object',
      additionalProperties: false,
      required: ['minProducts', 'replicas', 'productsPerShard', 'maxShards'],
      properties: {
        minProducts: { type: 'integer', minimum: 1 },
        replicas: { type: 'integer', minimum: 0, maximum: 8 },
        productsPerShard: { type: 'integer', minimum: 1 },
        maxShards: { type: 'integer', minimum: 1, maximum: 64 },
      },
    },
    routing: {
      type: 'object',
      additionalProperties: false,
      properties: { byTenant: { type: 'boolean', default: false } },
      default: {},
    },
    balance: {
      type: 'object',
      additionalProperties: false,
      properties: {
        tolerance: { type: 'number', exclusiveMinimum: 0, maximum: 1, default: 0.15 },
        maxMoves: { type: 'integer', minimum: 1, default: 50 },
      },
      default: {},
    },
    observe: {
      type: 'object',
      additionalProperties: false,
      properties: {
        windowS: { type: 'integer', minimum: 10, maximum: 3600, default: 60, description: 'sliding window of observed cost, seconds' },
        minQueries: { type: 'integer', minimum: 1, default: 50, description: 'shard queries a group needs in the window before it is judged' },
        probeIntervalMs: { type: 'integer', minimum: 100, maximum: 60000, default: 1000, description: 'ms between two storefront-shaped probe searches on each group (observe/probe.js)' },
      },
      default: {},
    },
    hot: {
      type: 'object',
      additionalProperties: false,
      properties: {
        share: { type: 'number', exclusiveMinimum: 0, maximum: 1, default: 0.3, description: "a tenant's share of its group's search time from which it is hot" },
        objectiveMs: {
          type: 'object',
          description: "absolute latency objective per group: the p95 in ms of what its shoppers feel (their requests while a load run is scraped, else the probe searches), \"default\" for the others",
          propertyNames: { pattern: '^[a-z0-9_-]+$' },
          additionalProperties: { type: 'number', exclusiveMinimum: 0 },
          default: { default: 100 },
        },
        relative: { type: 'number', exclusiveMinimum: 1, default: 1.3, description: "a group also misses its objective when its p95 is above this times its own baseline p95" },
        minRiseMs: { type: 'number', minimum: 0, default: 20, description: 'the relative objective counts only when the p95 is at least this many ms above the baseline (an idle group\'s jitter never does)' },
        shareRise: { type: 'number', minimum: 0, exclusiveMaximum: 1, default: 0.15, description: "a tenant of a group that misses its objective is its culprit only if its share is at least this much above its own normal share of the group (observe/share-normal.js)" },
        shareRiseSd: { type: 'number', minimum: 0, maximum: 10, default: 4, description: "and at least this many standard deviations of the tenant's normal share (how much it varies over windows of steady traffic); the larger of the two rises is asked" },
        baselineS: { type: 'integer', minimum: 10, maximum: 86400, default: 600, description: "trailing window (s) over which a group's baseline p95 is learned, while none of its tenants is flagged" },
        dedicated: { type: 'boolean', default: false, description: 'isolate a hot tenant in a dedicated index (else a shared one) of the target group' },
      },
      default: {},
    },
    auto: {
      type: 'object',
      additionalProperties: false,
      properties: {
        enabled: { type: 'boolean', default: false, description: 'move a hot tenant without being asked' },
        coolDownS: { type: 'integer', minimum: 0, default: 300, description: 'after an automatic move: no other one, and not this tenant again, for this long' },
      },
      default: {},
    },
    move: {
      type: 'object',
      additionalProperties: false,
      properties: {
        batchSize: { type: 'integer', minimum: 1, maximum: 10000, default: 1000 },
        drainMs: { type: 'integer', minimum: 0, default: 2000 },
        maxPasses: { type: 'integer', minimum: 2, default: 5 },
        gcDeletes: { type: 'string', pattern: '^[0-9]+(ms|s|m|h|d)$', default: '1h' },
        keepAlive: { type: 'string', pattern: '^[0-9]+(ms|s|m|h)$', default: '2m' },
      },
      default: {},
    },
  },
};

const validate = new Ajv({ useDefaults: true, allErrors: true }).compile(policySchema);

/** Validates a policy object (filling defaults in a copy); throws one readable error. */
export function parsePolicy(raw, source = 'policy') {
  const policy = structuredClone(raw);
  if (!validate(policy)) {
    // the key as policy.json spells it (hot.relative), not as a JSON pointer
    const why = validate.errors.map((e) => `${e.instancePath.slice(1).replaceAll('/', '.') || 'the policy'} ${e.message}`).join('; ');
    throw new Error(`${source}: invalid policy: ${why}`);
  }
  if (policy.hot.objectiveMs.default === undefined) policy.hot.objectiveMs.default = 100;
  const { observe, hot } = policy;
  if (observe.probeIntervalMs > observe.windowS * 1000) {
    throw new Error(`${source}: invalid policy: observe.probeIntervalMs (${observe.probeIntervalMs} ms) is longer than observe.windowS (${observe.windowS} s): the window would hold no probe; shorten the interval or widen the window`);
  }
  if (hot.baselineS < observe.windowS) {
    throw new Error(`${source}: invalid policy: hot.baselineS (${hot.baselineS} s) is shorter than observe.windowS (${observe.windowS} s): a baseline is learned over whole windows; make it at least ${observe.windowS}`);
  }
  return Object.freeze(policy);
}

/** The latency objective of `group` (ms per shard query). */
export const objectiveOf = (policy, group) => policy.hot.objectiveMs[group] ?? policy.hot.objectiveMs.default;

/**
 * A policy's objectives may only name groups the lab has (plus "default"): a typo would
 * otherwise silently leave the group on the default objective. One line naming the key.
 */
export function checkPolicyGroups(policy, groups, source = 'policy') {
  const unknown = Object.keys(policy.hot.objectiveMs).filter((g) => g !== 'default' && !groups.includes(g));
  if (unknown.length) {
    throw new Error(`${source}: hot.objectiveMs names group ${unknown.join(', ')}, which the lab does not have (groups: ${groups.join(', ')}; or "default")`);
  }
}

export function loadPolicy(file) {
  let raw;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new Error(`${file}: ${err.message}`);
  }
  return parsePolicy(raw, file);
}
