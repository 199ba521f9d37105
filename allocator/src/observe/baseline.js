// Each group's own normal latency, for the relative objective (hot.relative): the median of the
// p95s the observer judged the group by over a trailing window (hot.baselineS, default 10 min), or
// of its last quarter when that is lower (a lab that got faster has a new normal at once),
// counting only the observations it may learn from (learning.js: shoppers to judge, nothing in the
// group flagged or within the hold, no tenant's share risen like a culprit's). The median, because
// the first observations of a burst must not drag the normal up (with the few dozen samples of a
// last quarter it did not suffice alone: learning.js's wait on a rising share). Each
// sample is capped at the relative limit of its time, so that a spike counts as no more than the
// limit; a trailing window, because a group that really grows busier (more shoppers, no noisy
// store) should become the new normal: capped samples pull the median up one limit at a time,
// within half a window (a store whose share stays high becomes normal in its share's normal,
// which goes on learning, and then stops pausing its group's baseline).
//
// One baseline per group and signal: the shoppers' own p95 (load) and the probe's differ in
// scale, and a group is compared only with a baseline of the signal it is judged by now. It is
// ready once its samples span one observation window; until then only the absolute objective
// counts. The samples are persisted with the allocator's state (state/store.js, a few times a
// minute), so a restarted allocator keeps its groups' normal; when all its samples have aged out
// during a long stop, the last baseline it had stays in use, marked `stale`, until a new one is
// ready. A running allocator never falls back that way: a group idle for longer than the window
// (between two load runs) learns its normal again, so a cold first run's slow normal cannot hide
// the next run's rise (make demo REPEAT=5 flagged 1 of 5 with it).
import { percentile } from './probe.js';

const r1 = (x) => Math.round(x * 10) / 10;

export class Baselines {
  /** windowMs: trailing window; readyMs: the span of samples before a baseline counts. */
  constructor({ windowMs, readyMs, saved = null }) {
    Object.assign(this, { windowMs, readyMs });
    this.samples = new Map(); // `${group}|${signal}` -> [{ at, p95 }]
    this.last = new Map(); // `${group}|${signal}` -> the last ready baseline (fallback after a long stop)
    this.restored = new Set(); // keys whose last baseline came from the saved state, not yet learned again
    this.clock = 0; // the latest observation's time: what `get` counts the window back from
    if (saved) this.restore(saved);
  }

  /**
   * Records a judged p95 of `group` at `at` (ms) when `learn`, no higher than `cap` (the relative
   * limit then, when there is one); drops samples out of the window.
   */
  add(at, group, signal, p95, learn, cap = null) {
    const key = `${group}|${signal}`;
    this.clock = Math.max(this.clock, at);
    const kept = (this.samples.get(key) ?? []).filter((s) => s.at > at - this.windowMs);
    if (learn && Number.isFinite(p95)) kept.push({ at, p95: Number.isFinite(cap) ? Math.min(p95, cap) : p95 });
    this.samples.set(key, kept);
    const b = this.#compute(group, signal, kept);
    if (b.ready) {
      this.last.set(key, b);
      this.restored.delete(key);
    }
  }

  /**
   * The baseline of `group` for `signal` at `at` (ms): { p95_ms, signal, samples, span_s, ready,
   * stale, learned_at } or null. Samples older than the window are left out here too: a signal
   * the group was not judged by for a while (no shoppers' histograms between two load runs: the
   * probe judged it) has had no `add` to drop them, and its old normal must not pass for a fresh one.
   */
  get(group, signal, at = this.clock) {
    if (!signal) return null;
    const key = `${group}|${signal}`;
    const b = this.#compute(group, signal, (this.samples.get(key) ?? []).filter((s) => s.at > at - this.windowMs));
    if (b.ready) return b;
    // the last baseline stands in only after a restart (the normal of before the stop); a running
    // allocator whose samples aged out (the group idle, or judged by the other signal) learns again
    const last = this.restored.has(key) ? this.last.get(key) : null;
    return last ? { ...last, stale: true } : b.samples ? b : null;
  }

  #compute(group, signal, kept) {
    const span = kept.length > 1 ? kept.at(-1).at - kept[0].at : 0;
    // a lab that got faster (caches and JIT warming after a start) is judged against its new
    // normal within a quarter window: the lower of the window's median and its last quarter's,
    // once that quarter spans readyMs. Measured: make demo on a freshly started lab learned 346 ms
    // in its first minutes, and a bot that took the warm neighbours from 20 to 116 ms stayed under
    // that limit for the next four repetitions.
    const recent = kept.length ? kept.filter((s) => s.at > kept.at(-1).at - this.windowMs / 4) : [];
    const recentMedian = recent.length > 1 && recent.at(-1).at - recent[0].at >= this.readyMs ? percentile(recent.map((s) => s.p95), 0.5) : null;
    const whole = percentile(kept.map((s) => s.p95), 0.5);
    const median = recentMedian !== null && recentMedian < whole ? recentMedian : whole;
    return {
      group,
      signal,
      p95_ms: median === null ? null : r1(median),
      samples: kept.length,
      span_s: Math.round(span / 1000),
      window_s: Math.round(this.windowMs / 1000),
      ready: median !== null && span >= this.readyMs,
      stale: false,
      learned_at: kept.length ? new Date(kept.at(-1).at).toISOString() : null,
    };
  }

  /**
   * Forgets what `group` learned, for every signal (samples and the last baseline): an operator's
   * word that its normal changed or was never normal (a load test, a planned saturation, new
   * hardware). Until it is learned again (readyMs) only the absolute objective counts. -> the
   * number of samples dropped.
   */
  forget(group) {
    let dropped = 0;
    for (const key of [...this.samples.keys(), ...this.last.keys()]) {
      if (key.slice(0, key.lastIndexOf('|')) !== group) continue;
      dropped += this.samples.get(key)?.length ?? 0;
      this.samples.delete(key);
      this.last.delete(key);
      this.restored.delete(key);
    }
    return dropped;
  }

  /** What the state store keeps: samples inside the window and the last ready baselines. */
  toJSON() {
    return { samples: Object.fromEntries(this.samples), last: Object.fromEntries(this.last) };
  }

  restore(saved) {
    for (const [k, v] of Object.entries(saved.samples ?? {})) if (Array.isArray(v)) this.samples.set(k, v.filter((s) => Number.isFinite(s?.at) && Number.isFinite(s?.p95)));
    for (const [k, v] of Object.entries(saved.last ?? {})) {
      if (!Number.isFinite(v?.p95_ms)) continue;
      this.last.set(k, v);
      this.restored.add(k);
    }
  }
}
