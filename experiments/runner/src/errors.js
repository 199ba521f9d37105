// The runner's errors, in the lab's error shape (@tenantlab/contract/errors). Each message is ONE
// line saying what is wrong and what is allowed; bin/tenantlab-experiment prints it as
// `error: MESSAGE` and exits with its exitCode (2: bad input, like every InputError of the lab),
// never a stack trace. Anything else thrown is a bug and exits 1.
import { InputError } from '@tenantlab/contract/errors';

/** A spec file (experiments/*.yaml) that does not follow the format: `FILE: FIELD: what is allowed (got X)`. */
export class SpecError extends InputError {
  constructor(file, field, message) {
    super([file, field, message].filter(Boolean).join(': '), { file, field });
  }
}

/** A results.json that is missing, unreadable or not valid against src/results-schema.json. */
export class ResultsError extends InputError {}

/** A command line that asks for something that cannot be done (unknown subcommand, two runs of different experiments). */
export class UsageError extends InputError {}

/**
 * A run that cannot go on: bad input and a lab that is not fit to measure exit 2, an
 * interrupted run 130, a failed one 1.
 */
export class RunError extends InputError {
  constructor(message, exitCode = 2) {
    super(message, { exitCode });
  }
}
