// Command-line options and their environment fallbacks, validated before anything is
// contacted: bad input fails in one line without touching the allocator or the cluster.
import { parseArgs } from 'node:util';
import { loadConfig } from '../config.js';
import { esOptionsOf } from '../load/cluster.js';
import { UsageError } from '../errors.js';
import { checkPrefix, generateTenants } from '@tenantlab/dataset/tenants';
import { loadProfile } from '@tenantlab/dataset/profiles';

export const OPTIONS = {
  profile: { type: 'string', short: 'p', env: 'PROFILE', default: 'demo', help: 'ci | demo | large (profiles/*.json)' },
  seed: { type: 'string', short: 's', env: 'SEED', default: '1', help: 'non-negative integer; same seed, same catalogs' },
  scale: { type: 'string', env: 'SEED_SCALE', default: '1', help: 'multiply the profile\'s product total (e.g. 0.1); store count stays' },
  'tenant-prefix': { type: 'string', env: 'SEED_TENANT_PREFIX', help: 'tenant ids are <prefix>-0001...; default: the profile name' },
  tenant: { type: 'string', short: 't', help: 'one tenant id (resubmit, update; verify/delete: only this one)' },
  es: { type: 'string', env: 'ES_URL', help: 'Elasticsearch entry point (default from lab.env)' },
  allocator: { type: 'string', env: 'ALLOCATOR_URL', help: 'allocator API (default from lab.env)' },
  'bulk-bytes': { type: 'string', env: 'SEED_BULK_BYTES', default: '5mb', help: 'bulk request size: 5mb, 512kb, bytes' },
  concurrency: { type: 'string', env: 'SEED_CONCURRENCY', default: '3', help: 'bulk requests in flight' },
  'retry-deadline': { type: 'string', env: 'SEED_RETRY_DEADLINE', default: '300', help: 'seconds a rejected document keeps being retried' },
  'keep-settings': { type: 'boolean', default: false, help: 'seed: keep refresh/replicas as they are during the load' },
  'wait-green': { type: 'string', default: '120', help: 'seconds to wait for green after the load (0: do not wait)' },
  progress: { type: 'string', env: 'SEED_PROGRESS', help: 'bar | plain | none (default: bar on a terminal, else plain)' },
  lines: { type: 'string', help: 'querylog: number of lines (default: the profile\'s)' },
  qps: { type: 'string', help: 'querylog: mean queries per second of the timestamps' },
  out: { type: 'string', short: 'o', help: 'querylog, manifest, catalog: write to this file instead of stdout' },
  log: { type: 'string', help: 'warm: the query log to replay (default: the lab\'s, LAB_DIR/seed-data/queries.log)' },
  seconds: { type: 'string', default: '30', help: 'warm: how long to replay it (0: skip)' },
  'in-flight': { type: 'string', default: '3', help: 'warm: searches in flight' },
  fraction: { type: 'string', default: '0.1', help: 'update: share of the tenant\'s products to change' },
  fields: { type: 'string', default: 'price,inventory', help: 'update: price, inventory or both' },
  help: { type: 'boolean', short: 'h', default: false },
};

function number(name, value, { integer = false, min = -Infinity, max = Infinity } = {}) {
  const ok = integer ? /^\d+$/.test(value) : /^\d+(\.\d+)?$/.test(value);
  const n = Number(value);
  if (!ok || !Number.isFinite(n) || n < min || n > max || (integer && !Number.isSafeInteger(n))) {
    throw new UsageError(`${name} must be ${integer ? 'an integer' : 'a number'}${min > -Infinity ? ` >= ${min}` : ''}${max < Infinity ? ` <= ${max}` : ''}, got '${value}'`);
  }
  return n;
}

export function parseBytes(name, value) {
  const m = /^(\d+(?:\.\d+)?)\s*(b|kb|k|mb|m|gb|g)?$/i.exec(String(value).trim());
  if (!m) throw new UsageError(`${name} must be a size like 5mb, 512kb or 1048576, got '${value}'`);
  const mult = { b: 1, k: 1024, kb: 1024, m: 1024 ** 2, mb: 1024 ** 2, g: 1024 ** 3, gb: 1024 ** 3 }[(m[2] ?? 'b').toLowerCase()];
  const n = Math.round(Number(m[1]) * mult);
  if (n < 1024 || n > 512 * 1024 ** 2) throw new UsageError(`${name} must be between 1kb and 512mb, got '${value}'`);
  return n;
}

export function parseOptions(argv, env = process.env) {
  const parseOpts = Object.fromEntries(Object.entries(OPTIONS).map(([k, o]) => [k, { type: o.type, ...(o.short ? { short: o.short } : {}) }]));
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: parseOpts, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError(err.message.split('\n')[0]);
  }
  const v = {};
  for (const [k, o] of Object.entries(OPTIONS)) v[k] = parsed.values[k] ?? (o.env && env[o.env] !== undefined && env[o.env] !== '' ? env[o.env] : o.default);
  return { command: parsed.positionals[0], rest: parsed.positionals.slice(1), values: v };
}

/** Everything a command needs, validated: profile, seed, tenants, URLs, load settings. */
export function buildContext(values, env = process.env) {
  const config = loadConfig(env);
  const profile = loadProfile(values.profile);
  const seed = number('SEED (--seed)', String(values.seed).trim(), { integer: true, min: 0 });
  const scale = number('--scale', String(values.scale).trim(), { min: 0.000001, max: 100 });
  const prefix = checkPrefix(values['tenant-prefix'] ?? profile.name);
  const progress = values.progress;
  if (progress !== undefined && !['bar', 'plain', 'none'].includes(progress)) throw new UsageError(`--progress must be bar, plain or none, got '${progress}'`);
  const tenants = generateTenants({ seed, profile, scale, prefix });
  let only = tenants;
  if (values.tenant !== undefined) {
    only = tenants.filter((t) => t.id === values.tenant);
    if (!only.length) throw new UsageError(`tenant '${values.tenant}' is not in profile ${profile.name} (seed ${seed}, prefix ${prefix}): its tenants are ${tenants[0].id} .. ${tenants.at(-1).id}`);
  }
  return {
    config,
    profile,
    seed,
    scale,
    prefix,
    tenants,
    only,
    esUrl: values.es ?? config.esUrl,
    // credentials and TLS of the cluster (RUNTIME=external); its nodes' own addresses are not
    // the way in there, so every request goes through ES_URL
    esOptions: esOptionsOf(config.connection),
    allocatorUrl: values.allocator ?? config.allocatorUrl,
    labDir: config.labDir,
    progressMode: progress,
    bulk: {
      flushBytes: parseBytes('--bulk-bytes', values['bulk-bytes']),
      concurrency: number('--concurrency', String(values.concurrency), { integer: true, min: 1, max: 64 }),
      retryDeadlineMs: 1000 * number('--retry-deadline', String(values['retry-deadline']), { min: 1 }),
    },
    waitGreenS: number('--wait-green', String(values['wait-green']), { integer: true, min: 0 }),
    keepSettings: values['keep-settings'],
    values,
    number,
  };
}
