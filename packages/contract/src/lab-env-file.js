// Reads lab.env from disk (node only; the parser itself, lab-env.js, stays free of Node APIs,
// a plain ES module any JavaScript runtime loads). Every node consumer loads its settings
// through loadLabEnv.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseLabEnv } from './lab-env.js';

export { parseLabEnv, mergeLabEnv, LabEnvError } from './lab-env.js';

/** The checkout's root (packages/contract/src -> ../../..). */
export const labRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/** Which lab.env a process reads: LAB_ENV_FILE if set, else the checkout's own. */
export function labEnvFile(env = process.env) {
  return env.LAB_ENV_FILE || resolve(labRoot, 'lab.env');
}

/**
 * lab.env's keys merged with the environment, a key already set in the environment winning
 * (as scripts/lib/config.sh does, so `ALLOCATOR_PORT=9999 make ...` means the same everywhere).
 * The result also carries the rest of `env`. A missing file is no error: in a container there
 * is no lab.env and compose passes the same keys as environment. A malformed line throws
 * LabEnvError (`error: FILE:LINE: not a KEY=VALUE line: ...`).
 */
export function loadLabEnv({ file, env = process.env } = {}) {
  const path = file ?? labEnvFile(env);
  const values = existsSync(path) ? parseLabEnv(readFileSync(path, 'utf8'), path) : {};
  return { ...values, ...env };
}
