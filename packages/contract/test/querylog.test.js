import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { formatLine, parseLine, parseLines, parseLog, QueryLogError, searchRequestOf } from '../src/querylog.js';

const fixtures = new URL('../../../tests/fixtures/traffic/', import.meta.url).pathname;

test('format and parse round-trip, with | inside the JSON', () => {
  const query = { query: { bool: { filter: [{ term: { store_id: 's-1' } }], must: [{ simple_query_string: { query: 'a | b' } }] } } };
  const line = formatLine({ timestampMs: 1735689600007, type: 'product', query });
  assert.match(line, /^1735689600\.007\|product\|\{/);
  const e = parseLine(line);
  assert.deepEqual(e, { timestampMs: 1735689600007, type: 'product', query, storeId: 's-1' });
  assert.deepEqual(searchRequestOf(e), { index: 'tenant-s-1', body: { ...query, stats: ['tenant-s-1'] } });
  assert.equal(parseLine('1735689600.007|product|{"query":{"bool":{"filter":{"term":{"store_id":{"value":"s-2"}}}}}}').storeId, 's-2');
  assert.throws(() => formatLine({ timestampMs: 1, type: 'Bad Type', query }), (err) => err instanceof QueryLogError && err.message === "bad search type 'Bad Type'");
});

test('malformed lines are rejected with their line number; blanks and comments skipped', () => {
  const ok = '1.000|product|{"query":{"bool":{"filter":[{"term":{"store_id":"a"}}]}}}';
  assert.equal(parseLine(''), null);
  assert.equal(parseLine('# a comment'), null);
  assert.equal(parseLine(`${ok}\r`).storeId, 'a');
  const bad = [
    ['no fields at all', /expected TIMESTAMP/],
    ['1735689600|product|{}', /bad timestamp/],
    ['1735689600.12|product|{}', /bad timestamp/],
    ['1.000|Product Search|{}', /bad search type/],
    ['1.000|product|{not json', /not JSON/],
    ['1.000|product|[1]', /JSON object/],
    ['1.000|product|{"query":{"match_all":{}}}', /no store_id/],
  ];
  for (const [line, re] of bad) assert.throws(() => parseLine(line, 7), (err) => err instanceof QueryLogError && re.test(err.message) && /^line 7: /.test(err.message), line);
  assert.throws(() => [...parseLines([ok, ok, 'junk'])], /^QueryLogError: line 3: /);
});

// The replay's plan (replay-prep.js, through parseLog) and the seeder (parseLines) read logs with
// one module, so they agree by construction; this pins what both see on the fixtures the replay tests use.
test('parseLog collects every bad line of the fixtures and numbers the good ones', () => {
  const good = parseLog(readFileSync(`${fixtures}queries.log`, 'utf8'));
  assert.deepEqual(good.errors, []);
  assert.equal(good.entries.length, 10);
  assert.deepEqual(good.entries.map(({ line, ...e }) => e), [...parseLines(readFileSync(`${fixtures}queries.log`, 'utf8'))]);
  for (const e of good.entries) assert.ok(['loadtest-a', 'loadtest-b'].includes(e.storeId));

  const bad = parseLog(readFileSync(`${fixtures}queries-bad.log`, 'utf8'));
  assert.deepEqual(bad.errors.map((m) => m.replace(/: .*$/s, '')), ['line 7', 'line 9', 'line 12']);
  assert.equal(bad.errors[0], 'line 7: expected TIMESTAMP.MS|SEARCH_TYPE|JSON_QUERY');
  assert.match(bad.errors[1], /^line 9: bad timestamp '1735689600.5'/);
  assert.match(bad.errors[2], /^line 12: query is not JSON/);
  const lines = bad.entries.map((e) => e.line);
  assert.ok(lines.length >= 8 && lines.every((n, i) => i === 0 || n > lines[i - 1]), `entries' lines ${lines}`);
  for (const n of [7, 9, 12]) assert.ok(!lines.includes(n), `bad line ${n} is not an entry`);
  assert.ok(bad.entries.every((e) => searchRequestOf(e).index === `tenant-${e.storeId}`));
});
