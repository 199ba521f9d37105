// Experiment spec files (experiments/<name>.yaml): read, check and default one; list a folder;
// resolve a spec into the plan a run follows (QUICK=1's overrides, REPEAT). The format is
// documented in this package's README. Validation is by hand rather than by a JSON Schema so
// every mistake is ONE line naming the file, the field and what is allowed, and an unknown key (a
// typo) is an error instead of a silently ignored setting.
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join, relative, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { SpecError } from './errors.js';
import { DEFAULT_REPORT_METRICS, SETTINGS, columnDef, isMetric } from './metrics.js';
import { averageDocumentBytes, loadDocumentProfile } from '@tenantlab/dataset/documents';
import { profileFiles } from '@tenantlab/dataset/profiles';
import { mulberry32 } from '@tenantlab/dataset/random';

/** A fresh 32-bit seed for a run's order (recorded in its plan, ORDER_SEED= repeats it). */
const randomSeed = () => randomBytes(4).readUInt32LE(0);

export const LIMITS = Object.freeze({
  variants: [2, 12],
  indices: [1, 16],
  many_indices: [1, 50000],
  shards: [1, 64],
  replicas: [0, 3],
  segments: [1, 100],
  repetitions: [1, 20],
  confidence: [0.5, 0.999],
  scale: [0, 100], // exclusive of 0, as the seeder's --scale
  vus: [1, 1000],
  groups: [1, 8],
  data_nodes_per_group: [1, 8],
});
const ASSIGN = ['all', 'odd-even', 'round-robin'];
const SCENARIOS = ['storefront', 'replay', 'ingest', 'many-shards'];
// the write workload (run/ingest.js): bulks of bulk_docs documents of a document profile from
// `clients` concurrent clients, into a new index per repetition
// many-shards (run/many-shards.js): `clients` create each variant's `indices` indices of one
// shard, docs_per_index documents into each; measure bounds the time it may take
// (indices_scale: each variant's indices times this, e.g. 0.02 in QUICK: the same sweep, smaller)
const INGEST_RUN_KEYS = ['clients', 'bulk_docs', 'bulk_bytes', 'docs_per_index', 'indices_scale'];
// a bulk's size in bytes (the guidance's other unit): 500kb, 5mb
const BYTE_SIZE = /^(\d+(?:\.\d+)?)(b|kb|mb)$/i;
const BYTE_UNIT = { b: 1, kb: 1024, mb: 1024 * 1024 };
const MODELS = ['closed', 'open'];
const NAME = /^[a-z0-9][a-z0-9-]*$/;
const GROUP = /^[a-z0-9][a-z0-9_-]*$/;
// durations as the load engine takes them (traffic/lib/config.py, k6's form): 30s, 2m, 1m30s, 500ms, 1h
const DURATION = /^(?:\d+(?:\.\d+)?(?:ms|s|m|h))+$/;
const DURATION_PART = /(\d+(?:\.\d+)?)(ms|s|m|h)/g;
const UNIT_S = { ms: 0.001, s: 1, m: 60, h: 3600 };
// Elasticsearch time values (index.refresh_interval), or -1 to turn refresh off
const ES_TIME = /^\d+(?:d|h|m|s|ms|micros|nanos)$/;

const TOP_KEYS = ['name', 'title', 'hypothesis', 'source', 'dataset', 'lab', 'defaults', 'variants', 'workload', 'repetitions', 'confidence', 'over_budget', 'report', 'expect'];
// The lab an experiment (or one variant) runs on: the topology as a variable. LAB=own starts it.
const LAB_KEYS = ['groups', 'data_nodes_per_group', 'shape', 'data_node', 'write_queue', 'load_engine'];
const DATA_NODE_KEYS = ['cpus', 'cpuset', 'cpu_weight', 'mem', 'heap'];
const SHAPES = ['groups', 'off'];
const CPU_LIST = /^[0-9]+(-[0-9]+)?(,[0-9]+(-[0-9]+)?)*$/;
const LOAD_ENGINE_KEYS = ['cpu_weight', 'cpus_of', 'burst_cpus_of'];
const GROUP_NAME = /^g([1-9][0-9]*)$/;
const SIZE = /^[0-9]+[kmg]?$/i;
const SOURCE_KEYS = ['title', 'url', 'table', 'setup', 'notes', 'published'];
const DATASET_KEYS = ['profile', 'scale', 'seed', 'quick'];
const DATASET_QUICK_KEYS = ['profile', 'scale', 'seed'];
const VARIANT_KEYS = ['name', 'label', 'lab', 'burst', 'isolate', 'quick', ...Object.keys(SETTINGS)];
// A burst on one odd store during the measured window (traffic/experiment.py's burst scenario):
// kind bot, a search bot crawling it at `rate` pages/s (the noisy neighbour); kind resubmit, its
// whole catalogue written back in a loop by `writers` concurrent loops in bulks of `bulk_size`
// (BigCommerce's daily re-submission, the noisy writer): as fast as the bulks are answered, so no rate.
// from and to as fractions of the window, so QUICK's short window keeps the same shape
const BURST_KEYS = ['kind', 'from', 'to', 'rate', 'store', 'group', 'writers', 'bulk_size', 'engine'];
// which load engine sends the burst: the shoppers' own (shared, the default) or a process of its
// own (own), as a bot is a client of its own: in one process the bot's requests queue with the
// shoppers' on one event loop, and the shoppers' latency then rises with the burst whatever the
// cluster does (traffic/experiment.py ENGINE_ROLE)
const BURST_ENGINES = ['shared', 'own'];
// where the burst store lives when the run starts: with its odd neighbours (same), or on the
// other group (other: the control of a closed loop, what the neighbours feel from a crawl that
// never shared their group)
const BURST_GROUPS = ['same', 'other'];
const BURST_KINDS = ['bot', 'resubmit'];
const BURST_STORES = ['biggest', 'smallest'];
const RESUBMIT_KEYS = ['writers', 'bulk_size'];
// A rate may be a share of what the lab answers when saturated, measured at the run's start
// (run/calibrate.js): `rate: { saturation: 0.4 }`. Fixed rates are one machine's: a spec
// calibrated on a slow machine makes no noisy neighbour on one four times faster.
const SATURATION_KEYS = ['saturation'];
// The closed loop (the noisy-neighbour and noisy-writer experiments): the variant's stores are
// placed by a real allocator the runner starts, whose auto-isolation moves the store it finds
// hot; the values are its policy (allocator/policy.json observe, hot, auto) for the run.
// `relative`, `min_rise_ms`, `baseline`: the relative objective (a p95 above relative x the
// group's learned baseline, by at least min_rise_ms); `probe_interval`: how often the allocator
// probes each group. Left out, the allocator's own default applies. `settle`: after the move,
// how long before the neighbours' "after" figures start.
const ISOLATE_KEYS = ['auto', 'window', 'share', 'objective_ms', 'relative', 'min_rise_ms', 'share_rise', 'share_rise_sd', 'baseline', 'probe_interval', 'cool_down', 'interval', 'settle'];
const WORKLOAD_RUN_KEYS = ['vus', 'think_ms', 'rate', 'ramp_up', 'warmup', 'measure', ...INGEST_RUN_KEYS];
// max_error_rate, max_late_rate: a repetition with a larger share of failed requests (written
// documents) or late arrivals is incomplete, and the verdict does not use it
const WORKLOAD_KEYS = ['scenario', 'model', ...WORKLOAD_RUN_KEYS, 'max_error_rate', 'max_late_rate', 'quick'];
const REPORT_KEYS = ['metrics', 'table'];
const EXPECT_KEYS = ['claim', 'metric', 'lower', 'higher', 'than', 'times', 'decreasing', 'increasing', 'variant', 'at_most', 'at_least', 'linear', 'peak', 'x', 'x_label'];
const WORKLOAD_DEFAULTS = { scenario: 'storefront', model: 'closed', vus: 8, think_ms: 0, rate: null, ramp_up: '30s', warmup: '60s', measure: '120s', max_error_rate: 0.01, max_late_rate: 0.05 };
const INGEST_DEFAULTS = { clients: 4, bulk_docs: 1000 };
const MANY_SHARDS_DEFAULTS = { clients: 8, docs_per_index: 100, indices_scale: 1, ramp_up: '0s', warmup: '0s', measure: '15m' };
export const isIngest = (workload) => workload?.scenario === 'ingest';
export const isManyShards = (workload) => workload?.scenario === 'many-shards';
// both write documents of a document profile, with no stores
export const writesDocuments = (workload) => isIngest(workload) || isManyShards(workload);

// Per-variant build allowance for estimatedSeconds: index creation, the seeder's load to green
// and the force-merge. The seeder loads ~8.7k docs/s to green on the project's 2-core machine
// (README, make bench-seed); a replica and the merge cost about as much again.
const BUILD_FIXED_S = 20;
const BUILD_DOCS_PER_S = 8000;

/** The dataset profiles a spec may name (packages/dataset/profiles/*.json): store profiles and document profiles (with a kind). */
export function profileNames() {
  return profileFiles().map(([name]) => name).sort();
}

/** Whether a profile is a document profile (log events, grammar documents) for the ingest workload. */
export const isDocumentProfile = (name) => Boolean(profile(name).kind);

/** A profile a spec named (checked against profileNames first). */
function profile(name) {
  return profileFiles().find(([n]) => n === name)[1];
}

/** A file as the user sees it in a message: relative to the working directory when under it. */
export function shownPath(file) {
  const rel = relative(process.cwd(), resolve(file));
  return rel && !rel.startsWith('..') ? rel : file;
}

// --- small checks; each throws the one-line SpecError -------------------------------------

function got(v) {
  if (v === undefined) return 'nothing';
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return 'a mapping';
  if (typeof v === 'string') return JSON.stringify(v.length > 60 ? `${v.slice(0, 57)}...` : v);
  return String(v);
}

/** Edit distance, for "did you mean" on a typo. */
function distance(a, b) {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cur = row[j];
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = cur;
    }
  }
  return row[b.length];
}

class Checker {
  constructor(file) {
    this.file = file;
  }

  fail(path, message) {
    throw new SpecError(this.file, path, message);
  }

  mapping(v, path, keys) {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) this.fail(path, `must be a mapping of ${keys.join(', ')} (got ${got(v)})`);
    for (const key of Object.keys(v)) {
      if (keys.includes(key)) continue;
      const near = keys.filter((k) => distance(k, key) <= 2).sort((x, y) => distance(x, key) - distance(y, key))[0];
      const at = path ? `${path}.${key}` : key;
      this.fail(at, `unknown key${near ? `; did you mean ${near}?` : ''} (allowed: ${keys.join(', ')})`);
    }
    return v;
  }

  required(v, path, what) {
    if (v === undefined || v === null) this.fail(path, `missing (${what})`);
  }

  text(v, path) {
    if (typeof v !== 'string' || v.trim() === '') this.fail(path, `must be a non-empty text (got ${got(v)})`);
    return v.trim();
  }

  integer(v, path, [min, max] = [1, Infinity]) {
    if (!Number.isInteger(v) || v < min) {
      const what = min === 1 ? 'a positive integer' : max === Infinity ? `an integer >= ${min}` : `an integer from ${min} to ${max}`;
      this.fail(path, `must be ${what} (got ${got(v)})`);
    }
    if (v > max) this.fail(path, `must be at most ${max} (got ${got(v)})`);
    return v;
  }

  number(v, path, [min, max], { exclusiveMin = false } = {}) {
    const low = exclusiveMin ? v <= min : v < min;
    if (typeof v !== 'number' || !Number.isFinite(v) || low || v > max) {
      this.fail(path, `must be a number ${exclusiveMin ? `above ${min}` : `from ${min}`}${max === Infinity ? '' : ` ${exclusiveMin ? 'and at most' : 'to'} ${max}`} (got ${got(v)})`);
    }
    return v;
  }

  oneOf(v, path, allowed) {
    if (!allowed.includes(v)) this.fail(path, `must be one of ${allowed.join(', ')} (got ${got(v)})`);
    return v;
  }

  duration(v, path, { positive = false } = {}) {
    if (typeof v !== 'string' || !DURATION.test(v)) this.fail(path, `must be a duration like 30s, 2m or 1m30s (got ${got(v)})`);
    if (positive && durationSeconds(v) <= 0) this.fail(path, `must be longer than 0s (got ${got(v)})`);
    return v;
  }

  list(v, path, [min, max], what) {
    if (!Array.isArray(v)) this.fail(path, `must be a list of ${what} (got ${got(v)})`);
    if (v.length < min || v.length > max) {
      this.fail(path, `must list ${max === Infinity ? `at least ${min}` : `${min} to ${max}`} ${what} (got ${v.length})`);
    }
    return v;
  }
}

/** A duration ("1m30s") -> seconds. */
export function durationSeconds(d) {
  let s = 0;
  for (const [, n, unit] of String(d).matchAll(DURATION_PART)) s += Number(n) * UNIT_S[unit];
  return s;
}

// --- the spec's sections ---------------------------------------------------------------------

function checkSource(c, v, variantNames) {
  const src = c.mapping(v, 'source', SOURCE_KEYS);
  const out = { title: c.text(src.title, 'source.title') };
  if (typeof src.url !== 'string' || !/^https?:\/\/\S+$/.test(src.url)) c.fail('source.url', `must be an http(s) address (got ${got(src.url)})`);
  out.url = src.url;
  for (const key of ['table', 'setup', 'notes']) if (src[key] !== undefined) out[key] = c.text(src[key], `source.${key}`);
  if (src.published !== undefined) {
    const pub = src.published;
    if (pub === null || typeof pub !== 'object' || Array.isArray(pub)) c.fail('source.published', `must be a mapping of variant name -> { metric: figure } (got ${got(pub)})`);
    out.published = {};
    for (const [variant, figures] of Object.entries(pub)) {
      const at = `source.published.${variant}`;
      if (!variantNames.includes(variant)) c.fail(at, `not a variant of this spec (variants: ${variantNames.join(', ')})`);
      if (figures === null || typeof figures !== 'object' || Array.isArray(figures)) c.fail(at, `must be a mapping of metric -> figure, e.g. { avg_ms: 223 } (got ${got(figures)})`);
      out.published[variant] = {};
      for (const [metric, figure] of Object.entries(figures)) {
        if (!isMetric(metric)) c.fail(`${at}.${metric}`, 'not a metric name (e.g. avg_ms, p95_ms, throughput_rps; the README lists the names)');
        out.published[variant][metric] = c.number(figure, `${at}.${metric}`, [0, Infinity]);
      }
    }
  }
  return out;
}

function checkDataset(c, v) {
  const ds = c.mapping(v, 'dataset', DATASET_KEYS);
  const names = profileNames();
  const one = (d, path, base) => {
    const out = { ...base };
    if (d.profile !== undefined || !base.profile) {
      c.required(d.profile, `${path}.profile`, `a dataset profile: ${names.join(', ')}`);
      out.profile = c.oneOf(d.profile, `${path}.profile`, names);
    }
    if (d.scale !== undefined) out.scale = c.number(d.scale, `${path}.scale`, LIMITS.scale, { exclusiveMin: true });
    if (d.seed !== undefined) out.seed = c.integer(d.seed, `${path}.seed`, [0, Number.MAX_SAFE_INTEGER]);
    return out;
  };
  const full = one(ds, 'dataset', { profile: undefined, scale: 1, seed: 1 });
  const quick = ds.quick === undefined ? { ...full } : one(c.mapping(ds.quick, 'dataset.quick', DATASET_QUICK_KEYS), 'dataset.quick', full);
  return { ...full, quick };
}

function checkSettings(c, s, path, scenario) {
  const out = {};
  // many-shards: indices is the number of indices the clients create (Elastic's benchmark: 50,000)
  if (s.indices !== undefined) out.indices = c.integer(s.indices, `${path}.indices`, scenario === 'many-shards' ? LIMITS.many_indices : LIMITS.indices);
  if (s.shards !== undefined) out.shards = c.integer(s.shards, `${path}.shards`, LIMITS.shards);
  if (s.replicas !== undefined) out.replicas = c.integer(s.replicas, `${path}.replicas`, LIMITS.replicas);
  if (s.segments !== undefined) out.segments = c.integer(s.segments, `${path}.segments`, LIMITS.segments);
  if (s.refresh_interval !== undefined) {
    const r = s.refresh_interval;
    if (!(r === -1 || r === '-1' || (typeof r === 'string' && ES_TIME.test(r)))) {
      c.fail(`${path}.refresh_interval`, `must be an Elasticsearch time value like 1s, 500ms, 30s, or -1 (got ${got(r)})`);
    }
    out.refresh_interval = String(r);
  }
  if (s.group !== undefined) {
    if (typeof s.group !== 'string' || !GROUP.test(s.group)) c.fail(`${path}.group`, `must be "all", "spread" (index i on the i-th index group) or an index group name of lab.env such as g1 (got ${got(s.group)})`);
    out.group = s.group;
  }
  if (s.assign !== undefined) out.assign = c.oneOf(s.assign, `${path}.assign`, ASSIGN);
  return out;
}

/** A `lab:` mapping -> { groups, data_nodes_per_group, shape, data_node, load_engine } (only what it sets). */
function checkLab(c, v, path) {
  const l = c.mapping(v, path, LAB_KEYS);
  const out = {};
  if (l.groups !== undefined) out.groups = c.integer(l.groups, `${path}.groups`, LIMITS.groups);
  if (l.data_nodes_per_group !== undefined) out.data_nodes_per_group = c.integer(l.data_nodes_per_group, `${path}.data_nodes_per_group`, LIMITS.data_nodes_per_group);
  if (l.shape !== undefined) out.shape = c.oneOf(l.shape, `${path}.shape`, SHAPES);
  // every node's write thread pool queue (thread_pool.write.queue_size, a node setting): small
  // enough on a laptop, full bulks are rejected as on the guidance's cluster
  if (l.write_queue !== undefined) out.write_queue = c.integer(l.write_queue, `${path}.write_queue`, [1, 100000]);
  if (l.data_node !== undefined) {
    const d = c.mapping(l.data_node, `${path}.data_node`, DATA_NODE_KEYS);
    const n = {};
    if (d.cpus !== undefined) n.cpus = c.number(d.cpus, `${path}.data_node.cpus`, [0, 256], { exclusiveMin: true });
    if (d.cpuset !== undefined) {
      if (!CPU_LIST.test(String(d.cpuset))) c.fail(`${path}.data_node.cpuset`, `must be a CPU list like 0, 0-1 or 0,2 (got ${got(d.cpuset)})`);
      n.cpuset = String(d.cpuset);
    }
    // the nodes' weight against what else wants their CPUs (lab.env's <KEY>_CPU_WEIGHT)
    if (d.cpu_weight !== undefined) n.cpu_weight = c.integer(d.cpu_weight, `${path}.data_node.cpu_weight`, [1, 10000]);
    for (const k of ['mem', 'heap']) {
      if (d[k] === undefined) continue;
      if (!SIZE.test(String(d[k]))) c.fail(`${path}.data_node.${k}`, `must be a size like 512m or 2g (got ${got(d[k])})`);
      n[k] = String(d[k]);
    }
    out.data_node = n;
  }
  // the load engine's weight beside the nodes (lab.env's LOAD_CPU_WEIGHT): the instrument that
  // measures them, as if it had a host of its own
  // ... and where it runs: cpus_of / burst_cpus_of name an index group whose CPU slice (SHAPE=groups)
  // the shoppers' engine / the burst's own engine (burst.engine: own) are pinned to, as clients
  // on hosts of their own would leave the other group's CPU alone
  if (l.load_engine !== undefined) {
    const e = c.mapping(l.load_engine, `${path}.load_engine`, LOAD_ENGINE_KEYS);
    if (LOAD_ENGINE_KEYS.every((k) => e[k] === undefined)) c.fail(`${path}.load_engine`, `needs one of ${LOAD_ENGINE_KEYS.join(', ')}: the load engine's CPU weight (1 to 10000, 100 is one ordinary process) or the index group whose CPUs it runs on (g1, g2, ...)`);
    const engine = {};
    if (e.cpu_weight !== undefined) engine.cpu_weight = c.integer(e.cpu_weight, `${path}.load_engine.cpu_weight`, [1, 10000]);
    for (const k of ['cpus_of', 'burst_cpus_of']) {
      if (e[k] === undefined) continue;
      const m = GROUP_NAME.exec(String(e[k]));
      if (!m) c.fail(`${path}.load_engine.${k}`, `must name an index group like g1 or g2 (got ${got(e[k])})`);
      if (out.groups !== undefined && Number(m[1]) > out.groups) c.fail(`${path}.load_engine.${k}`, `names ${e[k]}, but this lab has ${out.groups} index group(s): g1 to g${out.groups}`);
      if (out.shape === 'off') c.fail(`${path}.load_engine.${k}`, 'needs the groups\' CPU slices, which SHAPE=off does not make: leave shape out or set it to groups');
      engine[k] = String(e[k]);
    }
    out.load_engine = engine;
  }
  return out;
}

function checkVariants(c, v, defaults, lab, scenario) {
  c.list(v, 'variants', LIMITS.variants, 'variants');
  const seen = new Map();
  const out = v.map((raw, i) => {
    const path = `variants[${i}]`;
    const item = c.mapping(raw, path, VARIANT_KEYS);
    // a bare number (`name: 16`) is read by YAML as a number; it is still a fine name
    const name = Number.isInteger(item.name) && item.name >= 0 ? String(item.name) : item.name;
    c.required(name, `${path}.name`, 'a name like 1x8: lower-case letters, digits, dashes');
    if (typeof name !== 'string' || !NAME.test(name)) c.fail(`${path}.name`, `must be a name like 1x8: lower-case letters, digits, dashes, starting with a letter or digit (got ${got(name)})`);
    if (seen.has(name)) c.fail(`${path}.name`, `"${name}" is already the name of variants[${seen.get(name)}]`);
    seen.set(name, i);
    const label = item.label === undefined ? name : c.text(String(item.label), `${path}.label`);
    const settings = { ...defaults, ...checkSettings(c, item, path, scenario) };
    for (const key of Object.keys(SETTINGS)) {
      if (settings[key] === undefined) c.fail(`${path}.${key}`, 'missing (set it here or in defaults)');
    }
    const { assign, indices } = settings;
    // how stores are assigned to indices: a search workload's question (the write workloads have no stores)
    if (scenario !== 'ingest' && scenario !== 'many-shards' && assign === 'all' && indices !== 1) c.fail(`${path}.assign`, `all puts every store in one index, so indices must be 1 (got indices: ${indices}); use odd-even or round-robin`);
    if (scenario !== 'ingest' && scenario !== 'many-shards' && assign === 'odd-even' && indices !== 2) c.fail(`${path}.assign`, `odd-even needs indices: 2 (got indices: ${indices})`);
    // the variant's lab: the experiment's, with what the variant sets on top; null: the lab as it is
    const own = item.lab === undefined ? null : checkLab(c, item.lab, `${path}.lab`);
    const merged = lab || own ? { ...lab, ...own, ...(lab?.data_node || own?.data_node ? { data_node: { ...lab?.data_node, ...own?.data_node } } : {}) } : null;
    const burst = item.burst === undefined ? null : checkBurst(c, item.burst, `${path}.burst`);
    let isolate = null;
    if (item.isolate !== undefined) {
      const iso = c.mapping(item.isolate, `${path}.isolate`, ISOLATE_KEYS);
      c.required(iso.objective_ms, `${path}.isolate.objective_ms`, "the group's absolute latency objective in ms: p95 of the storefront-shaped probe searches (allocator policy hot.objectiveMs)");
      const secs = (key, dflt, min) => {
        if (iso[key] === undefined) return dflt;
        const d = c.duration(iso[key], `${path}.isolate.${key}`);
        const n = durationSeconds(d);
        if (n < min) c.fail(`${path}.isolate.${key}`, `must be at least ${min}s (got ${got(iso[key])})`);
        return n;
      };
      if (iso.auto !== undefined && typeof iso.auto !== 'boolean') c.fail(`${path}.isolate.auto`, `must be true (the allocator moves the hot store) or false (it only flags it) (got ${got(iso.auto)})`);
      const windowS = secs('window', 15, 10);
      isolate = {
        auto: iso.auto ?? true,
        window_s: windowS,
        share: iso.share === undefined ? 0.3 : c.number(iso.share, `${path}.isolate.share`, [0, 1], { exclusiveMin: true }),
        objective_ms: c.number(iso.objective_ms, `${path}.isolate.objective_ms`, [0, 100000], { exclusiveMin: true }),
        ...checkObjective(c, iso, `${path}.isolate`, windowS),
        cool_down_s: secs('cool_down', 600, 0),
        interval_s: secs('interval', 1, 0.5),
        settle_s: secs('settle', 5, 0),
      };
      if (!burst) c.fail(`${path}.isolate`, 'needs a burst in the same variant: the allocator isolates the store the burst makes hot');
      // a control is never moved: its store starts where the others' would be moved to
      if (burst.group === 'other' && isolate.auto) c.fail(`${path}.burst.group`, 'other (the burst store on the other group from the start, a control) needs isolate.auto: false: a control is never moved');
      if (settings.group !== 'spread' || settings.assign !== 'odd-even') c.fail(`${path}.isolate`, `places odd stores on the first group and even stores on the second: set group: spread and assign: odd-even (got group: ${settings.group}, assign: ${settings.assign})`);
    }
    if (burst?.group !== undefined && !isolate) c.fail(`${path}.burst.group`, 'only with isolate (the allocator places the stores: odd on the first group, even on the second)');
    // quick: false leaves the variant out of QUICK runs (the demo): a control only a verdict needs
    if (item.quick !== undefined && item.quick !== false) c.fail(`${path}.quick`, `only false: the variant is left out of QUICK runs (got ${got(item.quick)})`);
    return { name, label, lab: merged, ...(burst ? { burst } : {}), ...(isolate ? { isolate } : {}), ...(item.quick === false ? { quick: false } : {}), settings: Object.fromEntries(Object.keys(SETTINGS).map((k) => [k, settings[k]])) };
  });
  if (out.every((x) => x.quick === false)) c.fail('variants', 'every variant has quick: false: a QUICK run would measure none');
  return out;
}

/** A variant's `burst:` -> { kind, from, to, store?, group?, engine?, rate (bot) | writers, bulk_size (resubmit) }. */
function checkBurst(c, v, path) {
  const b = c.mapping(v, path, BURST_KEYS);
  const kind = b.kind === undefined ? 'bot' : c.oneOf(b.kind, `${path}.kind`, BURST_KINDS);
  c.required(b.from, `${path}.from`, 'where the burst starts, as a fraction of the measured window (0.4)');
  c.required(b.to, `${path}.to`, 'where it ends, as a fraction of the measured window (0.7)');
  const burst = { kind, from: c.number(b.from, `${path}.from`, [0, 0.95]), to: c.number(b.to, `${path}.to`, [0.05, 1]) };
  if (burst.to <= burst.from) c.fail(`${path}.to`, `must be after from (${burst.from}; got ${burst.to})`);
  if (kind === 'bot') {
    for (const k of RESUBMIT_KEYS) if (b[k] !== undefined) c.fail(`${path}.${k}`, 'only for kind: resubmit (a search bot takes rate)');
    Object.assign(burst, b.rate === undefined ? { rate: 30 } : rateOf(c, b.rate, `${path}.rate`, [1, 1000]));
  } else {
    // the writers go as fast as their bulks are answered: a rate would be a setting nobody applies
    if (b.rate !== undefined) c.fail(`${path}.rate`, 'not for kind: resubmit (its writers send the next bulk when the last is answered; set writers and bulk_size)');
    burst.writers = b.writers === undefined ? 2 : c.integer(b.writers, `${path}.writers`, [1, 8]);
    burst.bulk_size = b.bulk_size === undefined ? 500 : c.integer(b.bulk_size, `${path}.bulk_size`, [10, 5000]);
  }
  if (b.store !== undefined) burst.store = c.oneOf(b.store, `${path}.store`, BURST_STORES);
  if (b.group !== undefined) burst.group = c.oneOf(b.group, `${path}.group`, BURST_GROUPS);
  if (b.engine !== undefined) burst.engine = c.oneOf(b.engine, `${path}.engine`, BURST_ENGINES);
  return burst;
}

/**
 * The relative objective and the probe's pace of an `isolate:` -> { relative, min_rise_ms,
 * share_rise, share_rise_sd, baseline_s, probe_interval_ms }, each only when the spec sets it (else the allocator's default).
 */
function checkObjective(c, iso, path, windowS) {
  const out = {};
  if (iso.relative !== undefined) out.relative = c.number(iso.relative, `${path}.relative`, [1, 10], { exclusiveMin: true });
  if (iso.min_rise_ms !== undefined) out.min_rise_ms = c.number(iso.min_rise_ms, `${path}.min_rise_ms`, [0, 100000]);
  // hot.shareRise: how far above its own normal share a tenant's share must be to be the culprit
  if (iso.share_rise !== undefined) out.share_rise = c.number(iso.share_rise, `${path}.share_rise`, [0, 0.99]);
  // hot.shareRiseSd: and at least this many standard deviations of that normal share
  if (iso.share_rise_sd !== undefined) out.share_rise_sd = c.number(iso.share_rise_sd, `${path}.share_rise_sd`, [0, 10]);
  if (iso.baseline !== undefined) {
    const n = durationSeconds(c.duration(iso.baseline, `${path}.baseline`));
    // the allocator learns its baseline in whole seconds, over at least one observation window
    if (!Number.isInteger(n)) c.fail(`${path}.baseline`, `must be whole seconds, like 120s or 10m (got ${got(iso.baseline)})`);
    if (n < windowS || n > 86400) c.fail(`${path}.baseline`, `must be from the window (${windowS}s) to 24h (got ${got(iso.baseline)})`);
    out.baseline_s = n;
  }
  if (iso.probe_interval !== undefined) {
    const ms = Math.round(durationSeconds(c.duration(iso.probe_interval, `${path}.probe_interval`)) * 1000);
    if (ms < 100 || ms > 60000) c.fail(`${path}.probe_interval`, `must be from 100ms to 60s (got ${got(iso.probe_interval)})`);
    // several probes per window, or the window's p95 is one probe's latency
    if (ms >= windowS * 1000) c.fail(`${path}.probe_interval`, `must be shorter than window (${windowS}s; got ${got(iso.probe_interval)})`);
    out.probe_interval_ms = ms;
  }
  return out;
}

/**
 * A `rate:` -> { rate } (a number in `range`, exclusive of its low end when exclusiveMin), or
 * { rate: null, rate_of_saturation } for `{ saturation: share }`: the runner sets the rate once
 * it has measured the lab's saturation (run/calibrate.js).
 */
function rateOf(c, v, path, range, { exclusiveMin = false } = {}) {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return { rate: c.number(v, path, range, { exclusiveMin }) };
  const m = c.mapping(v, path, SATURATION_KEYS);
  c.required(m.saturation, `${path}.saturation`, "the share of the lab's saturation rate, e.g. 0.4");
  return { rate: null, rate_of_saturation: c.number(m.saturation, `${path}.saturation`, [0, 2], { exclusiveMin: true }) };
}

// The calibration's windows (run/calibrate.js): closed shoppers with no think time, windows
// until the last `windows - 1` set no new high more than `tolerance` above the best before them
// (the lab stopped getting faster), at most maxPasses; the saturation is the median of the last
// `windows`. 8 shoppers: the count that saturated the Intel Xeon lab the
// noisy-neighbour shares were measured on (300-320 page views/s). A full run calibrates after a
// cold round of full saturated windows (about 5 minutes for noisy-neighbour), a QUICK run (the
// demo) after one of seconds on indices just built: its own windows do the warming, so it may
// take many more. A lab just started is far from its saturation: 40-s saturated windows of
// `make load` on a fresh native lab answered 242, 344, 417, 484, 551, 559 and 539 page views/s
// (2026-11-29, 3 to 7 minutes after make up), and two 5-s windows within 10% stopped the demo's
// calibration at 181 page views/s on a lab that answered 712 ten minutes later: its bot, at 30%
// of the cold figure, flagged 1 of 5. Two windows with no new high wait for the plateau (a warm
// lab's 8-s windows scatter by 10% with no trend: a rule on their spread would wait for ever);
// QUICK's 20 windows of 8 s give a fresh lab about five minutes to reach it.
export const CALIBRATION = Object.freeze({ vus: 8, rampS: 2, warmS: 3, windowS: 15, tolerance: 0.05, windows: 3, maxPasses: 8 });
export const CALIBRATION_QUICK = Object.freeze({ vus: 8, rampS: 1, warmS: 2, windowS: 8, tolerance: 0.05, windows: 3, maxPasses: 20 });
// a window's load engine start and stop, beside its phases (estimatedSeconds)
const LOAD_START_S = 3;

/** Whether a plan has a rate that is a share of the lab's saturation (the workload's or a burst's). */
export const needsCalibration = (plan) => Boolean(plan.workload.rate_of_saturation || plan.variants.some((v) => v.burst?.rate_of_saturation));

function checkRun(c, w, path, base) {
  const out = { ...base };
  if (writesDocuments(out)) {
    // a write run is closed (each client sends its next request when the last is answered):
    // the storefront's knobs mean nothing to it
    const takes = isIngest(out) ? 'clients and bulk_docs or bulk_bytes' : 'clients and docs_per_index';
    for (const k of ['vus', 'think_ms', 'rate']) if (w[k] !== undefined) c.fail(`${path}.${k}`, `not for scenario: ${out.scenario} (it takes ${takes})`);
    if (w.clients !== undefined) out.clients = c.integer(w.clients, `${path}.clients`, [1, 256]);
    const own = isIngest(out) ? 'bulk_docs' : 'docs_per_index';
    for (const k of ['bulk_docs', 'docs_per_index']) {
      if (w[k] === undefined) continue;
      if (k !== own) c.fail(`${path}.${k}`, `not for scenario: ${out.scenario} (it takes ${takes})`);
      out[k] = c.integer(w[k], `${path}.${k}`, [1, 100000]);
      if (k === 'bulk_docs') delete out.bulk_bytes;
    }
    if (w.bulk_bytes !== undefined) {
      if (!isIngest(out)) c.fail(`${path}.bulk_bytes`, `not for scenario: ${out.scenario} (it takes ${takes})`);
      if (w.bulk_docs !== undefined) c.fail(`${path}.bulk_bytes`, 'give bulk_docs or bulk_bytes, not both');
      const m = BYTE_SIZE.exec(String(w.bulk_bytes));
      const bytes = m ? Math.round(Number(m[1]) * BYTE_UNIT[m[2].toLowerCase()]) : NaN;
      if (!(bytes >= 1024 && bytes <= 100 * 1024 * 1024)) c.fail(`${path}.bulk_bytes`, `must be a size from 1kb to 100mb, like 500kb or 5mb (got ${got(w.bulk_bytes)})`);
      out.bulk_bytes = bytes;
    }
    if (w.indices_scale !== undefined) {
      if (!isManyShards(out)) c.fail(`${path}.indices_scale`, `not for scenario: ${out.scenario} (only many-shards)`);
      out.indices_scale = c.number(w.indices_scale, `${path}.indices_scale`, [0, 1], { exclusiveMin: true });
    }
    // many-shards runs until its indices are made: no ramp-up, no warm-up, measure is its bound
    if (isManyShards(out)) for (const k of ['ramp_up', 'warmup']) if (w[k] !== undefined) c.fail(`${path}.${k}`, 'not for scenario: many-shards (it runs until every index is made; measure bounds it)');
  } else {
    for (const k of INGEST_RUN_KEYS) if (w[k] !== undefined) c.fail(`${path}.${k}`, `only for scenario: ingest or many-shards (the ${out.scenario} workload takes vus, think_ms or rate)`);
  }
  if (w.vus !== undefined) out.vus = c.integer(w.vus, `${path}.vus`, LIMITS.vus);
  if (w.think_ms !== undefined) out.think_ms = c.number(w.think_ms, `${path}.think_ms`, [0, 600000]);
  if (w.rate !== undefined) {
    delete out.rate_of_saturation;
    Object.assign(out, w.rate === null ? { rate: null } : rateOf(c, w.rate, `${path}.rate`, [0, 100000], { exclusiveMin: true }));
  }
  if (w.ramp_up !== undefined) out.ramp_up = c.duration(w.ramp_up, `${path}.ramp_up`);
  if (w.warmup !== undefined) out.warmup = c.duration(w.warmup, `${path}.warmup`);
  if (w.measure !== undefined) out.measure = c.duration(w.measure, `${path}.measure`, { positive: true });
  // the model decides which knobs mean something: a knob of the other model is a mistake
  if (out.model === 'closed' && (out.rate !== null || out.rate_of_saturation)) c.fail(`${path}.rate`, `only for model: open (got ${got(w.rate ?? out.rate)}); a closed model takes vus and think_ms`);
  if (out.model === 'open') {
    if (out.rate === null && !out.rate_of_saturation) c.fail(`${path}.rate`, "missing (model: open needs a rate in requests/s, or { saturation: share } of the lab's saturation)");
    if (out.think_ms !== 0) c.fail(`${path}.think_ms`, `only for model: closed (got ${got(out.think_ms)}); an open model paces by rate`);
  }
  return out;
}

function checkWorkload(c, v) {
  const w = c.mapping(v ?? {}, 'workload', WORKLOAD_KEYS);
  const base = { ...WORKLOAD_DEFAULTS };
  if (w.scenario !== undefined) base.scenario = c.oneOf(w.scenario, 'workload.scenario', SCENARIOS);
  if (w.model !== undefined) base.model = c.oneOf(w.model, 'workload.model', MODELS);
  if (writesDocuments(base)) {
    if (base.model !== 'closed') c.fail('workload.model', `scenario: ${base.scenario} is closed (each client sends its next request when the last is answered)`);
    Object.assign(base, isIngest(base) ? INGEST_DEFAULTS : MANY_SHARDS_DEFAULTS, { vus: null, think_ms: null });
  }
  for (const k of ['max_error_rate', 'max_late_rate']) if (w[k] !== undefined) base[k] = c.number(w[k], `workload.${k}`, [0, 1]);
  const full = checkRun(c, w, 'workload', base);
  const quick = w.quick === undefined ? { ...full } : checkRun(c, c.mapping(w.quick, 'workload.quick', WORKLOAD_RUN_KEYS), 'workload.quick', full);
  return { ...full, quick };
}

/** The dataset and the variants suit the workload: documents for ingest, stores for searches. */
function checkWorkloadFits(c, { dataset, variants, workload, doc }) {
  const docs = profileNames().filter(isDocumentProfile);
  const stores = profileNames().filter((n) => !isDocumentProfile(n));
  const writes = writesDocuments(workload);
  for (const [path, name] of [['dataset.profile', dataset.profile], ['dataset.quick.profile', dataset.quick.profile]]) {
    if (writes && !isDocumentProfile(name)) c.fail(path, `scenario: ${workload.scenario} writes documents of a document profile: ${docs.join(', ')} (got ${got(name)}, a store profile)`);
    if (!writes && isDocumentProfile(name)) c.fail(path, `the ${workload.scenario} workload searches stores of a store profile: ${stores.join(', ')} (got ${got(name)}, a document profile for scenario: ingest or many-shards)`);
  }
  // the saturation is measured with the storefront's own mix (run/calibrate.js): a replayed
  // log's pace is the log's
  if (workload.scenario !== 'storefront') {
    if (workload.rate_of_saturation || workload.quick.rate_of_saturation) c.fail('workload.rate.saturation', `only for scenario: storefront (the lab's saturation is measured with its page views; got ${workload.scenario})`);
    variants.forEach((v, i) => { if (v.burst?.rate_of_saturation) c.fail(`variants[${i}].burst.rate.saturation`, `only for scenario: storefront (got ${workload.scenario})`); });
  }
  if (!writes) return;
  if (doc.dataset?.scale !== undefined) c.fail('dataset.scale', `not for scenario: ${workload.scenario} (what is written is set by the workload)`);
  variants.forEach((v, i) => {
    for (const k of ['burst', 'isolate']) if (v[k]) c.fail(`variants[${i}].${k}`, `not for scenario: ${workload.scenario} (a search workload's setting)`);
    if (isIngest(workload) && v.settings.indices !== 1) c.fail(`variants[${i}].indices`, `scenario: ingest writes into one index (got ${v.settings.indices})`);
    if (v.settings.group === 'spread') c.fail(`variants[${i}].group`, `scenario: ${workload.scenario} takes all or an index group name`);
    // Elastic's many-shards indices: one primary, no replica
    if (isManyShards(workload) && (v.settings.shards !== 1 || v.settings.replicas !== 0)) c.fail(`variants[${i}]`, `scenario: many-shards creates indices of 1 shard and 0 replicas (got shards: ${v.settings.shards}, replicas: ${v.settings.replicas})`);
  });
}

function checkReport(c, v) {
  const r = c.mapping(v ?? {}, 'report', REPORT_KEYS);
  const names = (list, path, ok, what, one) => {
    c.list(list, path, [1, 30], what);
    list.forEach((m, i) => {
      if (!ok(m)) c.fail(`${path}[${i}]`, `not ${one} (got ${got(m)}; the README lists the names)`);
      if (list.indexOf(m) !== i) c.fail(`${path}[${i}]`, `${got(m)} is listed twice`);
    });
    return [...list];
  };
  const metrics = r.metrics === undefined ? [...DEFAULT_REPORT_METRICS] : names(r.metrics, 'report.metrics', isMetric, 'metric names', 'a metric name');
  const table = r.table === undefined ? [...metrics] : names(r.table, 'report.table', (n) => columnDef(n) !== null, 'column names', 'a column name: a variant setting, a layout fact or a metric');
  return { metrics, table };
}

function checkExpect(c, v, variantNames) {
  c.list(v, 'expect', [1, 20], 'expected directions');
  const variant = (name, path) => {
    const n = Number.isInteger(name) ? String(name) : name;
    if (!variantNames.includes(n)) c.fail(path, `must be a variant name: ${variantNames.join(', ')} (got ${got(name)})`);
    return n;
  };
  return v.map((raw, i) => {
    const path = `expect[${i}]`;
    const e = c.mapping(raw, path, EXPECT_KEYS);
    const claim = c.text(e.claim, `${path}.claim`);
    c.required(e.metric, `${path}.metric`, 'a metric name such as p95_ms, or a list of figures of the same windows such as [avg_ms, p95_ms]');
    // figures of the same windows (average and p95) are one direction with two figures, not two
    // confirmations: held when every figure holds, the opposite when every figure shows it
    const metrics = Array.isArray(e.metric) ? c.list(e.metric, `${path}.metric`, [1, 3], 'metric names of the same windows') : [e.metric];
    metrics.forEach((m, j) => {
      const where = Array.isArray(e.metric) ? `${path}.metric[${j}]` : `${path}.metric`;
      if (!isMetric(m)) c.fail(where, `not a metric name (got ${got(m)}; e.g. avg_ms, p95_ms, throughput_rps)`);
      if (metrics.indexOf(m) !== j) c.fail(where, `${got(m)} is listed twice`);
    });
    const forms = ['lower', 'higher', 'decreasing', 'increasing', 'at_most', 'at_least', 'linear', 'peak'].filter((k) => e[k] !== undefined);
    if (forms.length !== 1) {
      c.fail(path, `give one direction: lower or higher (with than), decreasing or increasing, at_most or at_least (with variant), linear or peak (with x) (got ${forms.length ? forms.join(' and ') : 'none'})`);
    }
    const [direction] = forms;
    const many = metrics.length > 1 ? { metrics } : {};
    if (metrics.length > 1 && !['lower', 'higher', 'decreasing', 'increasing', 'at_most', 'at_least'].includes(direction)) c.fail(`${path}.metric`, `one metric with ${direction} (a list of figures is for lower, higher, decreasing, increasing, at_most and at_least)`);
    const [metric] = metrics;
    if (direction === 'linear' || direction === 'peak') {
      // a curve over a numeric variable (data nodes, shards): the variants in order and their x
      const list = c.list(e[direction], `${path}.${direction}`, [3, LIMITS.variants[1]], 'variant names in the order of x');
      const order = list.map((n, j) => variant(n, `${path}.${direction}[${j}]`));
      order.forEach((n, j) => { if (order.indexOf(n) !== j) c.fail(`${path}.${direction}[${j}]`, `"${n}" is listed twice`); });
      c.required(e.x, `${path}.x`, `the numeric value of each of ${order.join(', ')} (e.g. data nodes: [1, 2, 3, 4])`);
      const x = c.list(e.x, `${path}.x`, [order.length, order.length], `numbers, one per variant of ${direction}`).map((n, j) => c.number(n, `${path}.x[${j}]`, [0, 1e9]));
      x.forEach((n, j) => { if (j && n <= x[j - 1]) c.fail(`${path}.x[${j}]`, `must be above the one before (${x[j - 1]}; got ${n})`); });
      return { claim, metric, form: direction, direction, variants: order, x, x_label: e.x_label === undefined ? 'x' : c.text(e.x_label, `${path}.x_label`) };
    }
    if (e.x !== undefined) c.fail(`${path}.x`, 'only with linear or peak');
    if (e.x_label !== undefined) c.fail(`${path}.x_label`, 'only with linear or peak');
    if (direction === 'at_most' || direction === 'at_least') {
      // one variant's figure against a bound (the article's "stays within 10%": at_most 1.1)
      c.required(e.variant, `${path}.variant`, `the variant whose ${metric} is held to the bound`);
      const bound = c.number(e[direction], `${path}.${direction}`, [-1e12, 1e12]);
      return { claim, metric, ...many, form: 'bound', direction, bound, variants: [variant(e.variant, `${path}.variant`)] };
    }
    if (e.variant !== undefined) c.fail(`${path}.variant`, 'only with at_most or at_least (a comparison names its variants in lower/higher and than)');
    if (direction === 'lower' || direction === 'higher') {
      c.required(e.than, `${path}.than`, `the variant ${direction === 'lower' ? 'expected slower' : 'expected lower'} to compare with`);
      const subject = variant(e[direction], `${path}.${direction}`);
      const than = variant(e.than, `${path}.than`);
      if (subject === than) c.fail(`${path}.than`, `must be another variant than ${direction}: ${subject}`);
      // lower than `times` x the other's (1.15: "within 15% of it"), a non-inferiority margin
      const times = e.times === undefined ? {} : { times: c.number(e.times, `${path}.times`, [0.01, 100]) };
      return { claim, metric, ...many, form: 'pairwise', direction, variants: [subject, than], ...times };
    }
    if (e.times !== undefined) c.fail(`${path}.times`, 'only with lower or higher (a comparison of two variants: lower than `times` x the other\'s)');
    if (e.than !== undefined) c.fail(`${path}.than`, `only with lower or higher (a ${direction} trend lists its variants in order)`);
    const list = c.list(e[direction], `${path}.${direction}`, [2, LIMITS.variants[1]], 'variant names in the expected order');
    const order = list.map((n, j) => variant(n, `${path}.${direction}[${j}]`));
    order.forEach((n, j) => {
      if (order.indexOf(n) !== j) c.fail(`${path}.${direction}[${j}]`, `"${n}" is listed twice`);
    });
    return { claim, metric, ...many, form: 'trend', direction, variants: order };
  });
}

// --- public API --------------------------------------------------------------------------------

/**
 * Parsed YAML (an object) -> the validated spec with every default applied. `file` names the
 * spec in messages and its base name must equal `name`.
 */
export function checkSpec(doc, file) {
  const c = new Checker(shownPath(file));
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) c.fail(null, `must be a YAML mapping of ${TOP_KEYS.join(', ')} (got ${got(doc)})`);
  c.mapping(doc, '', TOP_KEYS);
  const base = basename(file).replace(/\.ya?ml$/, '');
  c.required(doc.name, 'name', `the file's base name, ${base}`);
  if (doc.name !== base) c.fail('name', `must equal the file's base name "${base}" (got ${got(doc.name)})`);
  const title = c.text(doc.title, 'title');
  const hypothesis = c.text(doc.hypothesis, 'hypothesis');
  c.required(doc.source, 'source', 'the published experiment this reproduces: title, url, ...');
  c.required(doc.dataset, 'dataset', 'profile, scale, seed');
  const dataset = checkDataset(c, doc.dataset);

  const builtin = Object.fromEntries(Object.entries(SETTINGS).filter(([, d]) => d.default !== undefined).map(([k, d]) => [k, d.default]));
  // the workload first: what a variant's settings may be depends on its scenario
  const workload = checkWorkload(c, doc.workload);
  const defaults = { ...builtin, ...checkSettings(c, c.mapping(doc.defaults ?? {}, 'defaults', Object.keys(SETTINGS)), 'defaults', workload.scenario) };
  const lab = doc.lab === undefined ? null : checkLab(c, doc.lab, 'lab');
  c.required(doc.variants, 'variants', `${LIMITS.variants[0]} to ${LIMITS.variants[1]} layout variants`);
  const variants = checkVariants(c, doc.variants, defaults, lab, workload.scenario);
  const variantNames = variants.map((v) => v.name);
  const source = checkSource(c, doc.source, variantNames);
  checkWorkloadFits(c, { dataset, variants, workload, doc });
  const repetitions = doc.repetitions === undefined ? 3 : c.integer(doc.repetitions, 'repetitions', LIMITS.repetitions);
  const confidence = doc.confidence === undefined ? 0.95 : c.number(doc.confidence, 'confidence', LIMITS.confidence);
  // a full run longer than the 30-minute budget says why (the reports and the run-times table
  // carry it); nothing else lets it pass the budget's test
  const overBudget = doc.over_budget === undefined ? null : c.text(doc.over_budget, 'over_budget');
  const report = checkReport(c, doc.report);
  c.required(doc.expect, 'expect', 'one or more expected directions');
  const expect = checkExpect(c, doc.expect, variantNames);
  return { file, name: base, title, hypothesis, source, dataset, lab, defaults, variants, workload, repetitions, confidence, ...(overBudget ? { over_budget: overBudget } : {}), report, expect };
}

/** experiments/<name>.yaml -> the validated, defaulted spec; a SpecError (one line) otherwise. */
export function loadSpec(file) {
  const shown = shownPath(file);
  let text;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new SpecError(shown, null, err.code === 'ENOENT' ? 'no such file' : `cannot read: ${err.code ?? err.message}`);
  }
  let doc;
  try {
    doc = parseYaml(text, { prettyErrors: true });
  } catch (err) {
    const line = err.linePos?.[0]?.line;
    const what = String(err.message).split('\n')[0].replace(/ at line \d+, column \d+:?$/, '');
    throw new SpecError(shown, line ? `line ${line}` : null, `not valid YAML: ${what}`);
  }
  return checkSpec(doc, file);
}

/** Every *.yaml spec in dir, validated, sorted by name. The first broken one throws. */
export function listSpecs(dir) {
  let files;
  try {
    files = readdirSync(dir).filter((f) => /\.ya?ml$/.test(f));
  } catch (err) {
    throw new SpecError(shownPath(dir), null, err.code === 'ENOENT' ? 'no such folder of experiments' : `cannot read: ${err.code ?? err.message}`);
  }
  return files.map((f) => loadSpec(join(dir, f))).sort((a, b) => a.name.localeCompare(b.name));
}

/**
 * A spec -> the plan one run follows: QUICK's dataset and workload overrides applied when
 * `quick`, `repeat` (REPEAT, a number or a string from the environment) replacing the
 * repetitions, durations in seconds beside their written form, and the interleaved order of the
 * measured windows (ABCABC: drift spreads across variants instead of landing on one).
 */
export function resolveSpec(spec, { quick = false, repeat, orderSeed } = {}) {
  let repetitions = spec.repetitions;
  if (repeat !== undefined && repeat !== null && repeat !== '') {
    const n = typeof repeat === 'string' && /^\d+$/.test(repeat.trim()) ? Number(repeat) : repeat;
    const [min, max] = LIMITS.repetitions;
    if (!Number.isInteger(n) || n < min || n > max) throw new SpecError(null, 'REPEAT', `must be an integer from ${min} to ${max} (got ${got(repeat)})`);
    repetitions = n;
  }
  const { quick: dq, ...dFull } = spec.dataset;
  const dataset = { ...(quick ? dq : dFull) };
  const p = profile(dataset.profile);
  if (p.kind) {
    // a document profile: no stores; what is written depends on the clients and the window
    dataset.kind = p.kind;
    delete dataset.scale;
  } else {
    dataset.stores = p.stores;
    dataset.products = Math.round(p.products * dataset.scale);
  }
  const { quick: wq, ...wFull } = spec.workload;
  const w = quick ? wq : wFull;
  const workload = {
    ...w,
    // bulks of a byte size: as many of the profile's documents as fill it (each line with its action)
    ...(w.bulk_bytes ? { bulk_docs: Math.max(1, Math.round(w.bulk_bytes / (averageDocumentBytes({ profile: loadDocumentProfile(dataset.profile), seed: dataset.seed }) + '{"index":{}}\n\n'.length))) } : {}),
    ramp_up_s: durationSeconds(w.ramp_up),
    warmup_s: durationSeconds(w.warmup),
    measure_s: durationSeconds(w.measure),
  };
  // a QUICK run (the demo) leaves out the variants marked quick: false, and the directions on them
  const kept = quick ? spec.variants.filter((v) => v.quick !== false) : spec.variants;
  const leftOut = spec.variants.filter((v) => !kept.includes(v)).map((v) => v.name);
  const expect = leftOut.length ? spec.expect.filter((e) => e.variants.every((n) => !leftOut.includes(n))) : spec.expect;
  const { order, rounds, seed } = measuredOrder(kept, repetitions, { seed: orderSeed ?? randomSeed(), expect });
  return {
    name: spec.name,
    file: spec.file,
    title: spec.title,
    hypothesis: spec.hypothesis,
    source: spec.source,
    quick: Boolean(quick),
    dataset,
    lab: spec.lab,
    ...(leftOut.length ? { left_out: leftOut } : {}),
    variants: kept.map((v) => ({
      ...v,
      // many-shards' indices_scale (QUICK: the same sweep with fewer indices)
      settings: { ...v.settings, ...(isManyShards(w) ? { indices: Math.max(1, Math.round(v.settings.indices * w.indices_scale)) } : {}) },
      ...(spec.source.published?.[v.name] ? { published: { ...spec.source.published[v.name] } } : {}),
    })),
    workload,
    repetitions,
    confidence: spec.confidence,
    ...(spec.over_budget && !quick ? { over_budget: spec.over_budget } : {}),
    report: spec.report,
    expect,
    order,
    rounds,
    order_seed: seed,
    cold_round: quick ? 'ramp-up and warm-up of the first variant (QUICK)' : 'a full unmeasured window of every variant',
    // the closed loop's figures on Elasticsearch's took (whole ms, floored) read as grouped data
    // (run/isolation.js); a run stored before 2026-12-03 has no such key: nearest rank
    ...(kept.some((v) => v.isolate) ? { took_p95: 'grouped' } : {}),
  };
}

/** A variant's lab as a key: variants with equal keys run on the same lab. */
export const labKey = (lab) => JSON.stringify(lab ?? null);

/** Every ordering of xs (k! of them; called for at most PERMUTE_MAX variants). */
function permutations(xs) {
  if (xs.length <= 1) return [xs];
  return xs.flatMap((x, i) => permutations([...xs.slice(0, i), ...xs.slice(i + 1)]).map((rest) => [x, ...rest]));
}
const PERMUTE_MAX = 7;

/** The relative order of `names` inside `order`. */
const within = (order, names) => order.filter((n) => names.includes(n));

// a random Latin square of names: every name once in every row and at every position (a cyclic
// square with its symbols and columns shuffled), its rows shuffled
function latinRows(names, next) {
  const k = names.length;
  const shuffle = (xs) => {
    const o = [...xs];
    for (let j = o.length - 1; j > 0; j--) {
      const r = Math.floor(next() * (j + 1));
      [o[j], o[r]] = [o[r], o[j]];
    }
    return o;
  };
  const sym = shuffle(names);
  const col = shuffle([...Array(k).keys()]);
  return shuffle([...Array(k).keys()]).map((i) => col.map((c) => sym[(c + i) % k]));
}

/**
 * The order of one lab's variants in each round, drawn from a seeded stream: counterbalanced
 * (whole random Latin squares, so over every k rounds each variant runs once at each position),
 * and never the order of a curve under test (a trend, line or peak of three or more variants)
 * nor its reverse, so a warm-up or a drift along the run cannot pass for the trend. When no
 * square avoids those orders (three variants that are all one curve: every square holds a
 * rotation of it or of its reverse), each round takes the allowed order that evens out the
 * positions so far, ties drawn at random. -> [[names of round 1], [round 2], ...]
 */
function roundsOf(names, repetitions, next, curves) {
  const forbidden = (o) => curves.some((c) => {
    const seen = within(o, c);
    return seen.length >= 3 && (seen.join() === c.join() || seen.join() === [...c].reverse().join());
  });
  const rounds = [];
  while (rounds.length < repetitions) {
    let square = null;
    for (let t = 0; t < 200 && !square; t++) {
      const rows = latinRows(names, next);
      if (!rows.some(forbidden)) square = rows;
    }
    if (!square) break;
    rounds.push(...square.slice(0, repetitions - rounds.length));
  }
  if (rounds.length === repetitions) return rounds;
  rounds.length = 0;
  let candidates = names.length <= PERMUTE_MAX ? permutations(names).filter((o) => !forbidden(o)) : [];
  if (candidates.length === 0) candidates = [names];
  const counts = new Map(names.map((n) => [n, new Array(names.length).fill(0)]));
  for (let r = 0; r < repetitions; r++) {
    const imbalance = (o) => o.reduce((acc, n, pos) => acc + (counts.get(n)[pos] + 1) ** 2, 0);
    const best = Math.min(...candidates.map(imbalance));
    const ties = candidates.filter((o) => imbalance(o) === best);
    const pick = ties[Math.floor(next() * ties.length)];
    pick.forEach((n, pos) => { counts.get(n)[pos]++; });
    rounds.push([...pick]);
  }
  return rounds;
}

/**
 * The measured windows, round by round: every round runs every variant once, in an order drawn
 * from `seed` (roundsOf: counterbalanced, never a curve's own order). Variants on different labs
 * (a variant with a lab: of its own) run together per lab, and the labs take turns starting a
 * round (round 1 A then B, round 2 B then A, ...), so a lab is started repetitions + 1 times at
 * most instead of once per window, and neither lab always runs first.
 * -> { rounds: [[...], ...], order: the rounds one after the other, seed }
 */
export function measuredOrder(variants, repetitions, { seed = 1, expect = [] } = {}) {
  const next = mulberry32(seed >>> 0);
  const curves = expect.filter((e) => e.form !== 'pairwise' && e.form !== 'bound').map((e) => e.variants);
  const labs = [...new Set(variants.map((v) => labKey(v.lab)))];
  const perLab = new Map(labs.map((key) => [key, roundsOf(variants.filter((v) => labKey(v.lab) === key).map((v) => v.name), repetitions, next, curves)]));
  const rounds = [];
  for (let round = 0; round < repetitions; round++) {
    const turn = round % 2 === 0 ? labs : [...labs].reverse();
    rounds.push(turn.flatMap((key) => perLab.get(key)[round]));
  }
  return { rounds, order: rounds.flat(), seed: seed >>> 0 };
}

/**
 * Rough wall time of a plan in seconds: every measured window (ramp-up + warm-up + measure, once
 * per variant per repetition) plus, per variant, building its layout (fixed part + the documents
 * at the seeder's rate). For `list`; the runner's progress shows the real figure.
 */
export function estimatedSeconds(plan) {
  const w = plan.workload;
  // many-shards runs until its indices are made: about 15 created per second (and deleted faster)
  // from 16 clients on the project's 2-core machine (the master publishes every creation to every node)
  if (isManyShards(w)) return Math.round(plan.variants.reduce((a, v) => a + (plan.repetitions + (plan.quick ? 0 : 1)) * (10 + v.settings.indices / 15), 0));
  const window = w.ramp_up_s + w.warmup_s + w.measure_s;
  // an ingest variant builds nothing: a new empty index per repetition
  const build = plan.dataset.kind ? 2 : BUILD_FIXED_S + plan.dataset.products / BUILD_DOCS_PER_S;
  // the cold round each time a lab starts: on new data every variant of the lab, a full window
  // each; restarted on the same data (variants that differ only in shape), a full window of the
  // variant measured next and ramp-up and warm-up of the others. QUICK: ramp-up and warm-up of
  // one variant per start (none for the write workloads)
  const short = w.ramp_up_s + w.warmup_s;
  const { starts, fullWindows, shortWindows } = labStarts(plan);
  const cold = plan.quick ? (plan.dataset.kind ? 0 : starts * short) : fullWindows * window + shortWindows * short;
  // calibrating (needsCalibration), once: typically four of its windows (three agree on a warm
  // lab; a lab just started takes many more); a full run measures it again at its end (three)
  const cal = needsCalibration(plan) ? ((c, n) => n * (c.rampS + c.warmS + c.windowS + LOAD_START_S))(...(plan.quick ? [CALIBRATION_QUICK, 4] : [CALIBRATION, 7])) : 0;
  return Math.round(plan.variants.length * plan.repetitions * window + plan.variants.length * build + cold + cal + (starts - 1) * LAB_RESTART_S);
}

// a lab's restart between rounds: about half a minute on the 2-core machine
const LAB_RESTART_S = 35;

/**
 * How often the plan's labs start, and the cold round's windows those starts cost: a start on
 * new data (the first, or a lab of another structure than the one before) warms every variant
 * of the lab with a full window; a restart on the same data (labs that differ only in shape), the
 * variant measured next with a full window and the others with ramp-up and warm-up only.
 */
export function labStarts(plan) {
  const labOf = new Map(plan.variants.map((v) => [v.name, v.lab ?? null]));
  const structure = (lab) => {
    const { shape, ...rest } = lab ?? {};
    return JSON.stringify(rest);
  };
  const perLab = new Map();
  for (const v of plan.variants) perLab.set(labKey(v.lab), (perLab.get(labKey(v.lab)) ?? 0) + 1);
  const order = plan.order ?? measuredOrder(plan.variants, plan.repetitions).order;
  let starts = 0;
  let fullWindows = 0;
  let shortWindows = 0;
  let current = null;
  for (const name of order) {
    const lab = labOf.get(name);
    if (current !== null && labKey(lab) === labKey(current.lab)) continue;
    const fresh = current === null || structure(lab) !== structure(current.lab);
    current = { lab };
    starts++;
    const n = perLab.get(labKey(lab));
    if (fresh) fullWindows += n;
    else {
      fullWindows += 1;
      shortWindows += n - 1;
    }
  }
  return { starts, fullWindows, shortWindows };
}
