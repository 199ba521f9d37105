// What `make up` (tenantlab-seed ensure) loads on a used lab, and what it only reports.
import assert from 'node:assert/strict';
import { mkdtempSync, existsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { finished, journalFileOf, readUnfinished, started } from '../../src/load/journal.js';
import { describeDrift, planFill, reasonsOf } from '../../src/verify/plan.js';

const T = (id, n) => ({ id, expected_products: n });
const tenants = [T('ci-0001', 100), T('ci-0002', 50), T('ci-0003', 20), T('ci-0004', 10), T('ci-0005', 30), T('ci-0006', 40), T('ci-0007', 60)];

test('missing vs complete vs drift', () => {
  const counts = new Map([
    ['ci-0001', 100], // complete
    ['ci-0002', 51], // a user added a product: drift
    ['ci-0003', 19], // a user deleted a product: drift
    ['ci-0004', 0], // empty: load
    ['ci-0005', 7], // half-loaded by a load that never finished: load
    ['ci-0006', null], // allocator knows it, alias missing: reported, nothing sent
    // ci-0007: created just now (the allocator did not know it)
  ]);
  const plan = planFill({ tenants, created: new Set(['ci-0007']), counts, unfinished: new Set(['ci-0005', 'ci-0001']) });
  assert.deepEqual(plan.load.map((p) => [p.tenant.id, p.reason]), [['ci-0004', 'empty'], ['ci-0005', 'unfinished'], ['ci-0007', 'new']]);
  assert.deepEqual(plan.complete.map((t) => t.id), ['ci-0001'], 'an unfinished load whose count is right is complete: nothing re-sent');
  assert.deepEqual(plan.drift, [
    { id: 'ci-0002', expected: 50, actual: 51, diff: 1 },
    { id: 'ci-0003', expected: 20, actual: 19, diff: -1 },
    { id: 'ci-0006', expected: 40, actual: null, diff: null },
  ]);
  assert.equal(reasonsOf(plan.load), '1 new, 1 empty, 1 unfinished');
});

test('a store off by any amount is drift unless its load never finished', () => {
  for (const actual of [1, 9, 11, 1000]) {
    const counts = new Map([['ci-0004', actual]]);
    assert.equal(planFill({ tenants: [T('ci-0004', 10)], counts }).drift.length, 1, `count ${actual}`);
    assert.deepEqual(planFill({ tenants: [T('ci-0004', 10)], counts, unfinished: new Set(['ci-0004']) }).load.map((p) => p.reason), ['unfinished'], `count ${actual}`);
  }
});

test('a lab exactly as seeded: nothing to load, no drift', () => {
  const counts = new Map(tenants.map((t) => [t.id, t.expected_products]));
  const plan = planFill({ tenants, counts });
  assert.equal(plan.load.length, 0);
  assert.equal(plan.drift.length, 0);
  assert.equal(plan.complete.length, tenants.length);
});

test('the drift warning names the stores, signed differences, a few examples', () => {
  const drift = [
    { id: 'ci-0002', expected: 50, actual: 51, diff: 1 },
    { id: 'ci-0003', expected: 20, actual: 19, diff: -1 },
  ];
  assert.equal(describeDrift(drift, 20), '2 of 20 stores differ from the manifest (net 0), left as they are: ci-0002 +1 (51 documents, manifest 50); ci-0003 -1 (19 documents, manifest 20)');
  const many = Array.from({ length: 8 }, (_, i) => ({ id: `ci-000${i}`, expected: 10, actual: 12, diff: 2 }));
  const line = describeDrift(many, 150, { examples: 3 });
  assert.match(line, /^8 of 150 stores differ from the manifest \(net \+16\)/);
  assert.match(line, /ci-0002 \+2 \(12 documents, manifest 10\); and 5 more$/);
  assert.match(describeDrift([{ id: 'x-1', expected: 5, actual: null, diff: null }], 1), /x-1 alias tenant-x-1 missing \(manifest 5\)/);
});

test('journal: started until finished, survives a crash, bad file = nothing unfinished', () => {
  const dir = mkdtempSync(join(tmpdir(), 'seed-journal-'));
  const file = journalFileOf(dir);
  assert.equal(readUnfinished(file).size, 0);
  started(file, ['a-1', 'a-2']);
  started(file, ['a-3']); // a second load while the first one's are still unfinished
  assert.deepEqual([...readUnfinished(file)].sort(), ['a-1', 'a-2', 'a-3']);
  finished(file, ['a-1', 'a-2']);
  assert.deepEqual([...readUnfinished(file)], ['a-3']);
  finished(file, ['a-3']);
  assert.equal(existsSync(file), false, 'no file once nothing is unfinished');
  writeFileSync(file, '{not json');
  assert.equal(readUnfinished(file).size, 0);
});
