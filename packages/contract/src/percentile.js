// How the lab reads a percentile off a set of latencies: nearest rank (the sample at rank
// ceil(q * n)), the same figure in the allocator's objective, the experiments' closed-loop
// windows and make up's warm-up line. (The experiments' statistics interpolate, as numpy does:
// experiments/runner/src/stats.js.)

/** Nearest-rank percentile, q in 0..1, of numbers; null for none. */
export function nearestRank(xs, q) {
  if (!xs.length) return null;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))];
}
