#!/usr/bin/env node
// The figures of `make bench-startup`, `make bench-shape` and `make bench-external` in
// docs/benchmarks.md, generated from their committed runs (tests/bench/results/<bench>.json,
// written by BENCH_SAVE=), never typed by hand: each bench's block between its BEGIN and END
// markers. scripts/render runs it (make render [CHECK=1]); --check changes nothing and names each
// stale file.
import { resolve } from 'node:path';
import { measuredBy, median as midpoint } from '@tenantlab/contract/bench-result';
import { checkArg, renderResultBlocks, runMain } from '@tenantlab/contract/render-files';

const ROOT = resolve(new URL('../..', import.meta.url).pathname);
export const RESULT = 'tests/bench/results/bench-startup.json';
export const BEGIN = '<!-- bench-startup: written by `make render` from tests/bench/results/bench-startup.json; do not edit by hand -->';
export const END = '<!-- /bench-startup -->';

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
const x2 = (a, b) => (b > 0 ? `${(a / b).toFixed(2)}x` : 'n/a');
const int = (x) => Math.round(x).toLocaleString('en-US');
const met = (ok) => (ok ? 'met' : '**missed**');

/** bench-startup.json -> the Markdown block (how it was measured, then a table). */
export function startupBlock(r, { link }) {
  const t = r.targets;
  const up = median(r.up_seed0_s);
  const rss = Object.values(r.rss_mib).reduce((a, b) => a + b, 0);
  const lines = [
    `${measuredBy(r, 'bench-startup')}: `
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
    // the shape's cost on this path: the seeded make up and its first load again with SHAPE=off
    const off = s.unshaped;
    if (off) {
      const shaped = `SHAPE=${r.lab.shape || 'unset'}`;
      lines.push(`| with \`SHAPE=off\` (no quota, every node on every CPU: the shape's baseline, same run): \`make up\` with the ${s.profile} profile seeded, from an empty lab${off.warmup_s ? ` (its ${off.warmup_s.toFixed(0)} s warm-up included)` : ''} | ${off.up_s.toFixed(1)} s; ${shaped} ${(s.up_s / off.up_s).toFixed(2)}x | the baseline |`);
      lines.push(`| its seeding (${int(off.documents)} documents in ${off.seed_s.toFixed(1)} s) | ${int(off.seed_rate)} docs/s; ${shaped} ${(s.seed_rate / off.seed_rate).toFixed(2)}x | the baseline |`);
      if (off.first_load && fl) lines.push(`| the first \`make load\` right after it: storefront p95 (${int(off.first_load.storefront_requests)} page views, verdict ${off.first_load.verdict}) | ${off.first_load.storefront_p95_ms.toFixed(1)} ms; ${shaped} ${(fl.storefront_p95_ms / off.first_load.storefront_p95_ms).toFixed(2)}x | the baseline |`);
    }
  }
  return lines.join('\n');
}

export const SHAPE_RESULT = 'tests/bench/results/bench-shape.json';
export const SHAPE_BEGIN = '<!-- bench-shape: written by `make render` from tests/bench/results/bench-shape.json; do not edit by hand -->';
export const SHAPE_END = '<!-- /bench-shape -->';

/** bench-shape.json -> the block: SHAPE=groups against SHAPE=off, rounds alternated, medians and ratios. */
export function shapeBlock(r, { link }) {
  const row = (what, key, unit, fmt) => {
    const g = midpoint(r.groups[key]);
    const o = midpoint(r.off[key]);
    return `| ${what} | ${fmt(g)}${unit} (rounds: ${r.groups[key].map(fmt).join(', ')}) | ${fmt(o)}${unit} (rounds: ${r.off[key].map(fmt).join(', ')}) | **${x2(g, o)}** |`;
  };
  return [
    `${measuredBy(r, 'bench-shape')}: the ${r.runtime} runtime, ${r.lab.nodes} nodes, ${r.lab.es_heap} heap, no data, rounds alternating \`SHAPE=groups\` and \`SHAPE=off\` from an empty lab (${r.rounds} each, medians), the idle figures over ${r.idle_s} s starting 5 s after green ([${SHAPE_RESULT.split('/').at(-1)}](${link})).`,
    '',
    '| figure | `SHAPE=groups` | `SHAPE=off` (the baseline) | shaped / unshaped |',
    '|---|---|---|---|',
    row('`make up` to green', 'up_s', ' s', (x) => x.toFixed(1)),
    row('RSS of the nodes, idle', 'rss_mib', ' MiB', int),
    row('CPU of the nodes, idle', 'idle_cpu_percent', '% of a core', (x) => x.toFixed(1)),
  ].join('\n');
}

export const EXTERNAL_RESULT = 'tests/bench/results/bench-external.json';
export const EXTERNAL_BEGIN = '<!-- bench-external: written by `make render` from tests/bench/results/bench-external.json; do not edit by hand -->';
export const EXTERNAL_END = '<!-- /bench-external -->';

/** bench-external.json -> the block: the storefront straight to the lab (A) and through the proxy (B), medians and B/A. */
export function externalBlock(r, { link }) {
  const row = (what, key, fmt) => {
    const a = midpoint(r.direct.map((x) => x[key]));
    const b = midpoint(r.proxied.map((x) => x[key]));
    return `| ${what} | ${fmt(a)} (rounds: ${r.direct.map((x) => fmt(x[key])).join(', ')}) | ${fmt(b)} (rounds: ${r.proxied.map((x) => fmt(x[key])).join(', ')}) | **${x2(b, a)}** |`;
  };
  const failed = Math.max(...r.direct.map((x) => x.failed_rate), ...r.proxied.map((x) => x.failed_rate));
  return [
    `${measuredBy(r, 'bench-external')}: \`make load SCENARIO=storefront\` (the Locust engine, on the host) at ${r.rate} page views/s for ${r.duration} on ${int(r.tenants)} tenants of a ${r.runtime} lab, straight to its entry point (A) and as \`RUNTIME=external\` reaches a cluster, through a TLS-terminating proxy with basic auth (B: ${r.proxy}), A B alternated after one unmeasured round of each, ${r.rounds} rounds, medians; the highest failed-request rate of any round ${(failed * 100).toFixed(2)}% ([${EXTERNAL_RESULT.split('/').at(-1)}](${link})).`,
    '',
    '| figure | straight to the lab (the baseline) | through the proxy | B / A |',
    '|---|---|---|---|',
    row('requests/s', 'rps', (x) => x.toFixed(2)),
    row('average (ms)', 'avg_ms', (x) => x.toFixed(2)),
    row('p95 (ms)', 'p95_ms', (x) => x.toFixed(2)),
  ].join('\n');
}

function main(argv) {
  const check = checkArg(argv, 'tests/bench/figures.mjs [--check]');
  const page = (result) => [{ path: 'docs/benchmarks.md', link: `../${result}` }];
  return Math.max(
    renderResultBlocks({ root: ROOT, result: RESULT, pages: page(RESULT), begin: BEGIN, end: END, block: startupBlock, bench: 'bench-startup', check }),
    renderResultBlocks({ root: ROOT, result: SHAPE_RESULT, pages: page(SHAPE_RESULT), begin: SHAPE_BEGIN, end: SHAPE_END, block: shapeBlock, bench: 'bench-shape', check }),
    renderResultBlocks({ root: ROOT, result: EXTERNAL_RESULT, pages: page(EXTERNAL_RESULT), begin: EXTERNAL_BEGIN, end: EXTERNAL_END, block: externalBlock, bench: 'bench-external', check }),
  );
}

runMain(import.meta.url, main);
