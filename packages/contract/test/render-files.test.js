// The one write-if-changed / --check of every generated file (src/render-files.js).
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { checkArg, RenderError, renderFiles, withBlock } from '../src/render-files.js';

const tree = () => {
  const root = mkdtempSync(join(tmpdir(), 'render-files-'));
  mkdirSync(join(root, 'gen', 'sub'), { recursive: true });
  writeFileSync(join(root, 'gen', 'a.yaml'), 'a: 1\n');
  writeFileSync(join(root, 'gen', 'sub', 'b.yaml'), 'b: 1\n');
  writeFileSync(join(root, 'gen', 'old.yaml'), 'old\n');
  writeFileSync(join(root, 'gen', 'notes.txt'), 'kept: not .yaml\n');
  return root;
};
const files = [
  { path: 'gen/a.yaml', content: 'a: 1\n' },
  { path: 'gen/sub/b.yaml', content: 'b: 2\n' },
  { path: 'gen/c.yaml', content: 'c: 1\n' },
];
const owns = [{ dir: 'gen', ext: '.yaml' }];

test('--check changes nothing and names each stale file on one line: missing, differs, no longer rendered', () => {
  const root = tree();
  const lines = [];
  const before = readFileSync(join(root, 'gen', 'sub', 'b.yaml'), 'utf8');
  assert.equal(renderFiles(files, { root, check: true, owns, source: 'lab.env', log: (l) => lines.push(l) }), 1);
  assert.deepEqual(lines.sort(), [
    'stale: gen/c.yaml (missing)',
    'stale: gen/old.yaml (no longer rendered)',
    'stale: gen/sub/b.yaml (differs from what lab.env renders)',
  ]);
  assert.equal(readFileSync(join(root, 'gen', 'sub', 'b.yaml'), 'utf8'), before);
  assert.ok(!existsSync(join(root, 'gen', 'c.yaml')));
  assert.ok(existsSync(join(root, 'gen', 'old.yaml')));
});

test('writing: only what changed is written, a leftover removed; then up to date and --check passes', () => {
  const root = tree();
  const untouched = statSync(join(root, 'gen', 'a.yaml')).mtimeMs;
  const lines = [];
  assert.equal(renderFiles(files, { root, owns, log: (l) => lines.push(l) }), 0);
  assert.deepEqual(lines.sort(), ['removed: gen/old.yaml', 'rendered: gen/c.yaml', 'rendered: gen/sub/b.yaml']);
  assert.equal(readFileSync(join(root, 'gen', 'sub', 'b.yaml'), 'utf8'), 'b: 2\n');
  assert.equal(statSync(join(root, 'gen', 'a.yaml')).mtimeMs, untouched);
  assert.ok(existsSync(join(root, 'gen', 'notes.txt')), 'a file of another kind is not the generator\'s');
  lines.length = 0;
  assert.equal(renderFiles(files, { root, owns, label: 'gen/ (3 files)', log: (l) => lines.push(l) }), 0);
  assert.deepEqual(lines, ['up to date: gen/ (3 files)']);
  assert.equal(renderFiles(files, { root, owns, check: true, log: (l) => lines.push(l) }), 0);
  lines.length = 0;
  renderFiles([files[0]], { root, log: (l) => lines.push(l) });
  assert.deepEqual(lines, ['up to date: gen/a.yaml']);
});

test('checkArg: --check or nothing; anything else is a RenderError naming the usage', () => {
  assert.equal(checkArg([], 'x [--check]'), false);
  assert.equal(checkArg(['--check'], 'x [--check]'), true);
  assert.throws(() => checkArg(['--force'], 'x [--check]'), (err) => err instanceof RenderError
    && err.message === "error: unknown argument '--force'; usage: x [--check]");
});

test('withBlock replaces what lies between the markers and keeps them; no markers, null', () => {
  const m = { begin: '<!-- a -->', end: '<!-- /a -->' };
  assert.equal(withBlock('x\n<!-- a -->\nold\n<!-- /a -->\ny\n', 'new', m), 'x\n<!-- a -->\nnew\n<!-- /a -->\ny\n');
  assert.equal(withBlock('x\n<!-- /a -->\n<!-- a -->\n', 'new', m), null, 'end before begin');
  assert.equal(withBlock('nothing', 'new', m), null);
});
