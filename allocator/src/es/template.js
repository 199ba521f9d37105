// The storefront products index template. The mapping is strict so a typo in a seeder or a
// traffic script fails loudly instead of growing the mapping; it is kept as JSON in
// schema/products-mapping.json so other parts of the lab can read the same contract.
import { readFileSync } from 'node:fs';
import { productsPattern } from '@tenantlab/contract/naming';

export const productsMapping = JSON.parse(readFileSync(new URL('../../schema/products-mapping.json', import.meta.url), 'utf8'));

export const templateName = (prefix) => `${prefix}products`;

export function productsTemplate(prefix) {
  return {
    index_patterns: [productsPattern(prefix)],
    priority: 200,
    _meta: { managed_by: 'tenantlab-allocator' },
    template: {
      settings: {
        'index.refresh_interval': '1s',
        // Only the standard analyzer exists in the native runtime (no analysis-common).
        'index.analysis.analyzer.default.type': 'standard',
      },
      mappings: productsMapping,
    },
  };
}

export async function ensureTemplate(client, prefix) {
  await client.indices.putIndexTemplate({ name: templateName(prefix), ...productsTemplate(prefix) });
}
