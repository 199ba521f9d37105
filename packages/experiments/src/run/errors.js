// A run that cannot go on: one line for the user (bad input, a lab that is not fit to measure).
export class RunError extends Error {
  constructor(message, exitCode = 2) {
    super(message);
    this.name = 'RunError';
    this.exitCode = exitCode;
  }
}
