// A bulk response's items counted, never retried (the ingest and many-shards experiments): the
// request asks for statuses only (BULK_QUERY), so a 1,000-item answer stays a few KB.
//   indexed   201 / 200
//   rejected  429 (es_rejected_execution_exception: a full write queue, or indexing pressure);
//             a whole bulk answered 429 counts every document
//   failed    anything else, or no answer at all
export const BULK_QUERY = '?filter_path=errors,items.*.status,items.*.error.type';

/** (k6 response, documents in the bulk) -> { indexed, rejected, failed } */
export function bulkItems(res, docs) {
  if (res.status === 429) return { indexed: 0, rejected: docs, failed: 0 };
  if (res.status !== 200) return { indexed: 0, rejected: 0, failed: docs };
  // most bulks have no error: their items need not be read
  if (res.body.startsWith('{"errors":false')) return { indexed: docs, rejected: 0, failed: 0 };
  let indexed = 0, rejected = 0, failed = 0;
  for (const item of JSON.parse(res.body).items ?? []) {
    const r = item.index ?? item.create ?? {};
    if (r.status === 201 || r.status === 200) indexed += 1;
    else if (r.status === 429) rejected += 1;
    else failed += 1;
  }
  // items the answer does not list did not happen
  return { indexed, rejected, failed: failed + Math.max(0, docs - indexed - rejected - failed) };
}
