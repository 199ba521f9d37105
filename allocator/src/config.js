// One place that turns lab.env + the process environment + the policy file into settings.
// lab.env is the lab's single config file; an environment variable of the same name wins,
// exactly as scripts/lib/config.sh does, so `ALLOCATOR_PORT=9999 make ...` behaves the same.
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadLabEnv } from '@tenantlab/contract/lab-env-file';
import { topology } from '@tenantlab/contract/topology';
import { clientOptions, clusterConnection } from '@tenantlab/contract/connection';
import { parseHostNames } from './http/origin-guard.js';
import { checkPolicyGroups, loadPolicy } from './policy.js';

const allocatorDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');

function int(name, value) {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a non-negative integer, got '${value}'`);
  return n;
}

export function loadConfig(env = process.env) {
  // In a container there is no lab.env on disk: compose passes the same keys as environment.
  const e = loadLabEnv({ env });
  const bind = e.LAB_BIND || '127.0.0.1';
  const prefix = e.ALLOCATOR_INDEX_PREFIX || 'tenantlab-';
  if (!/^[a-z0-9][a-z0-9_-]*$/.test(prefix)) throw new Error(`ALLOCATOR_INDEX_PREFIX '${prefix}' is not a valid index name prefix`);
  const policyFile = resolve(e.ALLOCATOR_POLICY_FILE || resolve(allocatorDir, 'policy.json'));
  const policy = loadPolicy(policyFile);
  // The lab's groups are known from its topology when lab.env describes the nodes (an
  // allocator pointed at another cluster has no LAB_NODES and skips this).
  // (an external cluster's groups are its nodes' attributes, not lab.env's node list)
  const conn = clusterConnection(e);
  const topo = e.LAB_NODES && !conn.external ? topology(e) : null;
  if (topo) checkPolicyGroups(policy, Object.keys(topo.groups), policyFile);
  // what the console shows beside each node: its CPU and memory as lab.env sizes them (SHAPE=off:
  // no limits); an external cluster's nodes are not the lab's to size
  const nodeSizes = new Map((topo?.nodes ?? []).map((n) => [n.name, topo.shape === 'off' ? null : n.size]));
  // ALLOCATOR_ES_URL: where a container reaches the cluster (compose: http://es-master:9200)
  const esUrl = e.ALLOCATOR_ES_URL || conn.url;
  const host = e.ALLOCATOR_LISTEN_HOST || bind;
  const port = int('ALLOCATOR_PORT', e.ALLOCATOR_PORT ?? '8080');
  const publicPort = e.ALLOCATOR_PUBLIC_PORT ? int('ALLOCATOR_PUBLIC_PORT', e.ALLOCATOR_PUBLIC_PORT) : null;
  return Object.freeze({
    host,
    port,
    // the Host names a request may carry (http/origin-guard.js); port 0 (tests) is filled in
    // once the server listens
    allowedHostNames: parseHostNames(e.ALLOCATOR_ALLOWED_HOSTS),
    publicPort,
    esUrl,
    // the client's node, credentials and TLS (packages/contract/src/connection.js)
    es: Object.freeze({ ...clientOptions(conn), node: esUrl }),
    groupAttr: e.LAB_GROUP_ATTR || 'index_group',
    prefix,
    logLevel: e.ALLOCATOR_LOG_LEVEL || 'info',
    statsIntervalMs: int('ALLOCATOR_STATS_INTERVAL_MS', e.ALLOCATOR_STATS_INTERVAL_MS ?? '10000'),
    requestTimeoutMs: int('ALLOCATOR_ES_TIMEOUT_MS', e.ALLOCATOR_ES_TIMEOUT_MS ?? '30000'),
    // the load's p95 per group, shown beside the probe while Prometheus scrapes a run
    // (observe/load-latency.js); empty: none
    prometheusUrl: e.ALLOCATOR_PROMETHEUS_URL ?? `http://${bind}:${e.PROMETHEUS_PORT || '9090'}`,
    policyFile,
    policy,
    shape: topo?.shape ?? null,
    nodeSizes,
    // the stored experiment runs the console lists (@tenantlab/contract/runs); a container mounts
    // them read-only where these say
    runs: Object.freeze({
      committedRoot: resolve(e.ALLOCATOR_RUNS_COMMITTED || resolve(allocatorDir, '../experiments/results')),
      localRoot: resolve(e.ALLOCATOR_RUNS_LOCAL || resolve(allocatorDir, '../.lab/results/experiments')),
    }),
  });
}
