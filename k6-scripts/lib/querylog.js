// The query-log format (seed-data/src/querylog/format.js is the reference; this mirrors its
// parseLine and searchRequestOf so any log in the format can be replayed):
//
//   TIMESTAMP.MS|SEARCH_TYPE|JSON_QUERY
//
// epoch seconds with exactly 3 decimals | [a-z][a-z0-9_-]* | a whole _search body on one line,
// whose store is the store_id term filter in query.bool.filter. Only the first two '|' split;
// empty lines and lines starting with '#' are skipped.

const TS_RE = /^(\d{1,13})\.(\d{3})$/;
const TYPE_RE = /^[a-z][a-z0-9_-]*$/;

export function storeIdOf(query) {
  const filters = query && query.query && query.query.bool && query.query.bool.filter;
  const list = Array.isArray(filters) ? filters : filters ? [filters] : [];
  for (const f of list) {
    const v = f && f.term && f.term.store_id;
    if (v !== undefined) return typeof v === 'object' && v !== null ? String(v.value) : String(v);
  }
  return null;
}

/** parseLine(line, lineNo): null (blank, comment), an entry, or throws Error('line N: ...'). */
export function parseLine(line, lineNo) {
  const bad = (msg) => { throw new Error(`line ${lineNo}: ${msg}`); };
  const text = line.endsWith('\r') ? line.slice(0, -1) : line;
  if (!text.trim() || text.startsWith('#')) return null;
  const a = text.indexOf('|');
  const b = a < 0 ? -1 : text.indexOf('|', a + 1);
  if (b < 0) bad('expected TIMESTAMP.MS|SEARCH_TYPE|JSON_QUERY');
  const m = TS_RE.exec(text.slice(0, a));
  if (!m) bad(`bad timestamp '${text.slice(0, a)}' (want epoch seconds with 3 decimals)`);
  const type = text.slice(a + 1, b);
  if (!TYPE_RE.test(type)) bad(`bad search type '${type}'`);
  let query;
  try {
    query = JSON.parse(text.slice(b + 1));
  } catch (err) {
    bad(`query is not JSON: ${err.message}`);
  }
  if (query === null || typeof query !== 'object' || Array.isArray(query)) bad('query must be a JSON object');
  const storeId = storeIdOf(query);
  if (!storeId) bad('query has no store_id term filter in query.bool.filter');
  return { timestampMs: Number(m[1]) * 1000 + Number(m[2]), type, query, storeId, line: lineNo };
}

/** parseLog(text): {entries, errors: ['line N: ...']}: every line, bad ones collected. */
export function parseLog(text) {
  const entries = [];
  const errors = [];
  const lines = text.split('\n');
  if (lines.length && lines[lines.length - 1] === '') lines.pop();
  lines.forEach((line, i) => {
    try {
      const e = parseLine(line, i + 1);
      if (e) entries.push(e);
    } catch (err) {
      errors.push(err.message);
    }
  });
  return { entries, errors };
}

/** Where and what to search: the tenant alias, the body with its stats group. */
export function searchRequestOf(entry) {
  return { index: `tenant-${entry.storeId}`, body: { ...entry.query, stats: [`tenant-${entry.storeId}`] } };
}
