// Requests and lines whose size would otherwise grow with the number of tenants, cut to bounded
// ones: the one home for the bound, used by every part that names many indices or aliases.
//
// Elasticsearch refuses a request line longer than http.max_initial_line_length (4096 bytes by
// default) with too_long_http_line_exception, and its JavaScript client puts an index list in the
// path, encoded: each comma is `%2C`. 10,000 tenant aliases in one refresh are a 200 KB line
// (`make up` of a 10,000-store profile stopped there before anything was loaded). A list is
// therefore sent in batches whose encoded form stays under URL_LIST_BYTES, leaving the rest of
// the line to the method, the path's other parts and the query string.
export const URL_LIST_BYTES = 2048;

// the names a log line or an error shows before "and N more"
export const LISTED = 8;

const encodedBytes = (name) => encodeURIComponent(name).length;
const COMMA_BYTES = encodedBytes(',');

/**
 * urlListBatches(names, budget?) -> string[][]: `names` in order, cut into batches each of whose
 * comma-joined, URL-encoded form is at most `budget` bytes. A single name over the budget is a
 * batch of its own (Elasticsearch's names are at most 255 bytes, so it still fits the line).
 */
export function urlListBatches(names, budget = URL_LIST_BYTES) {
  const out = [];
  let cur = [];
  let bytes = 0;
  for (const n of names) {
    const b = encodedBytes(n);
    if (cur.length && bytes + COMMA_BYTES + b > budget) {
      out.push(cur);
      cur = [];
      bytes = 0;
    }
    bytes += (cur.length ? COMMA_BYTES : 0) + b;
    cur.push(n);
  }
  if (cur.length) out.push(cur);
  return out;
}

/**
 * forEachUrlBatch(names, fn, budget?) -> [result of fn(batchJoined, batch)] in order, one request
 * at a time (a batch is a request line: sent together they would only queue on the same master).
 * `batchJoined` is the batch as the comma-joined string a client's `index` parameter takes.
 */
export async function forEachUrlBatch(names, fn, budget = URL_LIST_BYTES) {
  const results = [];
  for (const batch of urlListBatches(names, budget)) results.push(await fn(batch.join(','), batch));
  return results;
}

/** listed(names, max?) -> "a, b, c" or "a, b, c and 196 more": a line of bounded length. */
export function listed(names, max = LISTED) {
  const list = [...names];
  if (list.length <= max) return list.join(', ');
  return `${list.slice(0, max).join(', ')} and ${list.length - max} more`;
}
