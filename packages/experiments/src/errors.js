// The package's bad-input errors. Each message is ONE line saying what is wrong and what is
// allowed; bin/tenantlab-experiment prints it as `error: MESSAGE` and exits 2 (exitCode), never
// a stack trace. Anything else thrown is a bug and exits 1.

export class InputError extends Error {
  constructor(message) {
    super(message);
    this.name = 'InputError';
    this.exitCode = 2;
  }
}

/** A spec file (experiments/*.yaml) that does not follow the format: `FILE: FIELD: what is allowed (got X)`. */
export class SpecError extends InputError {
  constructor(file, field, message) {
    super([file, field, message].filter(Boolean).join(': '));
    this.name = 'SpecError';
    this.file = file;
    this.field = field;
  }
}

/** A results.json that is missing, unreadable or not valid against src/results-schema.json. */
export class ResultsError extends InputError {
  constructor(message) {
    super(message);
    this.name = 'ResultsError';
  }
}

/** A command line that asks for something that cannot be done (unknown subcommand, two runs of different experiments). */
export class UsageError extends InputError {
  constructor(message) {
    super(message);
    this.name = 'UsageError';
  }
}
