// The stores of a profile: ids, names, sizes, traffic weights and each store's assortment.
// Sizes are heavy-tailed (most stores 10-100 products, a few giants) and traffic weights come
// from a stream of their own, so a store's traffic says nothing about its size.
import { InputError } from '@tenantlab/contract/errors';
import { Random } from './random.js';
import { vocab } from './vocab.js';

// Departments that giant catalogs come from (auto parts, hardware, electronics...).
const GIANT_DEPARTMENTS = ['Automotive', 'Tools & Hardware', 'Electronics', 'Home & Kitchen', 'Apparel'];
const GIANT = 5000;
const ID_RE = /^[a-z0-9][a-z0-9-]{0,52}$/;

export const tenantId = (prefix, i) => `${prefix}-${String(i + 1).padStart(4, '0')}`;

export function checkPrefix(prefix) {
  if (!ID_RE.test(prefix)) throw new InputError(`tenant prefix '${prefix}' must be lowercase letters, digits and '-' (at most 53), starting with a letter or digit`);
  return prefix;
}

/**
 * Store sizes summing exactly to `total`. Drawn from a Pareto; the difference to the target is
 * absorbed by the tail (the largest tailShare of stores, in proportion to their draw), so the
 * many small stores keep their realistic 10-100 and the giants grow or shrink.
 */
export function storeSizes(seed, { stores, size }, total) {
  const { min = 10, alpha = 1.16, tailShare = 0.1 } = size ?? {};
  const raw = Array.from({ length: stores }, (_, i) => new Random(seed, 'store-size', i).pareto(min, alpha));
  const sizes = raw.map((r) => Math.max(1, Math.round(r)));
  let sum = sizes.reduce((a, b) => a + b, 0);
  const order = sizes.map((_, i) => i).sort((a, b) => sizes[b] - sizes[a] || a - b);
  if (sum < total) {
    const tail = order.slice(0, Math.max(1, Math.round(stores * tailShare)));
    const weight = tail.reduce((a, i) => a + raw[i], 0);
    const deficit = total - sum;
    for (const i of tail) sizes[i] += Math.floor((deficit * raw[i]) / weight);
  } else if (sum > total) {
    // A scaled-down run (e.g. --scale 0.05): everyone shrinks, nobody below one product.
    for (let i = 0; i < stores; i++) sizes[i] = Math.max(1, Math.floor((sizes[i] * total) / sum));
  }
  sum = sizes.reduce((a, b) => a + b, 0);
  sizes[order[0]] = Math.max(1, sizes[order[0]] + total - sum);
  return sizes;
}

function assortment(rng, size) {
  const depts = vocab.departments;
  const pool = size >= GIANT ? depts.filter((d) => GIANT_DEPARTMENTS.includes(d.name)) : depts;
  const main = rng.pick(pool);
  const chosen = [main];
  if (size >= 200 && rng.chance(0.3)) {
    const other = rng.pick(depts);
    if (other !== main) chosen.push(other);
  }
  const allLeaves = chosen.flatMap((d) => d.leaves);
  // Bigger stores carry more of the tree and more brands, as real catalogs do; a product's
  // brand is one the store stocks in the product's own department.
  const log = Math.log2(Math.max(2, size));
  const leaves = rng.sample(allLeaves, Math.max(1, Math.min(allLeaves.length, Math.ceil(log * 1.5))));
  const brands = {};
  for (const d of chosen) brands[d.name] = rng.sample(d.brands, Math.max(1, Math.min(d.brands.length, Math.round(log))));
  return { main, leaves, brands };
}

/**
 * Every tenant of a profile for a seed. Small (stores <= a few thousand), so it lives in memory;
 * the products are what streams.
 */
export function generateTenants({ seed, profile, scale = 1, prefix }) {
  checkPrefix(prefix);
  const total = Math.max(profile.stores, Math.round(profile.products * scale));
  const sizes = storeSizes(seed, profile, total);
  return sizes.map((size, i) => {
    const rng = new Random(seed, 'store', i);
    const { main, leaves, brands } = assortment(rng, size);
    const name = `${rng.pick(vocab.storeFirst)} ${rng.pick(main.storeSuffixes)}`;
    const traffic = new Random(seed, 'traffic', i).logNormal(1, profile.traffic?.sigma ?? 1);
    return {
      index: i,
      id: tenantId(prefix, i),
      name,
      expected_products: size,
      traffic_weight: Math.max(0.001, Math.round(traffic * 1000) / 1000),
      department: main.name,
      leaves,
      brands,
    };
  });
}

/** What the allocator is told about a tenant (POST /tenants). */
export const tenantSpec = (t) => ({ id: t.id, name: t.name, expected_products: t.expected_products, traffic_weight: t.traffic_weight });
