// The last minutes of each group's health, one point per observation, for the console's live
// charts: what the allocator judged by (p95 and its signal), its two limits, search rate,
// rejections, CPU. Kept in memory (a restarted allocator starts a new history); bounded by age
// and by count, so an observation every second for hours costs a fixed few hundred KB.

export const HISTORY_FIELDS = ['p95_ms', 'objective_ms', 'relative_limit_ms', 'search_rate', 'rejected_per_s', 'cpu_percent'];

export class GroupHistory {
  constructor({ keepMs = 10 * 60 * 1000, maxPoints = 1200 } = {}) {
    Object.assign(this, { keepMs, maxPoints });
    this.points = new Map(); // group -> [{ t, signal, p95_ms, ... }]
  }

  /** One observation's snapshot (observer.js): a point per group. */
  add(snapshot) {
    const t = Date.parse(snapshot.at);
    if (!Number.isFinite(t)) return;
    for (const g of snapshot.cost.groups.values()) {
      if (!this.points.has(g.group)) this.points.set(g.group, []);
      const list = this.points.get(g.group);
      list.push({ t, signal: g.signal ?? null, ...Object.fromEntries(HISTORY_FIELDS.map((f) => [f, g[f] ?? null])) });
      while (list.length > this.maxPoints || (list.length && list[0].t < t - this.keepMs)) list.shift();
    }
    const seen = new Set([...snapshot.cost.groups.keys()]);
    for (const name of this.points.keys()) if (!seen.has(name)) this.points.delete(name);
  }

  /** -> { keep_s, groups: { name: { t: [epoch s], signal: [...], p95_ms: [...], ... } } }: columns, as uPlot takes them. */
  view() {
    const groups = {};
    for (const [name, list] of [...this.points].sort(([a], [b]) => (a < b ? -1 : 1))) {
      groups[name] = { t: list.map((p) => p.t / 1000), signal: list.map((p) => p.signal) };
      for (const f of HISTORY_FIELDS) groups[name][f] = list.map((p) => p[f]);
    }
    return { keep_s: this.keepMs / 1000, groups };
  }
}
