// Connections to Elasticsearch: the entry point for admin calls, and a client over every data
// node for bulk traffic, so the coordinating work of the load is spread instead of funnelled
// through one node.
import { Client } from '@elastic/elasticsearch';
import { esReason, isTransient } from '@tenantlab/contract/errors';
import { clientOptions } from '@tenantlab/contract/connection';
import { ServiceError } from '../errors.js';

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

// Which failures are transient and their reason are the lab's rules (packages/contract).
export { esReason, isTransient };

/**
 * The client options of a connection (packages/contract/src/connection.js) other than its node:
 * credentials, TLS, and `entryOnly` when every request must go through the entry point (an
 * external cluster: its nodes' own addresses are not reachable, or not secured the same way).
 */
export function esOptionsOf(connection) {
  const { node, ...opts } = clientOptions(connection);
  return { ...opts, entryOnly: connection.external };
}

export function entryClient(esUrl, { entryOnly, ...opts } = {}) {
  return new Client({ node: esUrl, requestTimeout: 60000, ...opts });
}

/** Fails with one line when the cluster does not answer. */
export async function requireCluster(client, esUrl) {
  try {
    const h = await client.cluster.health({ timeout: '5s' }, { requestTimeout: 10000, maxRetries: 1 });
    if (h.status === 'red') throw new ServiceError(`Elasticsearch at ${esUrl} is red: wait for it to recover (make status)`);
    return h;
  } catch (err) {
    if (err instanceof ServiceError) throw err;
    throw new ServiceError(`Elasticsearch not reachable at ${esUrl}: ${esReason(err)}`);
  }
}

/**
 * A client over the HTTP addresses of the data nodes. Only loopback addresses are used when the
 * entry point is loopback (the lab never sends traffic elsewhere); falls back to the entry point.
 */
export async function dataNodesClient(entry, esUrl, { entryOnly = false, ...opts } = {}) {
  const entryHost = new URL(esUrl).hostname;
  let nodes = [];
  if (!entryOnly) try {
    const info = await entry.nodes.info({ node_id: 'data:true', metric: 'http' });
    nodes = Object.values(info.nodes)
      .map((n) => n.http?.publish_address)
      .filter(Boolean)
      .map((addr) => `http://${addr.replace(/^.*\//, '')}`)
      .filter((url) => !LOOPBACK.has(entryHost) || LOOPBACK.has(new URL(url).hostname))
      .sort();
  } catch {
    nodes = [];
  }
  if (!nodes.length) nodes = [esUrl];
  // A killed node is retried on the others at once; dead ones are pinged back in later.
  return { client: new Client({ nodes, requestTimeout: 120000, maxRetries: 3, ...opts }), nodes };
}
