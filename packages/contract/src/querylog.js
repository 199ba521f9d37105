// The query-log format BigCommerce used for replay, one search per line:
//
//   TIMESTAMP.MS|SEARCH_TYPE|JSON_QUERY
//
//   TIMESTAMP.MS  epoch seconds, a dot, exactly three digits of milliseconds (1735689600.123)
//   SEARCH_TYPE   [a-z][a-z0-9_-]*: product, aggregated, category, autocomplete (others allowed)
//   JSON_QUERY    a complete _search body on one line; the store is its term filter on
//                 store_id (in query.bool.filter, must or a nested bool), and the search goes
//                 to its alias tenant-<store_id>. A real platform's log (other store ids, a
//                 legacy DSL) is made ready first: replay-prep.js
//
// Only the first two '|' separate fields: the JSON may contain '|' itself. Lines that are empty
// or start with '#' are skipped. The seeder writes logs with formatLine; bin/replay-prepare reads
// them with parseLog and writes the request plan the load engine's replay (Locust,
// traffic/replay.py) sends (replay-prep.js replayPlan), so the log is read here only. Plain ES
// module, no Node APIs.
import { aliasFor, statsGroupFor } from './naming.js';
import { findStore } from './legacy-dsl.js';
import { QueryLogError } from './errors.js';

export const SEARCH_TYPES = Object.freeze(['product', 'aggregated', 'category', 'autocomplete']);

export { QueryLogError };

const TS_RE = /^(\d{1,13})\.(\d{3})$/;
const TYPE_RE = /^[a-z][a-z0-9_-]*$/;

export function formatLine({ timestampMs, type, query }) {
  if (!TYPE_RE.test(type)) throw new QueryLogError(`bad search type '${type}'`);
  const ts = `${Math.floor(timestampMs / 1000)}.${String(timestampMs % 1000).padStart(3, '0')}`;
  return `${ts}|${type}|${JSON.stringify(query)}`;
}

/**
 * The store a query is for: its store_id term (or one-value terms), wherever a storefront puts it:
 * query.bool.filter, must, nested bools, post_filter (legacy-dsl.js findStore). null when none;
 * a query naming two stores has none either (it belongs to no one tenant).
 */
export function storeIdOf(query) {
  try {
    return findStore(query, 'store_id');
  } catch {
    return null;
  }
}

/**
 * A line's fields as written: { text (without a trailing CR), skip (blank or comment), a, b (the
 * indexes of the first two '|', b < 0 when there are not two) }. Only the first two '|' split.
 */
export function splitLine(line) {
  const text = line.endsWith('\r') ? line.slice(0, -1) : line;
  const a = text.indexOf('|');
  const b = a < 0 ? -1 : text.indexOf('|', a + 1);
  return { text, skip: !text.trim() || text.startsWith('#'), a, b };
}

/** Parses one line; null for blank lines and comments; throws QueryLogError otherwise. */
export function parseLine(line, lineNo = 0) {
  const { text, skip, a, b } = splitLine(line);
  if (skip) return null;
  if (b < 0) throw new QueryLogError('expected TIMESTAMP.MS|SEARCH_TYPE|JSON_QUERY', lineNo);
  const m = TS_RE.exec(text.slice(0, a));
  if (!m) throw new QueryLogError(`bad timestamp '${text.slice(0, a)}' (want epoch seconds with 3 decimals)`, lineNo);
  const type = text.slice(a + 1, b);
  if (!TYPE_RE.test(type)) throw new QueryLogError(`bad search type '${type}'`, lineNo);
  let query;
  try {
    query = JSON.parse(text.slice(b + 1));
  } catch (err) {
    throw new QueryLogError(`query is not JSON: ${err.message}`, lineNo);
  }
  if (query === null || typeof query !== 'object' || Array.isArray(query)) throw new QueryLogError('query must be a JSON object', lineNo);
  const storeId = storeIdOf(query);
  if (!storeId) throw new QueryLogError('query has no store_id term filter (in query.bool.filter, must or a nested bool)', lineNo);
  return { timestampMs: Number(m[1]) * 1000 + Number(m[2]), type, query, storeId };
}

/** Where and what to search for a parsed entry; tagged so per-tenant search rates show up. */
export function searchRequestOf(entry) {
  return { index: aliasFor(entry.storeId), body: { ...entry.query, stats: [statsGroupFor(entry.storeId)] } };
}

/** Parses a whole log (a string or an iterable of lines), stopping at the first bad line. */
export function* parseLines(lines) {
  let n = 0;
  for (const line of typeof lines === 'string' ? lines.split('\n') : lines) {
    n += 1;
    const e = parseLine(line, n);
    if (e) yield e;
  }
}

/**
 * Parses a whole log text, every line: { entries (each with its `line` number), errors
 * ['line N: ...'] }, so a replay can report every bad line at once or skip them.
 */
export function parseLog(text) {
  const entries = [];
  const errors = [];
  const lines = text.split('\n');
  if (lines.length && lines[lines.length - 1] === '') lines.pop();
  lines.forEach((line, i) => {
    try {
      const e = parseLine(line, i + 1);
      if (e) entries.push({ ...e, line: i + 1 });
    } catch (err) {
      errors.push(err.message);
    }
  });
  return { entries, errors };
}
