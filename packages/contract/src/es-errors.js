// Which Elasticsearch failures are transient (the same request succeeds once the cluster has
// settled: a node lost or coming back, a master election, push-back) and the one-line reason
// a human reads. The allocator (503 vs 502, a move that resumes) and the seeder (a bulk that is
// re-sent) retry by these rules. No dependency: errors of the official client are recognised
// by their names, so this module needs neither the client nor Node.

/** Client-side failures: the request never got an answer. */
const TRANSIENT_CLIENT_ERRORS = new Set(['ConnectionError', 'NoLivingConnectionsError', 'TimeoutError']);

/** Push-back (429) and a cluster or proxy that cannot serve right now (502, 503, 504). */
const TRANSIENT_STATUS = new Set([429, 502, 503, 504]);

/**
 * Error types of a cluster that is losing or regaining a node, whatever status they come with
 * (a 500 whose cause is a disconnected node is as transient as a 503).
 */
export const TRANSIENT_TYPES = new Set([
  'node_disconnected_exception',
  'node_not_connected_exception',
  'node_closed_exception',
  'connect_transport_exception',
  'send_request_transport_exception',
  'receive_timeout_transport_exception',
  'master_not_discovered_exception',
  'not_master_exception',
  'process_cluster_event_timeout_exception',
  'failed_to_commit_cluster_state_exception',
  'no_shard_available_action_exception',
  'unavailable_shards_exception',
  'primary_missing_action_exception',
  'shard_not_in_primary_mode_exception',
  'retry_on_primary_exception',
  'index_shard_closed_exception',
  'illegal_index_shard_state_exception',
  'cluster_block_exception',
  'es_rejected_execution_exception',
  'circuit_breaking_exception',
]);

/** The ES error object of a response (`{ type, reason, root_cause, caused_by }`), or null. */
function bodyError(err) {
  const e = err && err.meta && err.meta.body && err.meta.body.error;
  return e && typeof e === 'object' ? e : null;
}

/** Every type named by an ES error object: its own, its root causes', its cause's. */
export function errorTypes(error) {
  if (!error || typeof error !== 'object') return [];
  const types = [error.type];
  for (const c of error.root_cause || []) types.push(c && c.type);
  for (let c = error.caused_by; c; c = c.caused_by) types.push(c.type);
  return types.filter(Boolean);
}

/** True when a response status / ES error object (of a request or of one bulk item) is transient. */
export function isTransientResponse(status, error) {
  if (TRANSIENT_STATUS.has(status)) return true;
  return errorTypes(error).some((t) => TRANSIENT_TYPES.has(t));
}

/** True when a failed request (an error of the official client, or anything with .meta) may succeed if sent again. */
export function isTransient(err) {
  if (!err) return false;
  if (TRANSIENT_CLIENT_ERRORS.has(err.name)) return true;
  return isTransientResponse(err.meta && err.meta.statusCode, bodyError(err));
}

/** True when one bulk item's result ({ status, error }) may succeed if sent again. */
export const isTransientItem = (item) => isTransientResponse(item.status, item.error);

/** One line saying why: `type: reason` from the cluster, else the client's message. */
export function esReason(err) {
  const e = bodyError(err);
  const status = err && err.meta && err.meta.statusCode;
  // A cluster with security (RUNTIME=external): say which setting to fix, with its own reason
  if (status === 401) return `HTTP 401 Unauthorized: the cluster refused the credentials${e && e.reason ? ` (${e.reason})` : ''}; check ES_USERNAME and ES_PASSWORD (or ES_PASSWORD_FILE), or ES_API_KEY`;
  if (status === 403) return `HTTP 403 Forbidden: the credentials lack a privilege this needs${e && e.reason ? ` (${e.reason})` : ''}`;
  const message = String((err && err.message) || '');
  if (/certificate|self[- ]signed|CERT_/i.test(message) && !e) {
    return `the cluster's TLS certificate is not trusted (${message}): set ES_CA_CERT to the PEM file of the CA that signed it (ES_TLS_VERIFY=false skips the check, not recommended)`;
  }
  if (e && e.reason) return `${e.type}: ${e.reason}`;
  if (err && err.name === 'ConnectionError') return String(err.message).replace(/^connect /, '') || 'connection failed';
  return (err && err.message) || String(err);
}

/** The reason of one failed bulk item. */
export const itemReason = (item) => `${item.error && item.error.type}: ${item.error && item.error.reason}`;
