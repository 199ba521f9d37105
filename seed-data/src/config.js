// Settings from the lab's one config file (lab.env) with the environment winning, exactly as
// scripts/lib/config.sh reads it, so `ALLOCATOR_PORT=8181 make seed` means the same everywhere.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const labRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

function parseEnvFile(text) {
  const out = {};
  for (const line of text.split('\n')) {
    const m = /^([A-Z][A-Z0-9_]*)=(\S*)$/.exec(line.trimEnd());
    if (m) out[m[1]] = m[2];
  }
  return out;
}

export function loadConfig(env = process.env) {
  const file = env.LAB_ENV_FILE ?? resolve(labRoot, 'lab.env');
  const e = { ...(existsSync(file) ? parseEnvFile(readFileSync(file, 'utf8')) : {}), ...env };
  const bind = e.LAB_BIND || '127.0.0.1';
  return {
    env: e,
    esUrl: e.ES_URL || `http://${bind}:${e.ES_MASTER_HTTP_PORT || '9200'}`,
    allocatorUrl: e.ALLOCATOR_URL || `http://${bind}:${e.ALLOCATOR_PORT || '8080'}`,
    labDir: e.LAB_DIR || resolve(labRoot, '.lab'),
  };
}
