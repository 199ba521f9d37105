import assert from 'node:assert/strict';
import { test } from 'node:test';
import { InputError } from '@tenantlab/contract/errors';
import { averageDocumentBytes, bulkBodies, documentGenerator, documentProfileNames, loadDocumentProfile } from '../src/documents.js';
import { loadProfile, profileNames } from '../src/profiles.js';

const ES_TYPES = { string: ['keyword', 'text', 'date', 'ip'], number: ['integer', 'long'] };

test('the document profiles are listed apart from the store profiles', () => {
  assert.deepEqual(documentProfileNames(), ['appbase-grammar', 'azure-logs']);
  assert.ok(!profileNames().includes('azure-logs'));
  assert.deepEqual(profileNames(), ['bigcommerce', 'ci', 'demo', 'large', 'platform']);
  assert.equal(loadProfile('ci').stores, 20, 'store profiles load as before');
});

test('a wrong profile name is one line, exit code 2, naming what there is', () => {
  for (const [fn, message] of [
    [() => loadDocumentProfile('nope'), "unknown document profile 'nope': pick one of appbase-grammar, azure-logs"],
    [() => loadDocumentProfile('ci'), "'ci' is a store profile, not a document profile: pick one of appbase-grammar, azure-logs"],
    [() => loadProfile('azure-logs'), "profile 'azure-logs' is a document profile (log-events) for the ingest experiments, not stores: pick one of bigcommerce, ci, demo, large, platform"],
  ]) {
    assert.throws(fn, (err) => err instanceof InputError && err.exitCode === 2 && err.message === message && !err.message.includes('\n'));
  }
});

for (const name of ['azure-logs', 'appbase-grammar']) {
  test(`${name}: every document fits its strict mapping, field for field`, () => {
    const p = loadDocumentProfile(name);
    assert.equal(p.mapping.dynamic, 'strict');
    const fields = p.mapping.properties;
    const gen = documentGenerator({ profile: p, seed: 7 });
    for (let i = 0; i < 300; i++) {
      const doc = gen.next(i);
      assert.deepEqual(Object.keys(doc).sort(), Object.keys(fields).sort(), `document ${i} has exactly the mapped fields`);
      for (const [k, v] of Object.entries(doc)) {
        const type = fields[k].type;
        assert.ok(ES_TYPES[typeof v]?.includes(type), `${k}: a ${typeof v} in a ${type} field`);
        if (type === 'date') assert.ok(!Number.isNaN(Date.parse(v)), `${k}: ${v}`);
        if (type === 'ip') assert.match(v, /^\d+\.\d+\.\d+\.\d+$/);
        if (type === 'integer') assert.ok(Number.isInteger(v) && v >= 0 && v < 2 ** 31, `${k}: ${v}`);
      }
    }
  });
}

test('documents are a pure function of (seed, i): same seed same documents, another seed others', () => {
  const p = loadDocumentProfile('azure-logs');
  const a = documentGenerator({ profile: p, seed: 1 });
  const b = documentGenerator({ profile: p, seed: 1 });
  const c = documentGenerator({ profile: p, seed: 2 });
  assert.deepEqual([a.next(5), a.next(3)], [b.next(5), b.next(3)], 'independent of the order they are made in');
  assert.notDeepEqual(a.next(5).correlationId, c.next(5).correlationId);
  assert.notDeepEqual(a.next(5).message + a.next(6).message, a.next(7).message + a.next(8).message);
});

test('sizes: about 500 bytes a log event (the guidance\'s), about 100 a grammar document (Appbase\'s)', () => {
  const logs = averageDocumentBytes({ profile: loadDocumentProfile('azure-logs') });
  const grammar = averageDocumentBytes({ profile: loadDocumentProfile('appbase-grammar') });
  assert.ok(logs > 400 && logs < 900, `log events: ${logs} bytes`);
  assert.ok(grammar > 60 && grammar < 160, `grammar documents: ${grammar} bytes`);
});

test('bulk bodies: NDJSON, an action line without _index or _id before each document, a trailing newline', () => {
  const p = loadDocumentProfile('appbase-grammar');
  const bodies = bulkBodies({ profile: p, seed: 1, bodies: 3, docsPerBulk: 10 });
  assert.equal(bodies.length, 3);
  for (const [b, body] of bodies.entries()) {
    assert.ok(body.endsWith('\n'));
    const lines = body.slice(0, -1).split('\n');
    assert.equal(lines.length, 20);
    lines.forEach((line, j) => {
      const o = JSON.parse(line);
      if (j % 2 === 0) assert.deepEqual(o, { index: {} });
      else assert.equal(o.n, b * 10 + (j - 1) / 2, 'body b holds documents b * docsPerBulk onwards');
    });
  }
  assert.deepEqual(JSON.parse(bulkBodies({ profile: p, seed: 1, bodies: 1, docsPerBulk: 1, action: 'create' })[0].split('\n')[0]), { create: {} });
});
