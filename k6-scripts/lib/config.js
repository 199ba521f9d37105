// Settings of every scenario, from the environment (k6-scripts/run.sh sets them from lab.env;
// any of them can be given by hand: k6 run -e RATE=20 storefront.js).
//
// Only loopback and the compose service names are accepted as targets: the lab runs without
// security and a load test must never leave the machine; RUNTIME=external (ES_EXTERNAL=1) is the
// exception: the cluster the user named, with its credentials.
import encoding from 'k6/encoding';

export const env = (key, dflt) => {
  const v = __ENV[key];
  return v === undefined || v === '' ? dflt : v;
};

export function envNumber(key, dflt, { min = 0, integer = false } = {}) {
  const raw = env(key, undefined);
  if (raw === undefined) return dflt;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < min || (integer && !Number.isInteger(n))) {
    throw new Error(`${key}=${raw}: want ${integer ? 'an integer' : 'a number'} >= ${min}`);
  }
  return n;
}

export function envList(key) {
  return String(env(key, ''))
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

const DURATION_RE = /^(\d+h)?(\d+m)?(\d+s)?$/;
export function envDuration(key, dflt) {
  const v = env(key, dflt);
  if (!DURATION_RE.test(v) || v === '') throw new Error(`${key}=${v}: want a duration like 30s, 2m, 1h30m`);
  return v;
}
export function seconds(duration) {
  const m = DURATION_RE.exec(duration);
  return (parseInt(m[1] || '0', 10) * 3600) + (parseInt(m[2] || '0', 10) * 60) + parseInt(m[3] || '0', 10);
}

const ALLOWED_HOSTS = /^(127\.\d+\.\d+\.\d+|localhost|\[::1\]|es-master|allocator|[a-z][a-z0-9-]*)$/;
export function checkedUrl(key, dflt, { external = false } = {}) {
  const url = String(env(key, dflt)).replace(/\/+$/, '');
  // RUNTIME=external: the user named this cluster (ES_URL), over http or https, wherever it is
  if (external) {
    if (!/^https?:\/\/[^/\s@]+$/.test(url)) throw new Error(`${key}=${url}: want http(s)://HOST:PORT, without credentials`);
    return url;
  }
  const m = /^http:\/\/([^/:]+|\[::1\])(:\d+)?$/.exec(url);
  if (!m) throw new Error(`${key}=${url}: want http://HOST:PORT`);
  // A dotted name or a non-loopback address is somewhere else: refuse (loopback-only lab).
  if (!ALLOWED_HOSTS.test(m[1]) || (/^\d/.test(m[1]) && !m[1].startsWith('127.'))) {
    throw new Error(`${key}=${url}: the lab is loopback-only; refusing to send load to ${m[1]}`);
  }
  return url;
}

// The cluster's HTTP entry point (es-master) and the allocator API
// RUNTIME=external (ES_EXTERNAL=1): the cluster the user named, not the lab's loopback nodes
export const ES_EXTERNAL = env('ES_EXTERNAL', '') === '1';
export const ES_URL = checkedUrl('ES_URL', 'http://127.0.0.1:9200', { external: ES_EXTERNAL });
export const ALLOCATOR_URL = checkedUrl('ALLOCATOR_URL', 'http://127.0.0.1:8080');

// Which tenants take part: TENANT= one id; TENANTS= a comma list of ids or globs (k6dev-*)
export const TENANT = env('TENANT', '');
export const TENANTS = envList('TENANTS');
// The experiment runner's tenants and aliases (lib/tenants.js), instead of the allocator's
export const TENANTS_FILE = env('TENANTS_FILE', '');

export const DURATION = envDuration('DURATION', '1m');
// Storefront load: RATE= page views per second (arrival rate, the default) or VUS= shoppers with
// think times. Both given is an error (run.sh says so first).
export const RATE = envNumber('RATE', 0, { min: 0 });
export const VUS = envNumber('VUS', 0, { min: 0, integer: true });
export const THINK_MS = envNumber('THINK_MS', 1000, { min: 0 });
export const PAGE_SIZE = envNumber('PAGE_SIZE', 24, { min: 1, integer: true });
// Tenants profiled in setup() (vocabulary, categories, product ids): the heaviest first
export const PROFILE_TENANTS = envNumber('PROFILE_TENANTS', 200, { min: 1, integer: true });
export const SAMPLE_PRODUCTS = envNumber('SAMPLE_PRODUCTS', 100, { min: 1, integer: true });
// Test knob for the cross-tenant check: send TENANT's queries to this alias instead of its own
export const ALIAS = env('ALIAS', '');
// Where handleSummary writes summary.json (run.sh: $LAB_DIR/results/<run-id>)
export const RESULTS_DIR = env('RESULTS_DIR', '');
// RESULTS_DIR as the user sees it (under compose, the host folder mounted at RESULTS_DIR)
export const RESULTS_DIR_SHOWN = env('RESULTS_DIR_SHOWN', RESULTS_DIR);
export const RUN_ID = env('RUN_ID', '');

export const JSON_HEADERS = { 'Content-Type': 'application/json' };
// Requests to Elasticsearch carry the cluster's credentials (RUNTIME=external: run.sh or the
// experiment runner puts the header's value in the environment, never on a command line);
// the allocator's API never sees them.
// Where no such header can be made beforehand (a k6-operator TestRun gets the user and password
// from a Kubernetes secret), ES_USERNAME and ES_PASSWORD make it here.
const BASIC = env('ES_USERNAME', '') && env('ES_PASSWORD', '') ? `Basic ${encoding.b64encode(`${env('ES_USERNAME', '')}:${env('ES_PASSWORD', '')}`)}` : '';
const ES_AUTH_VALUE = env('ES_AUTHORIZATION', '') || BASIC;
const ES_AUTH = ES_AUTH_VALUE ? { Authorization: ES_AUTH_VALUE } : {};
export const ES_JSON_HEADERS = { ...JSON_HEADERS, ...ES_AUTH };
export const ES_NDJSON_HEADERS = { 'Content-Type': 'application/x-ndjson', ...ES_AUTH };
