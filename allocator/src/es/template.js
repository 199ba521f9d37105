// The storefront products index template. The mapping is strict so a typo in a seeder or a
// traffic script fails loudly instead of growing the mapping; it is kept as JSON in
// schema/products-mapping.json so other parts of the lab can read the same contract, with the
// analysis its `.partial` subfields and keyword normalizer use in schema/products-analysis.json
// (analysis-common's component names: the official module on the official image, the native
// runtime's analysis-lab module elsewhere; es-distribution/analysis).
import { readFileSync } from 'node:fs';
import { productsPattern } from '@tenantlab/contract/naming';

const schema = (file) => JSON.parse(readFileSync(new URL(`../../schema/${file}`, import.meta.url), 'utf8'));
export const productsMapping = schema('products-mapping.json');
export const productsAnalysis = schema('products-analysis.json');

export const templateName = (prefix) => `${prefix}products`;

export function productsTemplate(prefix) {
  return {
    index_patterns: [productsPattern(prefix)],
    priority: 200,
    _meta: { managed_by: 'tenantlab-allocator' },
    template: {
      settings: {
        'index.refresh_interval': '1s',
        'index.analysis.analyzer.default.type': 'standard',
        analysis: productsAnalysis,
      },
      mappings: productsMapping,
    },
  };
}

export async function ensureTemplate(client, prefix) {
  await client.indices.putIndexTemplate({ name: templateName(prefix), ...productsTemplate(prefix) });
}
