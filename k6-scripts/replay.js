// replay: replays a query log (TIMESTAMP.MS|SEARCH_TYPE|JSON_QUERY, packages/contract/src/querylog.js; the seed
// generator writes one: seed-data/bin/tenantlab-seed querylog) against the tenant aliases, each
// query with its tenant's stats group, checked (status, facets when asked, no cross-tenant hit).
//
//   LOG=/abs/path/queries.log   the log (run.sh makes relative paths absolute)
//   SPEED=1                     original pacing times SPEED (2 = twice as fast); SPEED=max: as
//                               fast as REPLAY_VUS concurrent searches go
//   BAD_LINES=skip|stop         a malformed line (or a tenant the allocator does not know) is
//                               reported with its line number, then skipped (default) or stops
//                               the run (non-zero exit)
//   DURATION=                   upper bound of the replay (default: the log's span / SPEED + 30s)
// run.sh hands it the log made ready for the lab (packages/contract/bin/replay-prepare: legacy DSL
// translated, foreign stores mapped onto the lab's tenants, the same line numbers); LOG_SHOWN is
// the user's file, named in every message.
//
//   make replay LOG=queries.log SPEED=4

// ---- Thresholds (besides failed < 1%, checks > 99%, no cross-tenant hit: lib/options.js) ------
// p95 of the replayed searches. Override: P95_REPLAY_MS=
import { env, envNumber, envDuration, seconds } from './lib/config.js';

export const P95_REPLAY_MS = envNumber('P95_REPLAY_MS', 1000);
export const REPLAY_VUS = envNumber('REPLAY_VUS', 10, { min: 1, integer: true });

import http from 'k6/http';
import { fail } from 'k6';
import exec from 'k6/execution';
import { SharedArray } from 'k6/data';
import { Trend, Counter } from 'k6/metrics';
import { options as baseOptions } from './lib/options.js';
import { allocatorTenants } from './lib/tenants.js';
import { checkSearch } from './lib/checks.js';
// The query-log format: the one module the seeder writes logs with (packages/contract)
import { parseLog, searchRequestOf } from '../packages/contract/src/querylog.js';
import { ES_URL, ES_JSON_HEADERS, ALIAS } from './lib/config.js';

export { handleSummary } from './lib/summary.js';

const LOG = env('LOG', '');
// the log as the user named it (under compose LOG is the path of its mount in the container)
const LOG_SHOWN = env('LOG_SHOWN', LOG);
const SPEED_RAW = String(env('SPEED', '1')).toLowerCase();
const FAST = SPEED_RAW === 'max' || SPEED_RAW === '0' || SPEED_RAW === 'fast';
const SPEED = FAST ? 0 : envNumber('SPEED', 1, { min: 0.001 });
const BAD_LINES = env('BAD_LINES', 'skip');
if (BAD_LINES !== 'skip' && BAD_LINES !== 'stop') throw new Error(`BAD_LINES=${BAD_LINES}: want skip or stop`);
if (!LOG) throw new Error('replay: LOG= is required (a TIMESTAMP.MS|SEARCH_TYPE|JSON_QUERY file)');

let parseErrors = [];
const entries = new SharedArray('replay log', () => {
  let text;
  try {
    text = open(LOG);
  } catch (err) {
    throw new Error(`replay: cannot read LOG=${LOG_SHOWN}: ${err.message}`);
  }
  const parsed = parseLog(text);
  parseErrors = parsed.errors;
  if (parsed.errors.length) {
    const n = parsed.errors.length;
    if (BAD_LINES === 'stop') {
      throw new Error(`replay: ${LOG_SHOWN} ${parsed.errors[0]}${n > 1 ? ` (and ${n - 1} more malformed line(s))` : ''}; stopping (BAD_LINES=stop)`);
    }
    parsed.errors.slice(0, 20).forEach((e) => console.warn(`replay: ${LOG_SHOWN} ${e}: skipped (BAD_LINES=skip)`));
    if (n > 20) console.warn(`replay: ${LOG_SHOWN}: ... and ${n - 20} more malformed line(s) skipped`);
  }
  if (!parsed.entries.length) throw new Error(`replay: ${LOG_SHOWN}: no query to replay`);
  const t0 = Math.min(...parsed.entries.map((e) => e.timestampMs));
  return parsed.entries.map((e) => ({ at: e.timestampMs - t0, type: e.type, storeId: e.storeId, line: e.line, query: e.query }));
});
const badLines = new SharedArray('replay bad lines', () => parseErrors);

const spanMs = entries.length ? entries[entries.length - 1].at : 0;
// Without DURATION: the log's span at SPEED plus 30 s, never more than LOAD_MAX_DURATION (1h)
const maxSeconds = seconds(envDuration('LOAD_MAX_DURATION', '1h'));
const defaultBound = `${Math.min(maxSeconds, FAST ? 600 : Math.ceil(spanMs / 1000 / SPEED) + 30)}s`;

export const options = baseOptions({
  replay: {
    executor: 'shared-iterations',
    vus: Math.min(REPLAY_VUS, entries.length),
    iterations: entries.length,
    maxDuration: envDuration('DURATION', defaultBound),
    gracefulStop: '5s',
    exec: 'replay',
  },
}, { replay: P95_REPLAY_MS });

const lag = new Trend('replay_lag', true);
const skipped = new Counter('replay_skipped');
// hits returned: a translated legacy query that runs but finds nothing shows here
const hitsFound = new Counter('replay_hits');

export function setup() {
  const known = Object.fromEntries(allocatorTenants().map((t) => [t.id, t]));
  const missing = {};
  for (let i = 0; i < entries.length; i += 1) {
    const e = entries[i];
    if (!known[e.storeId] && !missing[e.storeId]) missing[e.storeId] = e.line;
  }
  const ids = Object.keys(missing);
  if (ids.length) {
    const list = ids.slice(0, 10).map((id) => `line ${missing[id]}: tenant '${id}'`).join(', ');
    if (BAD_LINES === 'stop') fail(`replay: ${ids.length} tenant(s) of the log unknown to the allocator (${list}): BAD_LINES=stop`);
    console.warn(`replay: ${ids.length} tenant(s) of the log unknown to the allocator, their queries are skipped (${list})`);
  }
  console.log(`replay: ${entries.length} queries of ${LOG_SHOWN}${badLines.length ? `, ${badLines.length} malformed line(s) skipped` : ''}, ` +
    `${FAST ? 'as fast as possible' : `span ${(spanMs / 1000).toFixed(1)}s at SPEED=${SPEED}`}, ${REPLAY_VUS} VUs`);
  return { tenants: Object.fromEntries(Object.values(known).map((t) => [t.id, { id: t.id, group: t.group, alias: t.alias }])) };
}

export function replay(data) {
  const i = exec.scenario.iterationInTest;
  const e = entries[i];
  const t = data.tenants[e.storeId];
  if (!t) { skipped.add(1); return; }
  if (!FAST) {
    const due = exec.scenario.startTime + e.at / SPEED;
    const wait = due - Date.now();
    if (wait > 0) sleepMs(wait);
    lag.add(Math.max(0, Date.now() - due));
  }
  const req = searchRequestOf(e);
  const tg = { tenant: t.id, index_group: t.group || 'none', query_type: e.type, name: e.type };
  const res = http.post(`${ES_URL}/${ALIAS || req.index}/_search`, JSON.stringify(req.body), { headers: ES_JSON_HEADERS, tags: tg, timeout: '30s' });
  const body = checkSearch(res, t.id, { aggs: !!(e.query.aggs || e.query.aggregations) }, tg);
  if (body && body.hits && body.hits.hits) hitsFound.add(body.hits.hits.length);
}

import { sleep } from 'k6';
function sleepMs(ms) { sleep(ms / 1000); }

export default replay;
