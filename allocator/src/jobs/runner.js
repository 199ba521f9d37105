// Runs jobs one at a time, in the order they were asked for: two moves copying at once would
// compete for the same two data nodes of a group and make neither's figures meaningful.
// The runner starts each job (queued -> running, persisted) and hands it to the handler of its
// type; on shutdown it stops taking jobs and asks the running one to stop at its next page, so
// the job is left persisted exactly where it was and the next start continues it.
import { Interrupted } from '../errors.js';
import { isActive, transition } from './job.js';

export class SerialRunner {
  #queue = [];
  #busy = false;
  #handlers = new Map();
  #abort = new AbortController();

  constructor({ store, log }) {
    this.store = store;
    this.log = log;
    this.current = null;
  }

  /** `fn(job, signal)` runs jobs of `type`; it owns every transition after `running`. */
  handle(type, fn) {
    this.#handlers.set(type, fn);
  }

  get signal() {
    return this.#abort.signal;
  }

  get pending() {
    return this.#queue.length + (this.current ? 1 : 0);
  }

  enqueue(id) {
    if (this.signal.aborted || this.current === id || this.#queue.includes(id)) return;
    this.#queue.push(id);
    this.#drain();
  }

  async #drain() {
    if (this.#busy) return;
    this.#busy = true;
    try {
      while (this.#queue.length && !this.signal.aborted) {
        this.current = this.#queue.shift();
        const job = this.store.jobs.get(this.current);
        try {
          if (job && isActive(job)) await this.run(job);
        } catch (err) {
          if (err instanceof Interrupted) this.log.info({ job: this.current }, 'job stopped for shutdown; it continues at the next start');
          else this.log.error({ job: this.current, err: err.message }, 'job handler failed');
        }
        this.current = null;
      }
    } finally {
      this.#busy = false;
    }
  }

  /**
   * Starts `job` and runs it to its end here and now. The queue uses it; so does a rebalance
   * for its moves (it already holds the runner's turn).
   */
  async run(job) {
    this.signal.throwIfAborted();
    const handler = this.#handlers.get(job.type);
    if (!handler) throw new Error(`no handler for jobs of type '${job.type}'`);
    transition(job, 'running');
    await this.store.putJob(job);
    await handler(job, this.signal);
  }

  /** Takes no new job and asks the running one to stop at its next safe point. */
  stop() {
    this.#queue = [];
    if (!this.signal.aborted) this.#abort.abort(new Interrupted());
  }

  /** Resolves when nothing is queued or running (tests and shutdown). */
  async idle() {
    while (this.#busy) await new Promise((r) => setTimeout(r, 50));
  }
}
