// Every failure a client can see is an HttpError with a stable machine code and a sentence a
// human can act on. Elasticsearch's own errors are translated here, once.
import { errors as esErrors } from '@elastic/elasticsearch';
import { esReason, isTransient } from '@tenantlab/contract/es-errors';

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

// Which cluster failures are transient, and their one-line reason, are the lab's rules
// (packages/contract/src/es-errors.js), shared with the seeder. Transient means the same
// request succeeds once the cluster has settled: the API answers 503, not 502.
export { esReason, isTransient };

/** Maps any error to an HttpError without leaking stacks. */
export function toHttpError(err) {
  if (err instanceof HttpError) return err;
  if (err?.name === 'PlacementError') return new HttpError(placementStatus[err.code] ?? 409, err.code, err.message);
  if (isTransient(err)) return unavailable(`Elasticsearch unavailable: ${esReason(err)}`);
  if (err instanceof esErrors.ResponseError) {
    // The cluster's state disagrees with the request (e.g. a name already taken): a conflict.
    if ([400, 409].includes(err.meta?.statusCode)) return new HttpError(409, 'cluster_conflict', `Elasticsearch refused the request: ${esReason(err)}`);
    return new HttpError(502, 'cluster_error', `Elasticsearch failed the request: ${esReason(err)}`);
  }
  if (err instanceof esErrors.ElasticsearchClientError) return unavailable(`Elasticsearch client error: ${err.message}`);
  return new HttpError(500, 'internal_error', 'unexpected error; see the allocator log');
}
