#!/usr/bin/env node
// The figures of `make bench-startup` in docs/benchmarks.md, generated from the committed run
// (tests/bench/results/bench-startup.json, written by BENCH_SAVE=), never typed by hand: the
// block between BEGIN and END. scripts/render runs it (make render [CHECK=1]); --check changes
// nothing and names each stale file.
import { resolve } from 'node:path';
import { checkArg, renderResultBlocks, runMain } from '@tenantlab/contract/render-files';

const ROOT = resolve(new URL('../..', import.meta.url).pathname);
export const RESULT = 'tests/bench/results/bench-startup.json';
export const BEGIN = '<!-- bench-startup: written by `make render` from tests/bench/results/bench-startup.json; do not edit by hand -->';
export const END = '<!-- /bench-startup -->';

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
const int = (x) => Math.round(x).toLocaleString('en-US');
const met = (ok) => (ok ? 'met' : '**missed**');

/** bench-startup.json -> the Markdown block (how it was measured, then a table). */
export function startupBlock(r, { link }) {
  const t = r.targets;
  const up = median(r.up_seed0_s);
  const rss = Object.values(r.rss_mib).reduce((a, b) => a + b, 0);
  const tree = r.clean_tree ? 'clean tree' : 'uncommitted changes';
  const lines = [
    `Measured by \`make bench-startup\` on ${r.machine.cpus} CPUs (${r.machine.cpu_model ?? 'unknown CPU'}), commit ${r.commit ?? 'unknown'} (${tree}), ${r.measured_at.slice(0, 10)}: `
      + `the ${r.runtime} runtime, ${r.lab.nodes} nodes, SHAPE=${r.lab.shape || 'unset'}, ${r.lab.es_heap} heap, warm caches (the runtime built before the clock), every round from an empty lab ([${RESULT.split('/').at(-1)}](${link})).`,
    '',
    '| figure | measured | target |',
    '|---|---|---|',
    `| \`make up SEED=0\` to a ready lab (green, allocator, exporter, Prometheus), median of ${r.up_seed0_s.length} | ${up.toFixed(1)} s (rounds: ${r.up_seed0_s.map((s) => s.toFixed(1)).join(', ')}) | <= ${t.up_seed0_s} s: ${met(up <= t.up_seed0_s)} |`,
    ...(r.up_seed0_no_aot_s
      ? [`| the same without the nodes' JVM AOT cache (\`ES_AOT_CACHE=off\`, the baseline, its rounds alternating with the ones above) | ${median(r.up_seed0_no_aot_s).toFixed(1)} s (rounds: ${r.up_seed0_no_aot_s.map((s) => s.toFixed(1)).join(', ')}); with the cache ${(up / median(r.up_seed0_no_aot_s)).toFixed(2)}x | the baseline |`]
      : []),
    `| RSS of the ${Object.keys(r.rss_mib).length} nodes once up | ${int(rss)} MiB | <= ${int(t.rss_mib)} MiB: ${met(rss <= t.rss_mib)} |`,
  ];
  const s = r.seeded;
  if (s) {
    lines.push(`| \`make up\` with the ${s.profile} profile seeded, from an empty lab${s.warmup_s ? ` (its ${s.warmup_s.toFixed(0)} s warm-up included)` : ''} | ${s.up_s.toFixed(1)} s | <= ${t.up_seeded_s} s: ${met(s.up_s <= t.up_seeded_s)} |`);
    lines.push(`| its seeding, as the seeder reports it (${int(s.documents)} documents in ${s.seed_s.toFixed(1)} s) | ${int(s.seed_rate)} docs/s | >= ${int(t.seed_rate)} docs/s: ${met(s.seed_rate >= t.seed_rate)} |`);
    const fl = s.first_load;
    if (fl && t.first_load_p95_ms) {
      const warm = s.warmup_s ? `, after make up's ${s.warmup_s.toFixed(0)} s warm-up` : ', no warm-up';
      lines.push(`| the first \`make load\` right after it (the default mix, 1 min${warm}): storefront p95 (${int(fl.storefront_requests)} page views, verdict ${fl.verdict}) | ${fl.storefront_p95_ms.toFixed(1)} ms | <= ${t.first_load_p95_ms} ms: ${met(fl.storefront_p95_ms <= t.first_load_p95_ms)} |`);
    }
    const rs = s.restarted;
    if (rs) {
      const ratio = rs.warm.storefront_p95_ms / rs.cold.storefront_p95_ms;
      lines.push(`| after a restart of the nodes (data kept), the first \`make load\`: storefront p95 without the warm-up (\`LAB_WARMUP=0s\`, verdict ${rs.cold.verdict}) | ${rs.cold.storefront_p95_ms.toFixed(1)} ms | the baseline |`);
      lines.push(`| the same with it (verdict ${rs.warm.verdict}) | ${rs.warm.storefront_p95_ms.toFixed(1)} ms (${ratio.toFixed(2)}x the baseline) | <= ${t.first_load_p95_ms} ms: ${met(rs.warm.storefront_p95_ms <= t.first_load_p95_ms)} |`);
    }
  }
  return lines.join('\n');
}

function main(argv) {
  const check = checkArg(argv, 'tests/bench/figures.mjs [--check]');
  return renderResultBlocks({ root: ROOT, result: RESULT, pages: [{ path: 'docs/benchmarks.md', link: `../${RESULT}` }], begin: BEGIN, end: END, block: startupBlock, bench: 'bench-startup', check });
}

runMain(import.meta.url, main);
