import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { prepareLog, summaryLine } from '../src/replay-prep.js';
import { StoreMapError, mapStores, parsePairs } from '../src/store-map.js';
import { parseLine } from '../src/querylog.js';

const LEGACY = new URL('../../../tests/fixtures/traffic/queries-legacy.log', import.meta.url).pathname;
const BIN = new URL('../bin/replay-prepare', import.meta.url).pathname;
const tenants = [{ id: 'lab-a', weight: 5 }, { id: 'lab-b', weight: 1 }, { id: 'lab-c', weight: 3 }];
const line = (store, ts = '1735689600.100') => `${ts}|product|${JSON.stringify({ query: { filtered: { filter: { term: { store_id: store } } } }, size: 1 })}`;

test('store map rank: the most queried stores onto the heaviest tenants, wrapping; deterministic on ties', () => {
  const counts = new Map([['9', 1], ['1', 10], ['5', 4], ['7', 4]]);
  const m = mapStores({ counts, tenants });
  assert.deepEqual(Object.fromEntries(m), { 1: 'lab-a', 5: 'lab-c', 7: 'lab-b', 9: 'lab-a' });
  assert.deepEqual(mapStores({ counts, tenants }), m);
});

test('store map hash: stable per store, whatever else the log holds; file: the pairs given', () => {
  const a = mapStores({ counts: new Map([['1', 1], ['2', 1]]), tenants, mode: 'hash' });
  const b = mapStores({ counts: new Map([['2', 9]]), tenants, mode: 'hash' });
  assert.equal(a.get('2'), b.get('2'));
  const pairs = parsePairs('# mine\n1 lab-b\n2,lab-c\n', tenants.map((t) => t.id));
  assert.deepEqual(Object.fromEntries(mapStores({ counts: new Map([['1', 1], ['3', 1]]), tenants, mode: 'file', pairs })), { 1: 'lab-b' });
  assert.throws(() => parsePairs('1 lab-z', ['lab-a']), (e) => e instanceof StoreMapError && /line 1: 'lab-z' is not a tenant of the lab/.test(e.message));
  assert.throws(() => parsePairs('1 a b', ['a']), /line 1: want '<log store> <lab tenant>'/);
  assert.throws(() => mapStores({ counts: new Map(), tenants, mode: 'nope' }), /STORE_MAP=nope: use rank, hash or a file of pairs/);
  assert.throws(() => mapStores({ counts: new Map(), tenants: [] }), /the lab has no tenants/);
});

test('the article-shaped log: every line translated, its stores mapped by rank, the store term the tenant\'s, line numbers kept', () => {
  const raw = readFileSync(LEGACY, 'utf8').replace(/\n$/, '').split('\n');
  const { lines, summary } = prepareLog(raw, { tenants });
  assert.equal(lines.length, raw.length);
  assert.equal(summary.usable, 60);
  assert.equal(summary.stores, 8);
  assert.equal(summary.store_map.mode, 'rank');
  assert.equal(summary.store_map.pairs['123456'], 'lab-a', 'the most queried store onto the heaviest tenant');
  assert.ok(summary.rewrites.filtered >= 60 && summary.rewrites['legacy-flags'] > 0 && summary.rewrites['sort-unmapped'] === 60 && summary.rewrites['and-or-not'] === 6 && summary.rewrites.missing === 6);
  let n = 0;
  for (const [i, l] of lines.entries()) {
    const e = parseLine(l, i + 1);
    if (!e) continue;
    n += 1;
    assert.ok(tenants.some((t) => t.id === e.storeId), `line ${i + 1}: store ${e.storeId}`);
    assert.equal(l.includes('"filtered"') || l.includes('_cache') || l.includes('ignore_unmapped'), false, `line ${i + 1} still legacy`);
  }
  assert.equal(n, 60);
  assert.match(summaryLine(summary), /^replay: 60 of 62 lines usable; 8 stores mapped \(rank\); rewrites: /);
});

test('a log of the lab\'s own tenants maps onto itself; TRANSLATE=off leaves the query as it is', () => {
  const { summary } = prepareLog([line('lab-b'), line('lab-c')], { tenants });
  assert.equal(summary.store_map.mode, 'identity');
  assert.deepEqual(summary.store_map.pairs, { 'lab-b': 'lab-b', 'lab-c': 'lab-c' });
  const off = prepareLog([line('lab-b')], { tenants, translateOn: false });
  assert.equal(off.lines[0].includes('"filtered"'), true);
  assert.deepEqual(off.summary.rewrites, {});
});

test('untranslatable lines and lines without a store become comments naming why; malformed lines pass through for the replay to report', () => {
  const facets = `1735689600.100|product|${JSON.stringify({ query: { term: { store_id: 1 } }, facets: { b: {} } })}`;
  const nostore = `1735689600.100|product|${JSON.stringify({ query: { match_all: {} } })}`;
  const { lines, summary } = prepareLog([line(1), facets, nostore, 'garbage', ''], { tenants });
  assert.equal(summary.usable, 1);
  assert.deepEqual(summary.untranslatable, [{ line: 2, reason: 'facets: facets were replaced by aggregations, whose results are not the same: translate them by hand' }]);
  assert.deepEqual(summary.no_store, [{ line: 3 }]);
  assert.equal(summary.malformed, 1);
  assert.match(lines[1], /^# line 2: untranslatable: facets:/);
  assert.match(lines[2], /^# line 3: no store_id term filter found/);
  assert.equal(lines[3], 'garbage');
  // another store field, renamed to the lab's
  const shop = `1735689600.100|product|${JSON.stringify({ query: { bool: { filter: [{ term: { shop: 77 } }] } } })}`;
  const r = prepareLog([shop], { tenants, storeField: 'shop' });
  assert.equal(parseLine(r.lines[0], 1).storeId, 'lab-a');
});

test('replay-prepare: files beside the summary; every mistake one line, exit 2, nothing written', () => {
  const dir = mkdtempSync(join(tmpdir(), 'replay-prep-'));
  const t = join(dir, 'tenants.json');
  writeFileSync(t, JSON.stringify({ tenants: tenants.map((x) => ({ id: x.id, traffic_weight: x.weight })) }));
  const run = (...args) => spawnSync(process.execPath, [BIN, '--log', LEGACY, '--tenants', t, '--out', dir, ...args], { encoding: 'utf8' });
  const ok = run();
  assert.equal(ok.status, 0, ok.stderr);
  assert.match(ok.stdout, /^replay: 60 of 62 lines usable; 8 stores mapped \(rank\)/);
  assert.equal(JSON.parse(readFileSync(join(dir, 'store-map.json'), 'utf8')).pairs['123456'], 'lab-a');
  assert.equal(JSON.parse(readFileSync(join(dir, 'translation.json'), 'utf8')).usable, 60);
  for (const [args, pattern] of [
    [['--store-map', 'nope'], /^error: STORE_MAP=nope: use rank \(the default\), hash, or the path of a file/],
    [['--translate', 'maybe'], /^error: TRANSLATE=maybe: use on/],
    [['--store-field', 'shop'], /^error: no usable line in .*: 60 without a shop term \(line 3; another store field\? STORE_FIELD=\)/],
  ]) {
    const bad = run(...args);
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, pattern);
    assert.equal(bad.stderr.trim().split('\n').length, 1);
  }
  const missing = spawnSync(process.execPath, [BIN, '--log', '/nonexistent', '--tenants', t, '--out', dir], { encoding: 'utf8' });
  assert.equal(missing.status, 2);
  assert.match(missing.stderr, /^error: the query log \/nonexistent cannot be read \(ENOENT\)\n$/);
});
