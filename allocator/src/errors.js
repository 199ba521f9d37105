// Every failure a client can see is an HttpError with a stable machine code and a sentence a
// human can act on. Elasticsearch's own errors are translated here, once.
import { errors as esErrors } from '@elastic/elasticsearch';

export class HttpError extends Error {
  constructor(status, code, message) {
    super(message);
    this.statusCode = status;
    this.code = code;
  }
}

export const badRequest = (message) => new HttpError(400, 'bad_request', message);
export const notFound = (what, message) => new HttpError(404, `${what}_not_found`, message);
export const conflict = (code, message) => new HttpError(409, code, message);
export const unavailable = (message) => new HttpError(503, 'cluster_unavailable', message);

const placementStatus = {
  unknown_group: 404,
  unknown_index: 404,
  index_full: 409,
  not_shared: 409,
  index_exists: 409,
  too_large: 422,
  no_groups: 503,
};

/** True when the cluster could not be reached or could not serve the request right now. */
// Failures of a cluster that is losing or regaining a node: the same request succeeds once the
// cluster has settled, so callers retry them (and the API answers 503, not 502).
const TRANSIENT_TYPES = new Set([
  'node_disconnected_exception',
  'node_not_connected_exception',
  'connect_transport_exception',
  'receive_timeout_transport_exception',
  'node_closed_exception',
  'master_not_discovered_exception',
  'not_master_exception',
  'process_cluster_event_timeout_exception',
  'failed_to_commit_cluster_state_exception',
  'no_shard_available_action_exception',
  'unavailable_shards_exception',
  'cluster_block_exception',
]);

function errorTypes(err) {
  const e = err?.meta?.body?.error;
  if (!e || typeof e !== 'object') return [];
  return [e.type, ...(e.root_cause ?? []).map((c) => c.type), e.caused_by?.type].filter(Boolean);
}

export function isUnavailable(err) {
  if (err instanceof esErrors.ConnectionError || err instanceof esErrors.NoLivingConnectionsError || err instanceof esErrors.TimeoutError) return true;
  const status = err?.meta?.statusCode;
  if (status === 503 || status === 429 || status === 504) return true;
  return errorTypes(err).some((t) => TRANSIENT_TYPES.has(t));
}

export function esReason(err) {
  const e = err?.meta?.body?.error;
  if (e?.reason) return `${e.type}: ${e.reason}`;
  return err?.message ?? String(err);
}

/** Maps any error to an HttpError without leaking stacks. */
export function toHttpError(err) {
  if (err instanceof HttpError) return err;
  if (err?.name === 'PlacementError') return new HttpError(placementStatus[err.code] ?? 409, err.code, err.message);
  if (isUnavailable(err)) return unavailable(`Elasticsearch unavailable: ${esReason(err)}`);
  if (err instanceof esErrors.ResponseError) {
    // The cluster's state disagrees with the request (e.g. a name already taken): a conflict.
    if ([400, 409].includes(err.meta?.statusCode)) return new HttpError(409, 'cluster_conflict', `Elasticsearch refused the request: ${esReason(err)}`);
    return new HttpError(502, 'cluster_error', `Elasticsearch failed the request: ${esReason(err)}`);
  }
  if (err instanceof esErrors.ElasticsearchClientError) return unavailable(`Elasticsearch client error: ${err.message}`);
  return new HttpError(500, 'internal_error', 'unexpected error; see the allocator log');
}
