import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as n from '../src/naming.js';

test('tenant ids', () => {
  for (const ok of ['a', 's-1', 'ci-0019', 'x'.repeat(63)]) assert.ok(n.isTenantId(ok), ok);
  for (const bad of ['', '-a', 'A', 'a_b', 'a b', 'x'.repeat(64), 3, null]) assert.ok(!n.isTenantId(bad), String(bad));
});

test('alias, stats group and document id', () => {
  assert.equal(n.aliasFor('s-1'), 'tenant-s-1');
  assert.equal(n.ALIAS_PATTERN, 'tenant-*');
  assert.equal(n.tenantOfAlias('tenant-s-1'), 's-1');
  assert.equal(n.tenantOfAlias('other'), null);
  assert.equal(n.statsGroupFor('s-1'), 'tenant-s-1');
  assert.equal(n.tenantOfStatsGroup(n.statsGroupFor('s-1')), 's-1');
  assert.equal(n.STATS_GROUP_PATTERN, 'tenant-*');
  assert.equal(n.documentId('s-1', 42), 's-1:42');
});

test('index names carry their group and round-trip their sequence', () => {
  assert.equal(n.productsPattern('tenantlab-'), 'tenantlab-products-*');
  assert.equal(n.sharedIndexName('tenantlab-', 'G1', 3), 'tenantlab-products-g1-s0003');
  assert.equal(n.sharedIndexName('p-', 'zone a/b', 12345), 'p-products-zone_a_b-s12345');
  assert.equal(n.dedicatedIndexName('tenantlab-', 'g2', 'big'), 'tenantlab-products-g2-t-big');
  assert.equal(n.sharedSeq(n.sharedIndexName('tenantlab-', 'g1', 7)), 7);
  assert.equal(n.sharedSeq('tenantlab-products-g1-t-big'), 0);
});
