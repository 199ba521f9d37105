// Errors the CLI turns into one line and an exit code; anything else is a bug and says so.
export class UsageError extends Error {
  constructor(message) {
    super(message);
    this.name = 'UsageError';
    this.exitCode = 2;
  }
}

/** A dependency (allocator, cluster) is down or refused: not the user's input, not our bug. */
export class ServiceError extends Error {
  constructor(message) {
    super(message);
    this.name = 'ServiceError';
    this.exitCode = 3;
  }
}

/** The load ran but the result is wrong (counts differ, items failed for good). */
export class SeedError extends Error {
  constructor(message) {
    super(message);
    this.name = 'SeedError';
    this.exitCode = 1;
  }
}
