// A sliding window over cumulative counters (Elasticsearch's query_total, query_time_in_millis,
// rejected...): samples of { key -> value } at times; a key's increase over the window is its
// newest value minus its value in the oldest sample still kept. The window keeps one sample at
// or before its start, so the increase covers the whole window once it has been running that long.
//
// Counters of Elasticsearch reset when a shard copy relocates or an index is deleted and
// re-created: a decrease is read as a reset (the increase since is the new value, never < 0);
// a key absent from the oldest sample started during the window (a new index) and counts from 0.
export class CounterWindow {
  /** @param windowMs how far back the increases reach */
  constructor(windowMs) {
    this.windowMs = windowMs;
    this.samples = [];
  }

  /** Adds the counters read at `at` (ms). Samples older than needed are dropped. */
  add(at, values) {
    this.samples.push({ at, values });
    const start = at - this.windowMs;
    // keep the newest sample at or before the window's start as the baseline
    while (this.samples.length > 2 && this.samples[1].at <= start) this.samples.shift();
  }

  /** Seconds between the oldest and the newest sample kept (0 with fewer than two). */
  get spanS() {
    if (this.samples.length < 2) return 0;
    return (this.samples.at(-1).at - this.samples[0].at) / 1000;
  }

  /** Map key -> increase over the window (keys of the newest sample only). */
  increases() {
    const out = new Map();
    if (this.samples.length < 2) return out;
    const first = this.samples[0].values;
    for (const [key, now] of this.samples.at(-1).values) {
      const then = first.get(key) ?? 0;
      out.set(key, now >= then ? now - then : now);
    }
    return out;
  }

  /** The newest sample's values (gauges read with the counters). */
  get latest() {
    return this.samples.at(-1)?.values ?? new Map();
  }
}
