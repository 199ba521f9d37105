// The baseline: what a first loader written with the official client looks like. Defaults
// everywhere (refresh 1s and replicas as the index has them), fixed 1000-document bulks, one
// request at a time, all to one node. It follows the same write contract, so both loaders
// write identical documents through the same aliases.
import { Client } from '@elastic/elasticsearch';
import { aliasFor } from '@tenantlab/contract/naming';
import { bulkAction } from '@tenantlab/contract/write-contract';

export async function naiveLoad(esUrl, items) {
  const client = new Client({ node: esUrl });
  let batch = [];
  let docs = 0;
  const flush = async (ops) => {
    for (let attempt = 0; ops.length; attempt++) {
      const res = await client.bulk({ operations: ops });
      const retry = [];
      if (res.errors) {
        res.items.forEach((it, k) => {
          const r = it.index;
          if (r.status === 429 || r.status >= 500) retry.push(ops[2 * k], ops[2 * k + 1]);
          else if (r.status >= 300 && r.status !== 409) throw new Error(`naive loader: ${r.error?.type}: ${r.error?.reason}`);
        });
      }
      docs += ops.length / 2 - retry.length / 2;
      ops = retry;
      if (ops.length) await new Promise((r) => setTimeout(r, 1000));
    }
  };
  for (const it of items) {
    batch.push(bulkAction({ index: aliasFor(it.tenant), id: it.id, version: it.version }), JSON.parse(it.source));
    if (batch.length === 2000) {
      await flush(batch);
      batch = [];
    }
  }
  if (batch.length) await flush(batch);
  await client.close();
  return docs;
}
