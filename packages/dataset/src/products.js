// One product of one store, built from the stream (SEED, 'product', store, i): the same seed
// gives the same product, whichever order or process asks for it. Field order follows the
// allocator's strict mapping (allocator/schema/products-mapping.json) so the JSON bytes are
// stable too.
import { documentId as contractDocumentId } from '@tenantlab/contract/naming';
import { Random } from './random.js';
import { vocab } from './vocab.js';
import { describe } from './grammar.js';

// The instant every generated timestamp is measured back from. Fixed, so the bytes do not
// depend on the day of the run, and in the past, so any live write (a resubmission, an update)
// carries a newer updated_at, hence a newer external version, than anything seeded.
export const CATALOG_EPOCH_MS = Date.UTC(2025, 0, 1);
const THREE_YEARS_MS = 3 * 365 * 24 * 3600 * 1000;

const VARIANT_COUNTS = [0, 0, 0, 0, 1, 2, 2, 3, 3, 4, 5]; // 0-5, about 40% without variants
const round2 = (x) => Math.round(x * 100) / 100;
const shelfPrice = (x) => (x < 1 ? 0.99 : Math.floor(x) + 0.99);

// Per-word derivations, computed once per distinct word rather than once per product: the
// generator has to stay a small fraction of what Elasticsearch spends indexing its output.
function memo(fn) {
  const cache = new Map();
  return (k) => {
    let v = cache.get(k);
    if (v === undefined) cache.set(k, (v = fn(k)));
    return v;
  };
}
const brandCode = memo((brand) => brand.replace(/[^A-Za-z]/g, '').slice(0, 3).toUpperCase());
const lower = memo((w) => w.toLowerCase());
const withArticle = memo((adj) => `${/^[AEIOU]/.test(adj) ? 'An' : 'A'} ${adj.toLowerCase()}`);

export const productId = (i) => String(i + 1);
/** The document id of product i (0-based) of a tenant: the write contract's `<tenant>:<product>`. */
export const documentId = (tenantId, i) => contractDocumentId(tenantId, productId(i));

/** Builds product i (0-based) of tenant t. `updatedAt` (epoch ms) overrides the stored one. */
export function makeProduct(seed, t, i, updatedAt) {
  const rng = new Random(seed, 'product', t.index, i);
  const leaf = rng.pick(t.leaves);
  const dept = leaf.department;
  const brands = t.brands[dept.name];
  const brand = rng.pickSkewed(brands);
  const adjective = rng.pick(vocab.adjectives);
  const noun = rng.pick(leaf.nouns);
  const code = brandCode(brand);
  const model = `${code.slice(0, 2)}-${rng.range(100, 9999)}`;
  const sku = `${code}-${leaf.code}-${String(i + 1).padStart(6, '0')}`;

  const attributes = {};
  if (rng.chance(dept.colors)) attributes.color = rng.pick(vocab.colors);
  if (dept.sizes) attributes.size = rng.pick(dept.sizes);
  if (dept.materials.length) attributes.material = rng.pick(dept.materials);

  const price = shelfPrice(rng.logNormal(dept.price.median, dept.price.sigma));
  const discount = rng.chance(0.18) ? 0.1 + rng.float() * 0.3 : 0;
  // BigCommerce's convention: sale_price 0 means "not on sale".
  const salePrice = discount ? round2(price * (1 - discount)) : 0;

  const nVariants = dept.sizes || dept.colors >= 0.5 ? rng.pick(VARIANT_COUNTS) : rng.pick(VARIANT_COUNTS) >> 1;
  const variants = [];
  for (let k = 0; k < nVariants; k++) {
    const vPrice = shelfPrice(price * (1 + rng.float() * 0.2));
    const v = {
      variant_id: `${productId(i)}-${k + 1}`,
      sku: `${sku}-${k + 1}`,
      price: vPrice,
      sale_price: discount ? round2(vPrice * (1 - discount)) : 0,
      inventory_level: rng.chance(0.15) ? 0 : Math.round(rng.logNormal(10, 1)),
    };
    if (attributes.color !== undefined) v.color = rng.pick(vocab.colors);
    if (dept.sizes) v.size = dept.sizes[(k + rng.int(dept.sizes.length)) % dept.sizes.length];
    if (attributes.material !== undefined) v.material = attributes.material;
    variants.push(v);
  }

  const t0 = rng.float();
  const tracking = nVariants ? (t0 < 0.4 ? 'variant' : t0 < 0.75 ? 'product' : 'none') : t0 < 0.7 ? 'product' : 'none';
  let inventory = 0;
  if (tracking === 'product') inventory = rng.chance(0.1) ? 0 : Math.round(rng.logNormal(25, 1.2));
  else if (tracking === 'variant') for (const v of variants) inventory += v.inventory_level;

  const isVisible = rng.chance(0.93);
  const rating = rng.chance(0.2) ? 0 : Math.max(1, Math.round((5 - rng.exponential(0.7)) * 10) / 10);
  const createdMs = CATALOG_EPOCH_MS - rng.int(THREE_YEARS_MS);
  const storedUpdatedMs = createdMs + Math.floor(rng.float() * (CATALOG_EPOCH_MS - createdMs));

  const leafName = lower(leaf.path.at(-1));
  const keywords = [lower(noun)];
  for (const k of [leafName, lower(adjective), attributes.color && lower(attributes.color), attributes.material]) {
    if (k && !keywords.includes(k)) keywords.push(k);
  }

  const description = describe(rng, {
    brand,
    noun: lower(noun),
    adjective,
    an_adjective: withArticle(adjective),
    material: attributes.material ?? 'durable',
    color: attributes.color ? lower(attributes.color) : 'several colors',
    category: leafName,
    model,
    sku,
  });

  const updatedMs = updatedAt ?? storedUpdatedMs;
  return {
    store_id: t.id,
    product_id: productId(i),
    name: `${brand} ${adjective} ${noun} ${model}`,
    description,
    sku,
    keywords,
    brand_name: brand,
    categories: leaf.categories,
    price,
    sale_price: salePrice,
    inventory_level: inventory,
    inventory_tracking: tracking,
    is_visible: isVisible,
    rating,
    attributes,
    variants,
    created_at: new Date(createdMs).toISOString(),
    updated_at: new Date(Math.max(updatedMs, createdMs)).toISOString(),
  };
}
