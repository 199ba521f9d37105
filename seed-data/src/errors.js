// The seeder's errors: the lab's error shape (@tenantlab/contract/errors), each with the exit
// code the CLI ends with. The CLI prints any error with an exit code as its one line; anything
// else is a bug and says so.
import { InputError, LabError } from '@tenantlab/contract/errors';

/** Bad input (unknown profile, SEED not a number, a tenant that exists with another spec): exit 2. */
export class UsageError extends InputError {}

/** A dependency (allocator, cluster) is down or refused: not the user's input, not our bug; exit 3. */
export class ServiceError extends LabError {
  constructor(message) {
    super(message, { exitCode: 3 });
  }
}

/** The load ran but the result is wrong (counts differ, items failed for good): exit 1. */
export class SeedError extends LabError {
  constructor(message) {
    super(message, { exitCode: 1 });
  }
}
