// ingest: the write workload of the ingest experiments (packages/experiments runs it, one k6
// process per repetition), as the Azure ingestion guidance's JMeter test ran it: CLIENTS
// concurrent clients, each sending one bulk request after the other, with no think time, every
// bulk DOCS_PER_BULK documents into INDEX. Two scenarios, so warm-up never reaches the figures:
//   warmup   ramps up to CLIENTS over RAMP_UP, then holds them for WARMUP: discarded
//   measure  the measured window: MEASURE with CLIENTS, started when warmup ends
// The bulk bodies are made by the runner (seed-data's document profiles) as NDJSON files in
// BODIES_DIR (bulk-000.ndjson...), so k6 spends its CPU sending, not generating; each client takes
// turns over a few of its own, and each document gets an id from Elasticsearch. The clients are spread over
// the data nodes (ES_URLS, as the guidance's load balancer did).
//
// Every bulk's items are counted, never retried (lib/bulk-items.js): docs_indexed, docs_rejected
// (429: a full write queue or indexing pressure), docs_failed. The thresholds only make k6 compute the measured
// window's submetrics (they cannot fail): the verdict is the runner's.
import http from 'k6/http';
import exec from 'k6/execution';
import { Counter } from 'k6/metrics';
import { env, envDuration, envNumber, seconds, checkedUrl, ES_EXTERNAL, ES_NDJSON_HEADERS } from './lib/config.js';
import { BULK_QUERY, bulkItems } from './lib/bulk-items.js';

export { handleSummary } from './lib/summary.js';

const RAMP_UP = envDuration('RAMP_UP', '5s');
const WARMUP = envDuration('WARMUP', '10s');
const MEASURE = envDuration('MEASURE', '30s');
const CLIENTS = envNumber('CLIENTS', 4, { min: 1, integer: true });
const DOCS_PER_BULK = envNumber('DOCS_PER_BULK', 1000, { min: 1, integer: true });
const INDEX = env('INDEX', '');
if (!/^[a-z0-9][a-z0-9._-]*$/.test(INDEX)) throw new Error(`INDEX=${INDEX}: want the name of the index to write to`);
const URLS = String(env('ES_URLS', env('ES_URL', 'http://127.0.0.1:9200'))).split(',').filter(Boolean).map((u, i) => checkedUrl(`ES_URLS[${i}]`, u, { external: ES_EXTERNAL }));
const warmupEnds = `${seconds(RAMP_UP) + seconds(WARMUP)}s`;

// Each client holds a few bodies of its own as bytes (k6 sends an ArrayBuffer as it is): a bulk
// of 1,000 log events is ~500 KB, and reading it per request from a SharedArray (a JSON copy of
// the string each time) cost k6 more CPU than the request itself. Every file is opened once in
// the first init (k6 allows a VU to open only files opened there).
const BODIES_DIR = env('BODIES_DIR', '');
const BODIES_COUNT = envNumber('BODIES_COUNT', 1, { min: 1, integer: true });
const PER_CLIENT = 4;
const bodyFile = (i) => `${BODIES_DIR}/bulk-${String(i).padStart(3, '0')}.ndjson`;
const bodies = [];
if (__VU === 0) for (let i = 0; i < BODIES_COUNT; i++) open(bodyFile(i), 'b');
else for (let j = 0; j < Math.min(PER_CLIENT, BODIES_COUNT); j++) bodies.push(open(bodyFile(((__VU - 1) * PER_CLIENT + j) % BODIES_COUNT), 'b'));

const indexed = new Counter('docs_indexed');
const rejected = new Counter('docs_rejected');
const failed = new Counter('docs_failed');
const bulksRejected = new Counter('bulks_rejected');

const always = (stat) => [`${stat}>=0`];
export const options = {
  scenarios: {
    warmup: {
      executor: 'ramping-vus', startVUs: 0, gracefulRampDown: '0s', exec: 'bulk',
      stages: [{ duration: RAMP_UP, target: CLIENTS }, { duration: WARMUP, target: CLIENTS }],
    },
    // a bulk in flight when the window ends is waited for (gracefulStop), and counted: its
    // documents are in the index either way
    measure: { executor: 'constant-vus', vus: CLIENTS, duration: MEASURE, exec: 'bulk', startTime: warmupEnds, gracefulStop: '60s' },
  },
  thresholds: {
    'http_req_duration{scenario:measure}': always('max'),
    'http_reqs{scenario:measure}': always('count'),
    'http_req_failed{scenario:measure}': always('rate'),
    'docs_indexed{scenario:measure}': always('count'),
    'docs_rejected{scenario:measure}': always('count'),
    'docs_failed{scenario:measure}': always('count'),
    'bulks_rejected{scenario:measure}': always('count'),
  },
  summaryTrendStats: ['avg', 'min', 'med', 'max', 'p(50)', 'p(95)', 'p(99)', 'count'],
  noUsageReport: true,
};

const PARAMS = {
  headers: ES_NDJSON_HEADERS,
  timeout: '120s',
  tags: { name: 'bulk' },
  // a 429 is an answer the figures count (rejections), not a failed request of the generator
  responseCallback: http.expectedStatuses(200, 429),
};

/** One bulk: send it, count its items. */
export function bulk() {
  const vu = exec.vu.idInTest;
  const body = bodies[exec.vu.iterationInScenario % bodies.length];
  const res = http.post(`${URLS[(vu - 1) % URLS.length]}/${INDEX}/_bulk${BULK_QUERY}`, body, PARAMS);
  const n = bulkItems(res, DOCS_PER_BULK);
  indexed.add(n.indexed);
  rejected.add(n.rejected);
  failed.add(n.failed);
  if (res.status === 429) bulksRejected.add(1);
}

export default bulk;
