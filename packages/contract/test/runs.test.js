import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { runDir, storedRuns } from '../src/runs.js';

function roots() {
  const base = mkdtempSync(join(tmpdir(), 'runs-'));
  const committedRoot = join(base, 'committed');
  const localRoot = join(base, 'local');
  const put = (dir, results, html = false) => {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'results.json'), JSON.stringify(results));
    if (html) writeFileSync(join(dir, 'report.html'), '<!doctype html>');
  };
  put(join(committedRoot, 'h2-split-index'), { experiment: 'h2-split-index', run_id: '20261127t200438-ca96', started_at: '2026-11-27T20:04:38Z', verdicts: [{ claim: 'a', result: 'reproduced' }, { claim: 'b', result: 'inconclusive' }] }, true);
  put(join(localRoot, 'h2-split-index', '20261128t010000-aaaa'), { experiment: 'h2-split-index', run_id: '20261128t010000-aaaa', started_at: '2026-11-28T01:00:00Z', quick: true, smoke: { result: 'passed' }, complete: false });
  mkdirSync(join(localRoot, 'h2-split-index', 'stopped-before-writing'), { recursive: true });
  return { committedRoot, localRoot };
}

test('storedRuns: committed and local runs with their verdicts, a folder without results.json left out', () => {
  const r = roots();
  const runs = storedRuns(r);
  assert.deepEqual(runs.map((x) => [x.where, x.run_id, x.quick, x.complete, x.verdicts, x.report_html]), [
    ['committed', '20261127t200438-ca96', false, true, 'reproduced 1, inconclusive 1', true],
    ['local', '20261128t010000-aaaa', true, false, 'smoke passed', false],
  ]);
  assert.deepEqual(runs[0].results, [{ claim: 'a', result: 'reproduced' }, { claim: 'b', result: 'inconclusive' }]);
  assert.equal(storedRuns({ ...r, name: 'h1-shard-count' }).length, 0);
  assert.deepEqual(storedRuns({ committedRoot: '/nonexistent/a', localRoot: '/nonexistent/b' }), []);
});

test('runDir: a stored run by its names, never a path from outside the roots', () => {
  const r = roots();
  assert.equal(runDir(r, { where: 'committed', experiment: 'h2-split-index', run: '20261127t200438-ca96' }), join(r.committedRoot, 'h2-split-index'));
  assert.equal(runDir(r, { where: 'committed', experiment: 'h2-split-index', run: '20261127t000000-other' }), null, 'a committed run is the one its results.json names');
  assert.equal(runDir(r, { where: 'local', experiment: 'h2-split-index', run: '20261128t010000-aaaa' }), join(r.localRoot, 'h2-split-index', '20261128t010000-aaaa'));
  for (const bad of [{ where: 'local', experiment: '..', run: 'x' }, { where: 'local', experiment: 'h2-split-index', run: '../../etc' }, { where: 'elsewhere', experiment: 'h2-split-index', run: 'x' }, { where: 'local', experiment: 'h2-split-index', run: 'stopped-before-writing' }]) {
    assert.equal(runDir(r, bad), null, JSON.stringify(bad));
  }
});
