// A run that cannot go on: one line for the user. Bad input and a lab that is not fit to measure
// exit 2 like every InputError of the package; an interrupted run 130, a failed one 1.
import { InputError } from '../errors.js';

export class RunError extends InputError {
  constructor(message, exitCode = 2) {
    super(message);
    this.name = 'RunError';
    this.exitCode = exitCode;
  }
}
