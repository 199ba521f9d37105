// A binary max-heap that can re-position an item whose key changed: placement of 100k tenants
// must not rescan every shared index of a group for each tenant.
export class IndexedMaxHeap {
  #items = [];
  #pos = new Map();
  // compare(a, b) > 0 when a should be nearer the top than b.
  constructor(compare) {
    this.compare = compare;
  }

  get size() {
    return this.#items.length;
  }

  peek() {
    return this.#items[0];
  }

  values() {
    return this.#items;
  }

  push(item) {
    this.#items.push(item);
    this.#pos.set(item, this.#items.length - 1);
    this.#up(this.#items.length - 1);
  }

  update(item) {
    const i = this.#pos.get(item);
    if (i === undefined) return;
    this.#up(i);
    this.#down(this.#pos.get(item));
  }

  #swap(i, j) {
    const a = this.#items[i];
    const b = this.#items[j];
    this.#items[i] = b;
    this.#items[j] = a;
    this.#pos.set(b, i);
    this.#pos.set(a, j);
  }

  #up(i) {
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (this.compare(this.#items[i], this.#items[p]) <= 0) return;
      this.#swap(i, p);
      i = p;
    }
  }

  #down(i) {
    const n = this.#items.length;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let top = i;
      if (l < n && this.compare(this.#items[l], this.#items[top]) > 0) top = l;
      if (r < n && this.compare(this.#items[r], this.#items[top]) > 0) top = r;
      if (top === i) return;
      this.#swap(i, top);
      i = top;
    }
  }
}
