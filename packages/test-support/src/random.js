// Seeded PRNG (the dataset's mulberry32) so a failing property names a seed that reproduces it:
// the same stream the experiments' statistics use.
export { mulberry32 as rng } from '@tenantlab/dataset/random';

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
