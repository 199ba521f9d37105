// Baseline: the official client's own bulk helper (client.helpers.bulk), tuned as its docs
// advise: byte-sized flushes (5 MB, like the seeder) and the same number of requests in flight,
// over the same data nodes. It is handed the seeder's documents already serialized (a string
// payload goes through untouched), so what differs is only how the requests are built and sent.
import { aliasFor } from '@tenantlab/contract/naming';
import { bulkAction } from '@tenantlab/contract/write-contract';

export async function helperLoad({ client, items, flushBytes, concurrency }) {
  const dropped = [];
  // The helper takes arrays, buffers, streams or async iterators, not a plain generator.
  async function* datasource() {
    yield* items;
  }
  const stats = await client.helpers.bulk({
    datasource: datasource(),
    onDocument: (it) => [bulkAction({ index: aliasFor(it.tenant), id: it.id, version: it.version }), it.source],
    flushBytes,
    concurrency,
    // Enough retries that push-back (429) never drops a document; its default waits 5 s between
    // them, which is the helper's behaviour and stays.
    retries: 20,
    onDrop: (d) => dropped.push(d),
    refreshOnCompletion: false,
  });
  if (dropped.length) {
    const d = dropped[0];
    throw new Error(`bulk helper dropped ${dropped.length} documents (first: ${d.status} ${d.error?.type ?? ''}: ${d.error?.reason ?? ''})`);
  }
  return stats.successful;
}
