import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { loadConfig } from '../../src/config.js';
import { parsePolicy } from '../../src/policy.js';

describe('config', () => {
  // lab.env's own rules are tested with its parser (packages/contract/test/lab-env.test.js)
  it('reads lab.env lines with the lab parser and rejects anything else', () => {
    const dir = mkdtempSync(join(tmpdir(), 'alloc-'));
    writeFileSync(join(dir, 'lab.env'), '# c\n\nALLOCATOR_PORT=1\nB_2=x,y\n');
    assert.equal(loadConfig({ LAB_ENV_FILE: join(dir, 'lab.env') }).port, 1);
    writeFileSync(join(dir, 'lab.env'), '# c\nA = 1\n');
    assert.throws(() => loadConfig({ LAB_ENV_FILE: join(dir, 'lab.env') }), { message: `error: ${join(dir, 'lab.env')}:2: not a KEY=VALUE line: A = 1` });
  });

  it('reads lab.env and lets the environment win', () => {
    const dir = mkdtempSync(join(tmpdir(), 'alloc-'));
    writeFileSync(join(dir, 'lab.env'), 'LAB_BIND=127.0.0.2\nALLOCATOR_PORT=8080\nES_MASTER_HTTP_PORT=9200\nLAB_GROUP_ATTR=index_group\n');
    const c = loadConfig({ LAB_ENV_FILE: join(dir, 'lab.env'), ALLOCATOR_PORT: '9999' });
    assert.equal(c.host, '127.0.0.2');
    assert.equal(c.port, 9999);
    assert.equal(c.esUrl, 'http://127.0.0.2:9200');
    assert.equal(c.groupAttr, 'index_group');
    assert.throws(() => loadConfig({ LAB_ENV_FILE: join(dir, 'lab.env'), ALLOCATOR_PORT: '-1' }), /ALLOCATOR_PORT/);
    assert.throws(() => loadConfig({ LAB_ENV_FILE: join(dir, 'lab.env'), ALLOCATOR_INDEX_PREFIX: 'Bad*' }), /PREFIX/);
  });

  it('validates the policy and fills defaults', () => {
    const base = { shared: { shards: 1, replicas: 0, capacity: { tenants: 1, documents: 1, traffic: 1 } }, dedicated: { minProducts: 1, replicas: 0, productsPerShard: 1, maxShards: 1 } };
    const p = parsePolicy(base);
    assert.equal(p.balance.tolerance, 0.15);
    assert.equal(p.routing.byTenant, false);
    assert.throws(() => parsePolicy({ ...base, extra: 1 }), /must NOT have additional properties/);
    assert.throws(() => parsePolicy({ ...base, shared: { ...base.shared, shards: 0 } }), /shards must be >= 1/);
  });
});
