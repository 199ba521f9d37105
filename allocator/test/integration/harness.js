// Runs the real allocator (as a child process, exactly as `make up` would) against the real
// cluster, on a free loopback port and with a unique index prefix so runs never collide, and
// removes everything it created afterwards.
import { Client } from '@elastic/elasticsearch';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before } from 'node:test';
import { clusterHealthy, deletePrefix } from '@tenantlab/test-support/cluster';
import { loadConfig } from '../../src/config.js';
import { AllocatorProcess } from '../../src/process.js';

// The helpers every package's tests share live in packages/test-support; the allocator as a
// child process is the allocator's own (src/process.js).
export { AllocatorProcess, freePort } from '../../src/process.js';
export { setTimeout as sleep } from 'node:timers/promises';
export const labConfig = loadConfig({ ...process.env, ALLOCATOR_PORT: '0' });
export const es = new Client({ node: labConfig.esUrl, requestTimeout: 30000 });

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
  for (const key of ['observe', 'hot', 'auto']) if (overrides[key]) policy[key] = { ...policy[key], ...overrides[key] };
  const file = join(dir, 'policy.json');
  writeFileSync(file, JSON.stringify(policy));
  return file;
}

/** Deletes every index, alias and template this run's prefix created. */
export const cleanup = (prefix) => deletePrefix(es, prefix);

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
