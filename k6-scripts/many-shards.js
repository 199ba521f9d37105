// many-shards: the workload of the many-shards experiment (packages/experiments runs it, one k6
// process per repetition), after Elastic's nightly many-shards benchmark: CLIENTS clients create
// INDICES indices of one primary shard and no replica between them, each index with the document
// profile's mapping, and index DOCS_PER_INDEX documents into each one right after creating it.
// One scenario, `measure`: it ends when every index is made (or at MEASURE, a bound).
//
// Counted: indices_created, indices_failed (a creation refused or unanswered), docs_indexed,
// docs_failed; each request is tagged op=create|bulk, so the summary has the creation latency
// apart from the bulks'. The thresholds only make k6 compute the submetrics (they cannot fail).
import http from 'k6/http';
import exec from 'k6/execution';
import { SharedArray } from 'k6/data';
import { Counter } from 'k6/metrics';
import { env, envDuration, envNumber, checkedUrl, ES_EXTERNAL, ES_JSON_HEADERS, ES_NDJSON_HEADERS } from './lib/config.js';
import { BULK_QUERY, bulkItems } from './lib/bulk-items.js';

export { handleSummary } from './lib/summary.js';

const MEASURE = envDuration('MEASURE', '10m');
const CLIENTS = envNumber('CLIENTS', 8, { min: 1, integer: true });
const INDICES = envNumber('INDICES', 100, { min: 1, integer: true });
const PREFIX = env('INDEX_PREFIX', '');
if (!/^[a-z0-9][a-z0-9._-]*$/.test(PREFIX)) throw new Error(`INDEX_PREFIX=${PREFIX}: want the prefix of the indices to create`);
const URLS = String(env('ES_URLS', env('ES_URL', 'http://127.0.0.1:9200'))).split(',').filter(Boolean).map((u, i) => checkedUrl(`ES_URLS[${i}]`, u, { external: ES_EXTERNAL }));

const fixture = new SharedArray('index body and bulks', () => {
  const f = JSON.parse(open(env('BODIES_FILE', '')));
  if (!f || typeof f.index !== 'string' || !Array.isArray(f.bulks) || !f.bulks.length) throw new Error('BODIES_FILE: want { index: <create body>, bulks: [<bulk bodies>] }');
  return [f.index, ...f.bulks];
});

const created = new Counter('indices_created');
const createFailed = new Counter('indices_failed');
const indexed = new Counter('docs_indexed');
const failed = new Counter('docs_failed');
const DOCS_PER_INDEX = envNumber('DOCS_PER_INDEX', 100, { min: 1, integer: true });

const always = (stat) => [`${stat}>=0`];
export const options = {
  scenarios: {
    measure: { executor: 'shared-iterations', vus: Math.min(CLIENTS, INDICES), iterations: INDICES, maxDuration: MEASURE, exec: 'indexOne', gracefulStop: '30s' },
  },
  thresholds: {
    'http_req_duration{scenario:measure,op:create}': always('max'),
    'http_req_duration{scenario:measure,op:bulk}': always('max'),
    'indices_created{scenario:measure}': always('count'),
    'indices_failed{scenario:measure}': always('count'),
    'docs_indexed{scenario:measure}': always('count'),
    'docs_failed{scenario:measure}': always('count'),
  },
  summaryTrendStats: ['avg', 'min', 'med', 'max', 'p(50)', 'p(95)', 'p(99)', 'count'],
  noUsageReport: true,
};

/** One index: create it, then its documents in one bulk. */
export function indexOne() {
  const i = exec.scenario.iterationInTest;
  const url = URLS[i % URLS.length];
  const name = `${PREFIX}${i + 1}`;
  const res = http.put(`${url}/${name}?filter_path=acknowledged`, fixture[0], {
    headers: ES_JSON_HEADERS, timeout: '120s', tags: { op: 'create', name: 'create' }, responseCallback: http.expectedStatuses(200),
  });
  if (res.status !== 200) {
    createFailed.add(1);
    return;
  }
  created.add(1);
  const body = fixture[1 + (i % (fixture.length - 1))];
  const bulk = http.post(`${url}/${name}/_bulk${BULK_QUERY}`, body, {
    headers: ES_NDJSON_HEADERS, timeout: '120s', tags: { op: 'bulk', name: 'bulk' }, responseCallback: http.expectedStatuses(200, 429),
  });
  const n = bulkItems(bulk, DOCS_PER_INDEX);
  indexed.add(n.indexed);
  failed.add(n.rejected + n.failed);
}

export default indexOne;
