// Seeded randomness. Every value the generators produce comes from a stream keyed by
// (seed, purpose, a, b), e.g. (SEED, 'product', store, i): any product can be regenerated on
// its own, in any order, without replaying the ones before it. That is what keeps memory
// constant, lets the query log and the update command revisit a product, and makes the output
// independent of batching and concurrency.
import { xoroshiro128plusFromState } from 'pure-rand/generator/xoroshiro128plus';

// Mixing step of MurmurHash3 (fmix32): spreads every input bit over the state words so that
// neighbouring keys (product 41, product 42) give unrelated streams.
function fmix32(h) {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h | 0;
}

function hashString(s) {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h | 0;
}

const TWO32 = 4294967296;

export class Random {
  constructor(seed, purpose = '', a = 0, b = 0) {
    // Seeds above 2^32 keep their high bits instead of wrapping onto a smaller seed.
    const lo = seed % TWO32 | 0;
    const hi = Math.floor(seed / TWO32) | 0;
    const p = hashString(purpose);
    const s0 = fmix32(lo ^ fmix32(p + 0x9e3779b9));
    const s1 = fmix32(hi ^ fmix32(a + 0x7f4a7c15 + s0));
    const s2 = fmix32(a ^ fmix32(b + 0x632be59b + s1));
    const s3 = fmix32(b ^ fmix32(p + 0x85157af5 + s2));
    // xoroshiro's all-zero state is a fixed point; the constant keeps it out of reach.
    this.rng = xoroshiro128plusFromState([s0, s1 | 1, s2, s3]);
  }

  /** Uniform in [0, 1), 32 bits of resolution (plenty for catalog data, half the cost of 53). */
  float() {
    return (this.rng.next() >>> 0) / TWO32;
  }

  /** Integer in [0, n). */
  int(n) {
    return Math.floor(this.float() * n);
  }

  /** Integer in [lo, hi]. */
  range(lo, hi) {
    return lo + this.int(hi - lo + 1);
  }

  chance(p) {
    return this.float() < p;
  }

  pick(list) {
    return list[this.int(list.length)];
  }

  /** Picks with a skew towards the head of the list: a few brands sell most products. */
  pickSkewed(list, power = 2) {
    return list[Math.floor(this.float() ** power * list.length)];
  }

  /** Standard normal (Box-Muller; one value per call keeps streams simple to reason about). */
  normal() {
    const u = 1 - this.float();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * this.float());
  }

  logNormal(median, sigma) {
    return median * Math.exp(sigma * this.normal());
  }

  /** Pareto (type I): the heavy tail of store sizes. */
  pareto(min, alpha) {
    return min * (1 - this.float()) ** (-1 / alpha);
  }

  exponential(mean) {
    return -mean * Math.log(1 - this.float());
  }

  /** Fisher-Yates on a copy: k distinct items, order random. */
  sample(list, k) {
    const a = list.slice();
    const n = Math.min(k, a.length);
    for (let i = 0; i < n; i++) {
      const j = i + this.int(a.length - i);
      [a[i], a[j]] = [a[j], a[i]];
    }
    return a.slice(0, n);
  }
}

/**
 * One plain seeded stream of floats in [0, 1) (mulberry32), where no keyed stream is needed: the
 * experiments' statistics (the same seed gives the same report) and the tests' random mixes
 * (a failing property names the seed that reproduces it).
 */
export function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
