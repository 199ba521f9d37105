// The vocabularies in vocab/, read once and shaped for the generator: the category tree is
// flattened into leaves that know their department and their full path.
import { readFileSync } from 'node:fs';

const read = (name) => JSON.parse(readFileSync(new URL(`../vocab/${name}.json`, import.meta.url), 'utf8'));

function leavesOf(node, path, department, out) {
  const here = [...path, node.name];
  if (node.nouns) {
    out.push({
      department,
      path: here,
      // Every level is a facet value, as storefront category pages filter on any level.
      categories: here.map((_, i) => here.slice(0, i + 1).join('/')),
      nouns: node.nouns,
      code: here.at(-1).replace(/[^A-Za-z]/g, '').slice(0, 3).toUpperCase(),
    });
  }
  for (const child of node.children ?? []) leavesOf(child, here, department, out);
  return out;
}

function build() {
  const { departments } = read('categories');
  const brands = read('brands');
  const words = read('words');
  const grammar = read('description');
  const depts = departments.map((d) => ({
    name: d.name,
    code: d.code,
    price: d.price,
    sizes: d.sizes ? words.sizes[d.sizes] : null,
    colors: d.colors,
    materials: d.materials,
    brands: brands[d.name],
    storeSuffixes: words.store[d.name],
    leaves: [],
  }));
  for (const [i, d] of departments.entries()) {
    for (const child of d.children) leavesOf(child, [d.name], depts[i], depts[i].leaves);
  }
  for (const d of depts) {
    if (!d.brands?.length || !d.storeSuffixes?.length || !d.leaves.length) throw new Error(`vocab: department ${d.name} lacks brands, store words or leaves`);
  }
  return {
    departments: depts,
    adjectives: words.adjectives,
    colors: words.colors,
    storeFirst: words.store.first,
    grammar,
  };
}

export const vocab = build();
