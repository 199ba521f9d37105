// Runs jobs one at a time, in the order they were asked for: two moves copying at once would
// compete for the same two data nodes of a group and make neither's figures meaningful.
export class SerialRunner {
  #queue = [];
  #busy = false;

  constructor(handler, log) {
    this.handler = handler;
    this.log = log;
    this.current = null;
  }

  get pending() {
    return this.#queue.length + (this.current ? 1 : 0);
  }

  enqueue(id) {
    if (this.current === id || this.#queue.includes(id)) return;
    this.#queue.push(id);
    this.#drain();
  }

  async #drain() {
    if (this.#busy) return;
    this.#busy = true;
    try {
      while (this.#queue.length) {
        this.current = this.#queue.shift();
        try {
          await this.handler(this.current);
        } catch (err) {
          this.log.error({ job: this.current, err: err.message }, 'job handler failed');
        }
        this.current = null;
      }
    } finally {
      this.#busy = false;
    }
  }

  /** Resolves when nothing is queued or running (tests and shutdown). */
  async idle() {
    while (this.#busy) await new Promise((r) => setTimeout(r, 50));
  }
}
