// How the lab reads a percentile off a set of latencies: nearest rank (the sample at rank
// ceil(q * n)), the same figure in the allocator's objective, the experiments' closed-loop
// windows and make up's warm-up line. (The experiments' statistics interpolate, as numpy does:
// experiments/runner/src/stats.js.) Elasticsearch's `took` is whole milliseconds, floored:
// flooredPercentile reads those as the grouped data they are.

/** Nearest-rank percentile, q in 0..1, of numbers; null for none. */
export function nearestRank(xs, q) {
  if (!xs.length) return null;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))];
}

/**
 * The percentile, q in 0..1, of whole numbers that are floored measurements (Elasticsearch's
 * `took`: a search of 5.0-5.99 ms says 5): each value t stands for a time in [t, t + 1), spread
 * evenly there, and the percentile is read off that grouped data by linear interpolation inside
 * the bin that holds rank q * n (the textbook grouped-data percentile). Nearest rank on such
 * data moves in whole steps: at a p95 of 5-10 ms one step is 10-20% of the figure, more than the
 * margins the experiments judge; this moves by 1 / (count in the bin) of a millisecond. Null for
 * none; throws on a value that is not a whole number (not floored data: use nearestRank).
 */
export function flooredPercentile(xs, q) {
  if (!xs.length) return null;
  const counts = new Map();
  for (const x of xs) {
    if (!Number.isInteger(x)) throw new Error(`flooredPercentile: ${x} is not a whole number`);
    counts.set(x, (counts.get(x) ?? 0) + 1);
  }
  const rank = Math.min(1, Math.max(0, q)) * xs.length;
  let below = 0;
  const bins = [...counts.keys()].sort((a, b) => a - b);
  for (const t of bins) {
    const c = counts.get(t);
    if (below + c >= rank) return t + (rank - below) / c;
    below += c;
  }
  return bins[bins.length - 1] + 1;
}
