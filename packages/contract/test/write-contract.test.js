import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { actionLine, bulkAction, bulkLines, productAction, productLines, versionOf } from '../src/write-contract.js';

const cli = new URL('../bin/bulk-lines', import.meta.url).pathname;

test('the version is updated_at in epoch ms', () => {
  assert.equal(versionOf(1700000000123), 1700000000123);
  assert.equal(versionOf('2024-01-01T00:00:00.250Z'), 1704067200250);
  assert.throws(() => versionOf('yesterday'), /not a time/);
  assert.throws(() => versionOf(-1), /not a time/);
});

test('actions: external_gte, the id <tenant>:<product>, through the alias', () => {
  assert.deepEqual(productAction({ tenant: 's-1', product: 7, version: 5 }), { index: { _index: 'tenant-s-1', _id: 's-1:7', version: 5, version_type: 'external_gte' } });
  assert.deepEqual(productAction({ tenant: 's-1', product: 7, version: 5, alias: false }), { index: { _id: 's-1:7', version: 5, version_type: 'external_gte' } });
  assert.deepEqual(bulkAction({ index: 'i', id: 'a:1', version: 3, routing: 'r', op: 'delete' }), { delete: { _index: 'i', _id: 'a:1', version: 3, version_type: 'external_gte', routing: 'r' } });
});

test('the fast action line is byte for byte the action object', () => {
  const item = { tenant: 's-1', id: 's-1:"odd"', version: 1700000000001 };
  assert.equal(actionLine(item), JSON.stringify(productAction({ tenant: 's-1', product: '"odd"', version: item.version })));
  assert.equal(bulkLines({ ...item, source: '{"a":1}' }), `${actionLine(item)}\n{"a":1}\n`);
  assert.equal(bulkLines({ ...item, source: { a: 1 } }), `${actionLine(item)}\n{"a":1}\n`);
  // another alias of the same tenant (the experiment runner's layouts): only _index changes
  assert.equal(actionLine({ ...item, alias: 'exp-r1-1x8-t-s-1' }), actionLine(item).replace('"tenant-s-1"', '"exp-r1-1x8-t-s-1"'));
  assert.equal(bulkLines({ ...item, alias: 'x', source: '{}' }), `${actionLine({ ...item, alias: 'x' })}\n{}\n`);
});

test('product lines from a document, and the bash CLI', () => {
  const doc = { store_id: 't', product_id: '3', name: 'x', updated_at: 1700000000003 };
  const want = `{"index":{"_index":"tenant-t","_id":"t:3","version":1700000000003,"version_type":"external_gte"}}\n${JSON.stringify(doc)}\n`;
  assert.equal(productLines(doc), want);
  assert.equal(execFileSync(cli, { input: `${JSON.stringify(doc)}\n\n${JSON.stringify(doc)}\n`, encoding: 'utf8' }), want + want);
  const bad = spawnSync(cli, { input: '{"store_id":"t"}\n{nope\n', encoding: 'utf8' });
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /^error: bulk-lines: stdin:1: updated_at 'undefined' is not a time/);
});
