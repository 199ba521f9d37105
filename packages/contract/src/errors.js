// The lab's errors, in one place:
//   - the shape every error the lab throws on purpose shares, in every package (LabError), and
//     the errors of the contracts here, each named for the contract it guards;
//   - which Elasticsearch failures are transient (the same request succeeds once the cluster has
//     settled: a node lost or coming back, a master election, push-back) and the one-line reason
//     a human reads. The allocator (503 vs 502, a move that resumes) and the seeder (a bulk that
//     is re-sent) retry by these rules.
// No dependency: errors of the official client are recognised by their names, so this module
// needs neither the client nor Node.

/**
 * An error thrown on purpose: `name` (its class's), `message` (ONE line a person can act on),
 * `exitCode` when a command line is to end with it, and whatever fields its class adds (a code,
 * a file, a status). Every command line of the lab prints such an error as its one line and
 * exits with its exitCode; anything else thrown is a bug. Each package's errors extend it.
 */
export class LabError extends Error {
  constructor(message, fields = {}) {
    super(message);
    this.name = new.target.name;
    Object.assign(this, fields);
  }
}

/** Bad input (an option, a file, a setting, a name): what is wrong and what is allowed; exit 2. */
export class InputError extends LabError {
  constructor(message, fields = {}) {
    super(message, { exitCode: 2, ...fields });
  }
}

// ---- the contracts' own errors (each module hands its own on with its functions)

/** lab.env's format (lab-env.js): the same one line, `error: FILE:LINE: ...`, from every consumer. */
export class LabEnvError extends InputError {
  constructor(file, lineNo, line) {
    super(`error: ${file}:${lineNo}: not a KEY=VALUE line: ${line}`, { file, line: lineNo });
  }
}

/** A node list that is not a lab (topology.js): one line naming the lab.env key to fix. */
export class TopologyError extends LabError {
  constructor(file, message) {
    super(`error: ${file}: ${message}`, { file });
  }
}

/** A bad cluster connection setting (connection.js): one line saying what to set. */
export class ConnectionError extends InputError {}

/** A query-log line that does not follow the format (querylog.js), with its line number. */
export class QueryLogError extends LabError {
  constructor(message, lineNo) {
    super(lineNo ? `line ${lineNo}: ${message}` : message);
  }
}

/** A legacy query part with no equivalent in the lab's DSL (legacy-dsl.js): the path and why. */
export class TranslateError extends LabError {}

/** A store map that cannot be used (store-map.js), naming the line. */
export class StoreMapError extends LabError {}

/**
 * A failed call of the allocator's API (allocator-client.js). `kind`: 'unreachable' (nothing
 * answers), 'unavailable' (503: the cluster behind it is not ready), 'refused' (any other
 * 4xx/5xx); `detail`: the API's own message, for callers that word the error themselves.
 */
export class AllocatorClientError extends LabError {
  constructor(message, { kind, status = null, code = null, detail = null } = {}) {
    super(message, { kind, status, code, detail });
  }
}

// ---- Elasticsearch's failures

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
