#!/usr/bin/env node
// The figures of `make bench-seed` and `make bench-analysis` in docs/benchmarks.md and
// seed-data/README.md, generated from the committed runs (seed-data/bench/results/*.json, written
// by BENCH_SAVE=), never typed by hand: each the block between its BEGIN and END. scripts/render runs it (make render [CHECK=1]);
// --check changes nothing and names each stale file.
import { resolve } from 'node:path';
import { measuredBy } from '@tenantlab/contract/bench-result';
import { checkArg, renderResultBlocks, runMain } from '@tenantlab/contract/render-files';

const ROOT = resolve(new URL('../..', import.meta.url).pathname);
export const RESULT = 'seed-data/bench/results/bench-seed.json';
export const BEGIN = '<!-- bench-seed: written by `make render` from seed-data/bench/results/bench-seed.json; do not edit by hand -->';
export const END = '<!-- /bench-seed -->';
// the pages that show the figures, and the result's path from each
const PAGES = [{ path: 'docs/benchmarks.md', link: `../${RESULT}` }, { path: 'seed-data/README.md', link: 'bench/results/bench-seed.json' }];

const int = (x) => Math.round(x).toLocaleString('en-US');
const pct = (x) => `${(100 * x).toFixed(1)}%`;
const ratio = (x) => `${x.toFixed(2)}x`;
const met = (ok) => (ok ? 'met' : '**missed**');

/** bench-seed.json -> the Markdown block (a sentence saying how it was measured, then a table). */
export function seedBlock(r, { link }) {
  const v = r.variants;
  const seeder = v.seeder;
  const lines = [
    `${measuredBy(r, 'bench-seed')}: `
      + `the ci profile x${r.scale} (${int(r.documents)} documents), ${r.lab.data_nodes} nodes, SHAPE=${r.lab.shape ?? 'unset'}, requests of ${int(r.request.bytes / 1024)} KB x ${r.request.concurrency} in flight, `
      + `the best of ${r.rounds} rounds of each loader in one run ([${RESULT.split('/').at(-1)}](${link})). `
      + '"To green": the documents over the load and the replica rebuild after it.',
    '',
    '| loader | docs/s to the end of the load | docs/s to green | the seeder against it (load / to green) | target |',
    '|---|---|---|---|---|',
  ];
  for (const name of ['naive', 'helper', 'ceiling']) {
    const b = v[name];
    if (!b) continue;
    const target = r.targets[name];
    const cells = seeder
      ? [`${ratio(seeder.best_rate / b.best_rate)} / ${ratio(seeder.best_green_rate / b.best_green_rate)}`, `>= ${target}x: ${met(seeder.best_rate / b.best_rate >= target)} / ${met(seeder.best_green_rate / b.best_green_rate >= target)}`]
      : ['-', `>= ${target}x`];
    lines.push(`| ${name} | ${int(b.best_rate)} | ${int(b.best_green_rate)} | ${cells.join(' | ')} |`);
  }
  if (seeder) lines.push(`| seeder | ${int(seeder.best_rate)} | ${int(seeder.best_green_rate)} | - | - |`);
  if (r.cpu) {
    lines.push(`| the seeder's CPU share of all CPU used while it seeds (its process against the Elasticsearch JVMs, mean of its rounds; generating the documents alone ${pct(r.cpu.generator_share)}) | ${pct(r.cpu.share)} | | | <= ${pct(r.targets.cpu_share)}: ${met(r.cpu.share <= r.targets.cpu_share)} |`);
  }
  return lines.join('\n');
}

export const ANALYSIS_RESULT = 'seed-data/bench/results/bench-analysis.json';
export const ANALYSIS_BEGIN = '<!-- bench-analysis: written by `make render` from seed-data/bench/results/bench-analysis.json; do not edit by hand -->';
export const ANALYSIS_END = '<!-- /bench-analysis -->';
const ANALYSIS_PAGES = [{ path: 'docs/benchmarks.md', link: `../${ANALYSIS_RESULT}` }, { path: 'seed-data/README.md', link: 'bench/results/bench-analysis.json' }];
const LABELS = {
  standard: 'standard: no `.partial` subfields, no SKU normalizer (the template before the storefront analysis)',
  storefront: '**storefront: the template as it is** (edge n-grams with positions and norms)',
  lean: 'lean: the same n-grams, documents only (no frequencies, positions or norms)',
  'no-norms': 'no-norms: the same n-grams, positions kept, no norms',
};
const mib = (b) => `${(b / 1048576).toFixed(1)} MiB`;

/** bench-analysis.json -> the Markdown block: each variant's rate and size against the template's, and each candidate's same hits check. */
export function analysisBlock(r, { link }) {
  const base = r.variants.storefront;
  const lines = [
    `${measuredBy(r, 'bench-analysis')}: `
      + `the ci profile x${r.scale} (${int(r.documents)} documents) into one-shard indices without replicas, the median of ${r.rounds} alternating rounds after a warm-up load of each ([${ANALYSIS_RESULT.split('/').at(-1)}](${link})).`,
    '',
    '| mapping | docs/s (median) | against the template | merged size | against the template |',
    '|---|---|---|---|---|',
  ];
  for (const [name, v] of Object.entries(r.variants)) {
    lines.push(`| ${LABELS[name] ?? name} | ${int(v.median_rate)} | ${ratio(v.median_rate / base.median_rate)} | ${mib(v.median_bytes)} | ${ratio(v.median_bytes / base.median_bytes)} |`);
  }
  lines.push('', `Each candidate against the template on ${int(r.queries)} searches of the profile's query log (every matching document compared, not a page):`, '');
  lines.push('| candidate | the same documents matched | the same first page | a quoted phrase (two words) on `name.partial` |', '|---|---|---|---|');
  for (const [name, c] of Object.entries(r.candidates)) {
    lines.push(`| ${name} | ${int(c.same_hits)} of ${int(c.searches)} | ${int(c.same_first_page)} of ${int(c.searches)} | ${c.phrase} |`);
  }
  return lines.join('\n');
}

function main(argv) {
  const check = checkArg(argv, 'seed-data/bench/figures.js [--check]');
  const seed = renderResultBlocks({ root: ROOT, result: RESULT, pages: PAGES, begin: BEGIN, end: END, block: seedBlock, bench: 'bench-seed', check });
  const analysis = renderResultBlocks({ root: ROOT, result: ANALYSIS_RESULT, pages: ANALYSIS_PAGES, begin: ANALYSIS_BEGIN, end: ANALYSIS_END, block: analysisBlock, bench: 'bench-analysis', check });
  return Math.max(seed, analysis);
}

runMain(import.meta.url, main);
