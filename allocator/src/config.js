// One place that turns lab.env + the process environment + the policy file into settings.
// lab.env is the lab's single config file; an environment variable of the same name wins,
// exactly as scripts/lib/config.sh does, so `ALLOCATOR_PORT=9999 make ...` behaves the same.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadPolicy } from './policy.js';

const allocatorDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** Parses lab.env's KEY=VALUE lines (no quotes, no expansion, by the file's own contract). */
export function parseEnvFile(text, source = 'lab.env') {
  const out = {};
  text.split('\n').forEach((line, i) => {
    if (/^\s*(#|$)/.test(line)) return;
    const m = /^([A-Z][A-Z0-9_]*)=(\S*)$/.exec(line.trimEnd());
    if (!m) throw new Error(`${source}:${i + 1}: not a KEY=VALUE line: ${line}`);
    out[m[1]] = m[2];
  });
  return out;
}

function readLabEnv(file) {
  if (!file || !existsSync(file)) return {};
  return parseEnvFile(readFileSync(file, 'utf8'), file);
}

function int(name, value) {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a non-negative integer, got '${value}'`);
  return n;
}

export function loadConfig(env = process.env) {
  // In a container there is no lab.env on disk: compose passes the same keys as environment.
  const labEnvFile = env.LAB_ENV_FILE ?? resolve(allocatorDir, '..', 'lab.env');
  const e = { ...readLabEnv(labEnvFile), ...env };
  const bind = e.LAB_BIND || '127.0.0.1';
  const prefix = e.ALLOCATOR_INDEX_PREFIX || 'tenantlab-';
  if (!/^[a-z0-9][a-z0-9_-]*$/.test(prefix)) throw new Error(`ALLOCATOR_INDEX_PREFIX '${prefix}' is not a valid index name prefix`);
  const policyFile = resolve(e.ALLOCATOR_POLICY_FILE || resolve(allocatorDir, 'policy.json'));
  return Object.freeze({
    host: e.ALLOCATOR_LISTEN_HOST || bind,
    port: int('ALLOCATOR_PORT', e.ALLOCATOR_PORT ?? '8080'),
    esUrl: e.ALLOCATOR_ES_URL || `http://${bind}:${e.ES_MASTER_HTTP_PORT || '9200'}`,
    groupAttr: e.LAB_GROUP_ATTR || 'index_group',
    prefix,
    logLevel: e.ALLOCATOR_LOG_LEVEL || 'info',
    statsIntervalMs: int('ALLOCATOR_STATS_INTERVAL_MS', e.ALLOCATOR_STATS_INTERVAL_MS ?? '10000'),
    requestTimeoutMs: int('ALLOCATOR_ES_TIMEOUT_MS', e.ALLOCATOR_ES_TIMEOUT_MS ?? '30000'),
    policyFile,
    policy: loadPolicy(policyFile),
  });
}
