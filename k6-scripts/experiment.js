// experiment: the workload of one repetition of `make experiment` (packages/experiments runs it,
// one k6 process per repetition): the storefront's page views in two scenarios, so warm-up
// samples never reach the figures (Rally marks them `warmup`):
//   warmup   ramps up to the load over RAMP_UP, then holds it for WARMUP: discarded
//   measure  the measured window: MEASURE at the full load, started when warmup ends
// Closed model (VUS= shoppers, THINK_MS= between page views, like a JMeter thread group) or open
// model (RATE= page views/s; the iterations k6 had to drop are counted: a generator that falls
// behind hides latency). Tenants and their aliases in the variant measured come from
// TENANTS_FILE (the runner writes it), never from the allocator.
//
// A burst (BOT_TENANT= one store, BURST_AT= into the measured window, BURST_FOR= long, BOT_RATE=
// pages/s): bot.js's crawler on that store as its own scenario, never in the figures; every
// shopper's request is then tagged phase=before|during|after the burst.
//
// The summary holds the measured window's submetrics: http_req_duration, http_reqs,
// http_req_failed and dropped_iterations tagged {scenario:measure}, the latency per query type
// and per store half (store_set odd/even, and per phase with a burst); the thresholds below
// exist to make k6 compute them (they cannot fail: an experiment measures, its verdict is
// computed by the runner).
import exec from 'k6/execution';
import { env, envDuration, seconds, VUS, RATE } from './lib/config.js';
import { loadTenants } from './lib/tenants.js';
import { storefront } from './storefront.js';
import { bot, botPlan, botScenario } from './bot.js';

export { bot };

export { handleSummary } from './lib/summary.js';

const RAMP_UP = envDuration('RAMP_UP', '10s');
const WARMUP = envDuration('WARMUP', '20s');
const MEASURE = envDuration('MEASURE', '45s');
const QUERY_TYPES = ['category', 'category_page', 'search', 'detail', 'autocomplete'];
const warmupEnds = `${seconds(RAMP_UP) + seconds(WARMUP)}s`;
const BOT_TENANT = env('BOT_TENANT', '');
const BURST_AT = envDuration('BURST_AT', '0s');
const BURST_FOR = envDuration('BURST_FOR', '0s');
const STORE_SETS = ['odd', 'even'];
const PHASES = ['before', 'during', 'after'];
// where the burst lies, in ms since the test started
const burstFromMs = (seconds(RAMP_UP) + seconds(WARMUP) + seconds(BURST_AT)) * 1000;
const burstToMs = burstFromMs + seconds(BURST_FOR) * 1000;

function scenarios() {
  const out = shoppers();
  if (BOT_TENANT) out.burst = botScenario(`${burstFromMs / 1000}s`, BURST_FOR);
  return out;
}

function shoppers() {
  if (RATE) {
    const pool = { preAllocatedVUs: Math.max(4, Math.ceil(RATE / 5)), maxVUs: Math.max(20, Math.ceil(RATE * 2)) };
    return {
      warmup: {
        executor: 'ramping-arrival-rate', startRate: 0, timeUnit: '1s', ...pool, exec: 'pageView',
        stages: [{ duration: RAMP_UP, target: RATE }, { duration: WARMUP, target: RATE }],
      },
      measure: { executor: 'constant-arrival-rate', rate: RATE, timeUnit: '1s', duration: MEASURE, ...pool, exec: 'pageView', startTime: warmupEnds },
    };
  }
  const vus = VUS || 8;
  return {
    warmup: {
      executor: 'ramping-vus', startVUs: 0, gracefulRampDown: '0s', exec: 'pageView',
      stages: [{ duration: RAMP_UP, target: vus }, { duration: WARMUP, target: vus }],
    },
    measure: { executor: 'constant-vus', vus, duration: MEASURE, exec: 'pageView', startTime: warmupEnds, gracefulStop: '5s' },
  };
}

const always = (stat) => [`${stat}>=0`];
const thresholds = {
  'http_req_duration{scenario:measure}': always('max'),
  'http_reqs{scenario:measure}': always('count'),
  'http_req_failed{scenario:measure}': always('rate'),
  'dropped_iterations{scenario:measure}': always('count'),
  'cross_tenant_hits': ['count==0'],
};
for (const q of QUERY_TYPES) thresholds[`http_req_duration{scenario:measure,query_type:${q}}`] = always('max');
for (const set of STORE_SETS) {
  thresholds[`http_req_duration{scenario:measure,store_set:${set}}`] = always('max');
  if (BOT_TENANT) for (const p of PHASES) thresholds[`http_req_duration{scenario:measure,store_set:${set},phase:${p}}`] = always('max');
}

export const options = {
  scenarios: scenarios(),
  thresholds,
  summaryTrendStats: ['avg', 'min', 'med', 'max', 'p(50)', 'p(95)', 'p(99)', 'count'],
  // the runner names its own run; no usage report, no external output
  noUsageReport: true,
};

export function setup() {
  const data = loadTenants();
  return BOT_TENANT ? { ...data, bot: botPlan(data) } : data;
}

export function pageView(data) {
  if (BOT_TENANT) {
    const t = exec.instance.currentTestRunDuration;
    exec.vu.metrics.tags.phase = t < burstFromMs ? 'before' : t < burstToMs ? 'during' : 'after';
  }
  storefront(data);
}

export default pageView;
