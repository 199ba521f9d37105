#!/usr/bin/env node
// `make bench-allocator`: prints the allocator's figures. The placement benchmark is pure;
// the API and move benchmarks need the lab's cluster and clean up after themselves.
// BENCH_ONLY=placement|api|move|observe|console runs one (console only when asked: it needs
// Chromium, make bench-console). Sizes (the defaults are the committed run's; tests/live/
// 97-bench-smoke.bats runs the smallest to check that every part still runs, never its figures):
//   BENCH_DOCS     the moved tenant's documents (20000)
//   BENCH_SECONDS  each measured span: the API's per endpoint (10), the observer's and the
//                  console's (30)
//   BENCH_WARMUP   the API's unmeasured seconds before each endpoint's span (3; 0: none)
//   BENCH_TENANTS  the tenants of the observer's large allocator and of the console's (1000)
// With no cluster the run fails (one line, exit 1): it has no placement-only form. The result is
// kept in .lab/results/<time>-bench-allocator/ and, with BENCH_SAVE=FILE, there too
// (allocator/bench/results/bench-allocator.json is the committed run make render writes into
// docs/benchmarks.md: a whole run, no BENCH_ONLY). The console's run (make bench-console) is a
// result of its own, bench-console (allocator/bench/results/bench-console.json).
import { join, resolve } from 'node:path';
import { benchEnvironment, saveBenchResult } from '@tenantlab/contract/bench-result';
import { benchApi } from './api.js';
import { benchConsole } from './console.js';
import { benchMove } from './move.js';
import { benchObserve } from './observe.js';
import { benchPlacement } from './placement.js';
import { cleanup, clusterUp, labConfig, testPolicyFile, uniquePrefix } from '../test/integration/harness.js';

const only = process.env.BENCH_ONLY;
const name = only === 'console' ? 'bench-console' : 'bench-allocator';
if (process.env.BENCH_SAVE && only && only !== 'console') {
  console.error(`error: BENCH_SAVE keeps a whole run (the committed one make render shows): unset BENCH_ONLY=${only}`);
  process.exit(2);
}
// a size knob: a positive number (a whole one for a count; BENCH_WARMUP may be 0), else one
// line and exit 2, before anything runs
const size = (key, fallback, { zero = false, whole = false } = {}) => {
  const raw = process.env[key];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0 || (n === 0 && !zero) || (whole && !Number.isInteger(n))) {
    console.error(`error: ${key}=${raw}: want a ${whole ? 'whole ' : ''}number ${zero ? '>= 0' : '> 0'}`);
    process.exit(2);
  }
  return n;
};
const docs = size('BENCH_DOCS', 20000, { whole: true });
const warmup = size('BENCH_WARMUP', 3, { zero: true });
const tenants = size('BENCH_TENANTS', 1000, { whole: true });
const seconds = (fallback) => size('BENCH_SECONDS', fallback);
const results = {};
let failed = false;

if (!only || only === 'placement') {
  results.placement = benchPlacement();
  console.log(`placement: ${results.placement.tenants} tenants planned in ${results.placement.placement_ms} ms (target < 1000 ms); rebalance plan ${results.placement.rebalance_plan_ms} ms`);
}
if (!only || only === 'api' || only === 'move' || only === 'observe' || only === 'console') {
  if (!(await clusterUp())) {
    // the run promises these parts: a result of the placement alone would pass for a whole one
    console.error(`error: ${name}: Elasticsearch does not answer at ${labConfig.esUrl}: start the lab (make up)`);
    failed = true;
  } else {
    const prefix = uniquePrefix();
    const policyFile = testPolicyFile({ move: { drainMs: 1000, batchSize: 1000 } });
    try {
      if (!only || only === 'api') {
        results.api = await benchApi({ prefix, policyFile, duration: seconds(10), warmup });
        for (const [k, v] of Object.entries(results.api.endpoints)) console.log(`api: ${k}: ${v.rps} req/s, p50 ${v.p50_ms} ms, p95 ${v.p95_ms} ms, p99 ${v.p99_ms} ms (target < 20 ms), max ${v.max_ms} ms, errors ${v.errors}`);
      }
      if (!only || only === 'move') {
        results.move = await benchMove({ prefix: `${prefix}m-`, policyFile, documents: docs });
        const m = results.move;
        console.log(`move: ${m.documents} docs: copy ${m.copy_docs_per_s} docs/s, whole move ${m.move_total_s} s (${m.move_docs_per_s} docs/s); seeding through the alias ${m.seed_docs_per_s} docs/s`);
      }
      if (!only || only === 'observe') {
        results.observe = await benchObserve({ prefix: `${prefix}o-`, seconds: seconds(30), tenants });
        const o = results.observe;
        console.log(`observe: ${o.large.es_requests_per_observation} Elasticsearch requests per observation + ${o.large.probe_searches_per_s} probe searches/s (${o.large.es_requests_per_s} requests/s at one observation a second); ${o.large.tenants} tenants: ${o.large.cpu_ms_per_observation} ms CPU per observation (${o.large.cpu_percent_of_a_core}% of a core at 1/s), one observation ${o.large.observation_ms_median} ms (max ${o.large.observation_ms_max}); ${o.baseline.tenants} tenants: ${o.baseline.cpu_ms_per_observation} ms, ${o.baseline.observation_ms_median} ms; ratio ${o.ratio.cpu}x CPU, ${o.ratio.observation_ms}x time`);
        console.log(`observe: the probe's share of each group's search time beside ${o.large.shoppers_per_s} shopper searches/s: ${o.large.tenants} tenants ${JSON.stringify(o.large.probe_share_of_search)}, ${o.baseline.tenants} tenants ${JSON.stringify(o.baseline.probe_share_of_search)}`);
      }
      if (only === 'console') {
        results.console = await benchConsole({ prefix: `${prefix}c-`, tenants, seconds: seconds(30) });
        const c = results.console;
        console.log(`console: ${c.tenants} tenants: the page draws its map in ${c.page_load_ms} ms (median of ${c.page_loads_ms.join(', ')}); /console/state ${c.state_bytes} bytes; the allocator's CPU ${c.cpu_percent_without.join(', ')}% of a core without a console, ${c.cpu_percent_with.join(', ')}% with one open: ${c.cpu_ratio}x, the console's share ${c.console_cpu_percent_of_a_core}% of a core`);
      }
    } catch (err) {
      console.error(`error: ${name} failed: ${err.message}`);
      failed = true;
    } finally {
      await cleanup(`${prefix}m-`);
      await cleanup(`${prefix}c-`);
      await cleanup(prefix);
    }
  }
}
if (process.env.BENCH_JSON) console.log(JSON.stringify(results, null, 2));
if (!failed) {
  const root = resolve(new URL('../..', import.meta.url).pathname);
  const saved = saveBenchResult(name, { bench: name, ...benchEnvironment(root), only: only ?? null, ...results }, { labDir: process.env.LAB_DIR || join(root, '.lab') });
  for (const p of saved) console.log(`result: ${p}`);
}
process.exit(failed ? 1 : 0);
