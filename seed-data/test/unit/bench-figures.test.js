// make bench-seed's rendered figures (bench/figures.js): ratios and targets computed from the
// result, never typed.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { seedBlock } from '../../bench/figures.js';

const result = (seederRate, share) => ({
  machine: { cpus: 2, cpu_model: 'Test CPU' },
  commit: 'abc123', clean_tree: true, measured_at: '2026-11-28T04:00:00Z',
  scale: 1, documents: 50000, rounds: 2,
  lab: { data_nodes: 5, shape: 'groups' },
  request: { bytes: 5 * 1024 * 1024, concurrency: 4 },
  targets: { naive: 1.5, helper: 1.0, ceiling: 0.85, cpu_share: 0.15 },
  variants: {
    naive: { best_rate: 5000, best_green_rate: 5000 },
    helper: { best_rate: 8000, best_green_rate: 6000 },
    ceiling: { best_rate: 10000, best_green_rate: 7000 },
    seeder: { best_rate: seederRate, best_green_rate: 6300 },
  },
  cpu: { share, generator_share: 0.05 },
});

test('each baseline row carries the seeder\'s ratio against it and whether its target is met', () => {
  const md = seedBlock(result(9000, 0.12), { link: 'x.json' });
  assert.match(md, /\| naive \| 5,000 \| 5,000 \| 1\.80x \/ 1\.26x \| >= 1\.5x: met \/ \*\*missed\*\* \|/);
  assert.match(md, /\| helper \| 8,000 \| 6,000 \| 1\.13x \/ 1\.05x \| >= 1x: met \/ met \|/);
  assert.match(md, /\| ceiling \| 10,000 \| 7,000 \| 0\.90x \/ 0\.90x \| >= 0\.85x: met \/ met \|/);
  assert.match(md, /\| seeder \| 9,000 \| 6,300 \| - \| - \|/);
  assert.match(md, /12\.0% \| \| \| <= 15\.0%: met \|/);
  assert.match(md, /commit abc123 \(clean tree\), 2026-11-28/);
  assert.match(md, /\[bench-seed\.json\]\(x\.json\)/);
});

test('a slower seeder and a larger CPU share are shown missed', () => {
  const md = seedBlock(result(7000, 0.2), { link: 'x.json' });
  assert.match(md, /\| ceiling \| 10,000 \| 7,000 \| 0\.70x \/ 0\.90x \| >= 0\.85x: \*\*missed\*\* \/ met \|/);
  assert.match(md, /20\.0% \| \| \| <= 15\.0%: \*\*missed\*\* \|/);
});
