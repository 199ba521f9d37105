// make bench-seed's rendered figures (bench/figures.js): ratios and targets computed from the
// result, never typed.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { analysisBlock, seedBlock } from '../../bench/figures.js';

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

test('bench-analysis: each mapping\'s rate and size against the template\'s, and each candidate\'s same hits, from the result', () => {
  const md = analysisBlock({
    machine: { cpus: 2, cpu_model: 'Test CPU' }, commit: 'abc123', clean_tree: false, measured_at: '2026-11-28T07:00:00Z',
    scale: 1, documents: 50000, rounds: 3, queries: 2000,
    variants: {
      standard: { median_rate: 6000, median_bytes: 32 * 1048576 },
      storefront: { median_rate: 4000, median_bytes: 40 * 1048576 },
      lean: { median_rate: 5000, median_bytes: 38 * 1048576 },
    },
    candidates: { lean: { searches: 2000, same_hits: 2000, same_first_page: 1675, phrase: 'refused (no positions)' } },
  }, { link: 'y.json' });
  assert.match(md, /\| standard: .* \| 6,000 \| 1\.50x \| 32\.0 MiB \| 0\.80x \|/);
  assert.match(md, /\| \*\*storefront: .* \| 4,000 \| 1\.00x \| 40\.0 MiB \| 1\.00x \|/);
  assert.match(md, /\| lean: .* \| 5,000 \| 1\.25x \| 38\.0 MiB \| 0\.95x \|/);
  assert.match(md, /\| lean \| 2,000 of 2,000 \| 1,675 of 2,000 \| refused \(no positions\) \|/);
  assert.match(md, /commit abc123 \(uncommitted changes\), 2026-11-28/);
  assert.match(md, /\[bench-analysis\.json\]\(y\.json\)/);
});
