#!/usr/bin/env node
// The figures of `make bench-allocator` and `make bench-console` in docs/benchmarks.md, generated
// from their committed runs (allocator/bench/results/bench-allocator.json and bench-console.json,
// written by BENCH_SAVE=), never typed by hand: each one's block between its BEGIN and END. scripts/render runs it (make render [CHECK=1]); --check
// changes nothing and names each stale file.
import { resolve } from 'node:path';
import { measuredBy } from '@tenantlab/contract/bench-result';
import { checkArg, renderResultBlocks, runMain } from '@tenantlab/contract/render-files';

const ROOT = resolve(new URL('../..', import.meta.url).pathname);
export const RESULT = 'allocator/bench/results/bench-allocator.json';
export const BEGIN = '<!-- bench-allocator: written by `make render` from allocator/bench/results/bench-allocator.json; do not edit by hand -->';
export const END = '<!-- /bench-allocator -->';

/** The targets the issues set (placement < 1 s, the API's p99 < 20 ms at 200 req/s). */
export const TARGETS = { placement_ms: 1000, api_p99_ms: 20 };

const int = (x) => Math.round(x).toLocaleString('en-US');
const met = (ok) => (ok ? 'met' : '**missed**');
const share = (o) => Object.entries(o ?? {}).map(([g, x]) => `${g} ${(x * 100).toFixed(1)}%`).join(', ');

/** bench-allocator.json -> the Markdown block (how it was measured, then a table). */
export function allocatorBlock(r, { link }) {
  const lines = [
    `${measuredBy(r, 'bench-allocator')}, against the lab's cluster ([${RESULT.split('/').at(-1)}](${link})).`,
    '',
    '| benchmark | figure | target |',
    '|---|---|---|',
  ];
  const p = r.placement;
  if (p) {
    lines.push(`| [placement](../allocator/bench/placement.js): a plan for ${int(p.tenants)} synthetic tenants (${int(p.shared_indices)} shared and ${int(p.dedicated_indices)} dedicated indices) | ${int(p.placement_ms)} ms; a rebalance plan ${int(p.rebalance_plan_ms)} ms | < ${int(TARGETS.placement_ms)} ms: ${met(p.placement_ms < TARGETS.placement_ms)} |`);
  }
  const a = r.api;
  if (a) {
    for (const [name, e] of Object.entries(a.endpoints)) {
      lines.push(`| [API](../allocator/bench/api.js): \`${name}\` at a steady ${a.rate} req/s on loopback (${a.tool}, ${a.clients} clients, ${e.seconds} s after ${a.warmup_s} s unmeasured; ${int(e.requests)} requests, ${e.errors} errors) | p99 ${e.p99_ms} ms (p50 ${e.p50_ms}, p95 ${e.p95_ms}, max ${e.max_ms}) | < ${TARGETS.api_p99_ms} ms: ${met(e.p99_ms < TARGETS.api_p99_ms && e.errors === 0)} |`);
    }
  }
  const m = r.move;
  if (m) {
    lines.push(`| [move](../allocator/bench/move.js): one tenant of ${int(m.documents)} documents to another group, zero loss | the whole move ${m.move_total_s.toFixed(1)} s (${int(m.move_docs_per_s)} docs/s); its copy phase ${int(m.copy_docs_per_s)} docs/s in ${m.passes} passes | reported |`);
  }
  const o = r.observe;
  if (o) {
    const { large: l, baseline: b } = o;
    lines.push(`| [observer](../allocator/bench/observe.js): its own cost with ${int(l.tenants)} tenants against ${int(b.tenants)} in the same run, observing every second, ${l.shoppers_per_s} shopper searches/s | ${l.es_requests_per_observation} requests per observation plus ${l.probe_searches_per_s} probe searches/s; ${int(l.cpu_ms_per_observation)} ms of CPU per observation against ${int(b.cpu_ms_per_observation)}: **${o.ratio.cpu}x** (${l.cpu_percent_of_a_core}% of a core at 1/s); one observation ${int(l.observation_ms_median)} ms (max ${int(l.observation_ms_max)}) against ${int(b.observation_ms_median)}; the probe's share of each group's search time ${share(l.probe_share_of_search)} (${int(l.tenants)} tenants), ${share(b.probe_share_of_search)} (${int(b.tenants)}) | reported |`);
  }
  return lines.join('\n');
}

export const CONSOLE_RESULT = 'allocator/bench/results/bench-console.json';
export const CONSOLE_BEGIN = '<!-- bench-console: written by `make render` from allocator/bench/results/bench-console.json; do not edit by hand -->';
export const CONSOLE_END = '<!-- /bench-console -->';

/** bench-console.json -> the block: the allocator's CPU without and with one console open (A B A B), the page's draw time. */
export function consoleBlock(r, { link }) {
  const c = r.console;
  const pct = (xs) => xs.map((x) => `${x.toFixed(1)}%`).join(', ');
  // the noise the share stands against: how far the baseline's own spans are apart
  const spread = (xs) => (Math.max(...xs) - Math.min(...xs)).toFixed(1);
  return [
    `${measuredBy(r, 'bench-console')}: one console open in headless Chromium on an allocator holding ${int(c.tenants)} tenants (observing every second, shoppers searching), its CPU over spans alternated without and with the console in the same process, A B A B ([${CONSOLE_RESULT.split('/').at(-1)}](${link})).`,
    '',
    '| figure | measured |',
    '|---|---|',
    `| the page draws its map (navigation to the first tenant tile), median of ${c.page_loads_ms.length} | ${int(c.page_load_ms)} ms (loads: ${c.page_loads_ms.map(int).join(', ')}) |`,
    `| \`/console/state\`, one refresh (every 3 s) | ${int(c.state_bytes)} bytes |`,
    `| the allocator's CPU without a console (the baseline) / with one open | ${pct(c.cpu_percent_without)} / ${pct(c.cpu_percent_with)} of a core: **${c.cpu_ratio}x**, the console's share ${c.console_cpu_percent_of_a_core}% of a core (the spans without it differ by ${spread(c.cpu_percent_without)}% among themselves) |`,
  ].join('\n');
}

function main(argv) {
  const check = checkArg(argv, 'allocator/bench/figures.mjs [--check]');
  const page = (result) => [{ path: 'docs/benchmarks.md', link: `../${result}` }];
  return Math.max(
    renderResultBlocks({ root: ROOT, result: RESULT, pages: page(RESULT), begin: BEGIN, end: END, block: allocatorBlock, bench: 'bench-allocator', check }),
    renderResultBlocks({ root: ROOT, result: CONSOLE_RESULT, pages: page(CONSOLE_RESULT), begin: CONSOLE_BEGIN, end: CONSOLE_END, block: consoleBlock, bench: 'bench-console', check }),
  );
}

runMain(import.meta.url, main);
