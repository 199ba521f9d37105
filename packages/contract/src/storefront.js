// The storefront's search fields, one list for the generated query log (seed-data's querylog)
// and the load engine's storefront (Locust: ported in traffic/lib/contract.py, checked against
// the golden vectors bin/golden-vectors writes): the full fields and, as in BigCommerce's
// query, their `.partial` subfields (edge n-grams of each word, or of the whole SKU: partial
// words and SKU prefixes match; allocator/schema/products-analysis.json). No imports: a plain
// ES module.
export const SEARCH_FIELDS = ['name^2', 'name.partial', 'description', 'sku^3', 'sku.partial', 'keywords^2', 'keywords.partial', 'brand_name^2'];

/** The field autocomplete matches a half-typed word on (edge n-grams, so one term query per word). */
export const AUTOCOMPLETE_FIELD = 'name.partial';

/** A word as a shopper types it before finishing: its first 60%, at least 2 characters. */
export const typedPart = (word) => word.slice(0, Math.max(2, Math.ceil(word.length * 0.6)));
