import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { measuredBy, median, saveBenchResult } from '../src/bench-result.js';

test('median of rounds: the middle value, or the mean of the two middle ones, whatever the order', () => {
  assert.equal(median([25.6, 28.3, 24.7]), 25.6);
  assert.equal(median([7, 5]), 6);
  assert.equal(median([4, 1, 3, 2]), 2.5);
  assert.equal(median([9]), 9);
});

test('measuredBy: the bench, the machine, the commit and whether its tree was clean, the day', () => {
  const r = { machine: { cpus: 2, cpu_model: 'Xeon' }, commit: 'abc123', clean_tree: true, measured_at: '2026-11-28T22:05:50Z' };
  assert.equal(measuredBy(r, 'bench-shape'), 'Measured by `make bench-shape` on 2 CPUs (Xeon), commit abc123 (clean tree), 2026-11-28');
  assert.equal(measuredBy({ ...r, clean_tree: false, commit: null, machine: { cpus: 4 } }, 'bench-seed'),
    'Measured by `make bench-seed` on 4 CPUs (unknown CPU), commit unknown (uncommitted changes), 2026-11-28');
});

test('saveBenchResult keeps the run under the lab\'s results and in BENCH_SAVE, the same JSON', () => {
  const dir = mkdtempSync(join(tmpdir(), 'bench-result-'));
  try {
    const paths = saveBenchResult('bench-x', { bench: 'bench-x', a: 1 }, { labDir: dir, save: join(dir, 'kept.json'), now: new Date('2026-11-28T22:05:50.123Z') });
    assert.deepEqual(paths, [join(dir, 'results', '20261128T220550Z-bench-x', 'bench-x.json'), join(dir, 'kept.json')]);
    for (const p of paths) assert.deepEqual(JSON.parse(readFileSync(p, 'utf8')), { bench: 'bench-x', a: 1 });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
