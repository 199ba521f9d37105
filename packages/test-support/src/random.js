// Seeded PRNG (mulberry32) so a failing property names a seed that reproduces it.
export function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A storefront-like mix: mostly small stores, a long tail of big ones, traffic independent of size. */
export function tenantMix(rand, n, { bigShare = 0.02, maxSmall = 20000, maxBig = 300000 } = {}) {
  const out = [];
  for (let i = 0; i < n; i++) {
    const big = rand() < bigShare;
    const documents = big ? 50000 + Math.floor(rand() * (maxBig - 50000)) : Math.floor(rand() ** 3 * maxSmall);
    const traffic = rand() < 0.05 ? Math.round(rand() * 40 * 100) / 100 : Math.round(rand() * 3 * 100) / 100;
    out.push({ id: `s${i}`, documents, traffic });
  }
  return out;
}

export const twoGroups = [
  { name: 'g1', nodes: ['es-data-1', 'es-data-2'] },
  { name: 'g2', nodes: ['es-data-3', 'es-data-4'] },
];
