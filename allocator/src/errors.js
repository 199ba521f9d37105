// The allocator's errors, in the lab's error shape (@tenantlab/contract/errors). Every failure a
// client can see is an HttpError with a stable machine code and a sentence a human can act on;
// the others are translated into one here (toHttpError), Elasticsearch's own included, once.
import { errors as esErrors } from '@elastic/elasticsearch';
import { esReason, isTransient, LabError } from '@tenantlab/contract/errors';

/** What the API answers: a status, a machine code (`error`), a sentence (`message`). */
export class HttpError extends LabError {
  constructor(status, code, message) {
    super(message, { statusCode: status, code });
  }
}

/** A placement the policy cannot make (placement/place.js); its code says which (placementStatus). */
export class PlacementError extends LabError {
  constructor(code, message) {
    super(message, { code });
  }
}

/** A move that cannot finish (moves/); `transient`: the same move may succeed once the cluster has settled. */
export class MoveError extends LabError {
  constructor(message, { transient = false } = {}) {
    super(message, { transient });
  }
}

/** Why a job stopped early (jobs/runner.js): the allocator is shutting down. Not a failure of the job. */
export class Interrupted extends LabError {
  constructor(message = 'the allocator is shutting down') {
    super(message);
  }
}

/** A transition the job state machine (jobs/job.js) does not have: a bug in the caller, never a user error. */
export class IllegalTransition extends LabError {
  constructor(job, from, to, allowed = []) {
    super(`job ${job.id}: illegal transition ${from} -> ${to} (allowed from ${from}: ${allowed.join(', ') || 'none'})`);
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
// (packages/contract/src/errors.js), shared with the seeder. Transient means the same
// request succeeds once the cluster has settled: the API answers 503, not 502.
export { esReason, isTransient };

/** Maps any error to an HttpError without leaking stacks. */
export function toHttpError(err) {
  if (err instanceof HttpError) return err;
  if (err instanceof PlacementError) return new HttpError(placementStatus[err.code] ?? 409, err.code, err.message);
  if (isTransient(err)) return unavailable(`Elasticsearch unavailable: ${esReason(err)}`);
  if (err instanceof esErrors.ResponseError) {
    // The cluster's state disagrees with the request (e.g. a name already taken): a conflict.
    if ([400, 409].includes(err.meta?.statusCode)) return new HttpError(409, 'cluster_conflict', `Elasticsearch refused the request: ${esReason(err)}`);
    return new HttpError(502, 'cluster_error', `Elasticsearch failed the request: ${esReason(err)}`);
  }
  if (err instanceof esErrors.ElasticsearchClientError) return unavailable(`Elasticsearch client error: ${err.message}`);
  return new HttpError(500, 'internal_error', 'unexpected error; see the allocator log');
}
