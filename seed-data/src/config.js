// Settings from the lab's one config file (lab.env, read by the lab's one parser in
// packages/contract) with the environment winning, exactly as scripts/lib/config.sh reads it,
// so `ALLOCATOR_PORT=8181 make seed` means the same everywhere. A malformed lab.env line is the
// lab's one error (LabEnvError, exit 2), not silently dropped.
import { allocatorUrl } from '@tenantlab/contract/allocator-client';
import { labRoot, loadLabEnv } from '@tenantlab/contract/lab-env-file';
import { resolve } from 'node:path';

export function loadConfig(env = process.env) {
  const e = loadLabEnv({ env });
  const bind = e.LAB_BIND || '127.0.0.1';
  return {
    env: e,
    esUrl: e.ES_URL || `http://${bind}:${e.ES_MASTER_HTTP_PORT || '9200'}`,
    allocatorUrl: allocatorUrl(e),
    labDir: e.LAB_DIR || resolve(labRoot, '.lab'),
  };
}
