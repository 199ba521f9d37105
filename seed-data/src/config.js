// Settings from the lab's one config file (lab.env, read by the lab's one parser in
// packages/contract) with the environment winning, exactly as scripts/lib/config.sh reads it,
// so `ALLOCATOR_PORT=8181 make seed` means the same everywhere. A malformed lab.env line is the
// lab's one error (LabEnvError, exit 2), not silently dropped.
import { allocatorUrl } from '@tenantlab/contract/allocator-client';
import { labRoot, loadLabEnv } from '@tenantlab/contract/lab-env-file';
import { clusterConnection } from '@tenantlab/contract/connection';
import { resolve } from 'node:path';

export function loadConfig(env = process.env) {
  const e = loadLabEnv({ env });
  // the cluster, its credentials and CA (RUNTIME=external), or the lab's own entry point
  const connection = clusterConnection(e);
  return {
    env: e,
    connection,
    esUrl: connection.url,
    allocatorUrl: allocatorUrl(e),
    labDir: e.LAB_DIR || resolve(labRoot, '.lab'),
  };
}
