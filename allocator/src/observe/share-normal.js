// Each tenant's normal share of its group's search time and of its indexing time, for hot.js:
// a noisy neighbour is a tenant that changed, so a flag needs its share to have risen by at
// least hot.shareRise above its own normal, not merely to be large. Measured before this rule:
// two minutes of steady storefront traffic on a busy CI machine took a group's p95 from its 19 ms
// normal to 48-76 ms for half a minute with no bot, and its biggest store, 51-61% of the group's
// search time every window, was flagged eight times (relative objective); and make demo on a
// freshly started lab moved a big store of a cold, slow group (absolute objective, 30.4%) in its
// unmeasured round, whose cool-down then kept the bot's store from being moved for four minutes.
//
// Learned like the group's baseline (baseline.js) and in the same observations: the median over a
// trailing window (hot.baselineS) of the shares seen while the group had shoppers to judge and
// none of its tenants was flagged or within the hold; ready once the group has learned over half an
// observation window (a tenant new to the group, never seen in it, is then normally under the floor).
// Keyed by tenant and group: a share is of one group, and a moved tenant's normal in its new group
// is learned there. Persisted with the group baselines (a restart keeps it).
//
// How much a share varies matters as much as where it sits: on 15-s windows of steady storefront
// traffic (three stores a group, 5 minutes, native) each store's share had a standard deviation of
// 0.043-0.069 across observations, and rose up to 0.17 above its median with no bot, over
// hot.shareRise; with the group's p95 crossing its relative limit at the same time (a busy
// machine's pause), CI flagged a steady store (29.9% -> 45%). So `get` also returns the standard
// deviation of the tenant's kept shares, and hot.js asks a rise of hot.shareRiseSd of them too.
// A bot's store is normally under the floor and unaffected.
//
// Cost with thousands of tenants: only shares of at least `floor` (hot.share - hot.shareRise) are
// kept, a few tenants per group; a share below it counts as below it. A tenant whose normal is
// under the floor passes the rise test whenever its share reaches hot.share, so nothing is lost.
import { percentile } from './probe.js';

const KINDS = ['search', 'write'];

/** Sample standard deviation; 0 with fewer than 3 values (too few to say how a share varies). */
function sd(xs) {
  if (xs.length < 3) return 0;
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  return Math.sqrt(xs.reduce((a, x) => a + (x - mean) ** 2, 0) / (xs.length - 1));
}

export class ShareNormals {
  constructor({ windowMs, readyMs, floor }) {
    Object.assign(this, { windowMs, readyMs, floor });
    this.times = new Map(); // group -> [at] of the observations it learned from
    this.samples = new Map(); // `${tenant}|${group}|${kind}` -> [{ at, share }], shares >= floor only
  }

  /** Records the tenants' shares of one group at `at` (ms) when `learn`; drops samples out of the window. */
  add(at, group, tenants, learn) {
    const inWindow = (s) => (s.at ?? s) > at - this.windowMs;
    const times = (this.times.get(group) ?? []).filter(inWindow);
    if (learn) times.push(at);
    this.times.set(group, times);
    for (const key of this.samples.keys()) {
      if (!key.includes(`|${group}|`)) continue;
      const kept = this.samples.get(key).filter(inWindow);
      if (kept.length) this.samples.set(key, kept);
      else this.samples.delete(key);
    }
    if (!learn) return;
    for (const t of tenants) {
      const shares = { search: t.share_of_group, write: t.write_share_of_group };
      for (const kind of KINDS) {
        if (!(shares[kind] >= this.floor)) continue;
        const key = `${t.tenant}|${group}|${kind}`;
        if (!this.samples.has(key)) this.samples.set(key, []);
        this.samples.get(key).push({ at, share: shares[kind] });
      }
    }
  }

  /**
   * The tenant's normal share of `group`'s `kind` time at `at` (ms): { share (3 decimals), under,
   * sd } where `under` says the normal is below the floor (then `share` is the floor, `sd` 0), and
   * `sd` is the standard deviation of its kept shares (0 with fewer than 3), or null until the
   * group has learned over half a window.
   */
  get(tenant, group, kind, at) {
    const times = (this.times.get(group) ?? []).filter((t) => t > at - this.windowMs);
    if (times.length < 2 || times.at(-1) - times[0] < this.readyMs) return null;
    const kept = (this.samples.get(`${tenant}|${group}|${kind}`) ?? []).filter((s) => s.at > at - this.windowMs);
    // the observations it was under the floor count as 0: below every kept share
    const all = [...kept.map((s) => s.share), ...Array(Math.max(0, times.length - kept.length)).fill(0)];
    const median = percentile(all, 0.5);
    if (median < this.floor) return { share: this.floor, under: true, sd: 0 };
    return { share: Math.round(median * 1000) / 1000, under: false, sd: Math.round(sd(kept.map((s) => s.share)) * 1000) / 1000 };
  }

  /** Drops every tenant not in `ids` (a deleted tenant's samples do not stay). */
  keepOnly(ids) {
    for (const key of this.samples.keys()) if (!ids.has(key.split('|')[0])) this.samples.delete(key);
  }

  toJSON() {
    return { times: Object.fromEntries(this.times), samples: Object.fromEntries(this.samples) };
  }

  restore(saved) {
    for (const [g, v] of Object.entries(saved?.times ?? {})) if (Array.isArray(v)) this.times.set(g, v.filter(Number.isFinite));
    for (const [k, v] of Object.entries(saved?.samples ?? {})) {
      if (Array.isArray(v)) this.samples.set(k, v.filter((s) => Number.isFinite(s?.at) && Number.isFinite(s?.share)));
    }
  }
}
