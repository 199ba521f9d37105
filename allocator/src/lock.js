// Serialises the allocator's decisions: two concurrent POST /tenants must not both decide to
// create the same next shared index, and a delete must not race a move's final switch.
export class Mutex {
  #tail = Promise.resolve();

  run(fn) {
    const result = this.#tail.then(() => fn());
    this.#tail = result.catch(() => {});
    return result;
  }
}
