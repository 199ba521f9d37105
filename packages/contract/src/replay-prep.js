// A query log made ready for the lab before the load engine (Locust) replays it
// (bin/replay-prepare, run by `make replay`): each line's legacy DSL translated (legacy-dsl.js; TRANSLATE=off sends it as it is),
// its store found wherever the query names it (STORE_FIELD), the log's stores mapped onto the
// lab's tenants (store-map.js: rank, hash or a file of pairs; the identity when every store of
// the log is a tenant already), the store term rewritten to the tenant's. The prepared log keeps
// every line number: a line that cannot be used becomes a comment saying why, and a malformed
// line is passed through unchanged, for the replay to report and skip or stop on (BAD_LINES).
// Pure: lines in, lines and a summary out.
import { TranslateError, findStore, replaceStore, translate } from './legacy-dsl.js';
import { parseLog, searchRequestOf, splitLine } from './querylog.js';
import { mapStores } from './store-map.js';

/** A line's head (TIMESTAMP.MS|SEARCH_TYPE) and parsed query, or null when it has no JSON object there. */
function fields(text) {
  const { a, b } = splitLine(text);
  if (a < 0 || b < 0) return null;
  try {
    const query = JSON.parse(text.slice(b + 1));
    return query !== null && typeof query === 'object' && !Array.isArray(query) ? { head: text.slice(0, b), query } : null;
  } catch {
    return null;
  }
}

/**
 * prepareLog(lines, { tenants, translateOn, storeField, storeMap, pairs, fieldType })
 * -> { lines, summary }. summary: { lines, usable, malformed, untranslatable: [{ line, reason }],
 * no_store: [{ line }], unmapped, rewrites: { rule: n }, stores, store_map: { mode, pairs: {} } }.
 */
export function prepareLog(lines, { tenants, translateOn = true, storeField = 'store_id', storeMap = 'rank', pairs = null, fieldType = () => null }) {
  const rows = [];
  const counts = new Map();
  const rewrites = {};
  const summary = { lines: 0, usable: 0, malformed: 0, untranslatable: [], no_store: [], unmapped: 0, rewrites, stores: 0, store_map: null };
  const comment = (n, why) => ({ text: `# line ${n}: ${why}` });
  for (const [i, raw] of lines.entries()) {
    const n = i + 1;
    const { text, skip } = splitLine(raw);
    summary.lines += 1;
    if (skip) { rows.push({ text }); continue; }
    const f = fields(text);
    if (!f) {
      // the replay's own parser names what is wrong with it, with its line number
      summary.malformed += 1;
      rows.push({ text });
      continue;
    }
    let body = f.query;
    let store;
    try {
      if (translateOn) {
        const t = translate(body, { fieldType });
        body = t.body;
        for (const [rule, c] of Object.entries(t.counts)) rewrites[rule] = (rewrites[rule] ?? 0) + c;
      }
      store = findStore(body, storeField);
    } catch (err) {
      if (!(err instanceof TranslateError)) throw err;
      summary.untranslatable.push({ line: n, reason: err.message });
      rows.push(comment(n, `untranslatable: ${err.message}`));
      continue;
    }
    if (store === null) {
      summary.no_store.push({ line: n });
      rows.push(comment(n, `no ${storeField} term filter found anywhere in the query`));
      continue;
    }
    counts.set(store, (counts.get(store) ?? 0) + 1);
    rows.push({ head: f.head, body, store, n });
  }
  // the log's stores onto the lab's tenants: itself when every store is a tenant already
  const ids = new Set(tenants.map((t) => t.id));
  const identity = [...counts.keys()].every((s) => ids.has(s));
  const mode = identity && storeMap === 'rank' ? 'identity' : storeMap;
  const map = mode === 'identity' ? new Map([...counts.keys()].map((s) => [s, s])) : mapStores({ counts, tenants, mode, pairs });
  summary.store_map = { mode, pairs: Object.fromEntries([...map.entries()].sort()) };
  summary.stores = counts.size;
  const out = rows.map((r) => {
    if (r.text !== undefined) return r.text;
    const tenant = map.get(r.store);
    if (tenant === undefined) {
      summary.unmapped += 1;
      return `# line ${r.n}: store ${r.store} is not in the store map`;
    }
    summary.usable += 1;
    const moved = tenant === r.store && storeField === 'store_id' ? r.body : replaceStore(r.body, r.store, tenant, storeField, 'store_id');
    return `${r.head}|${JSON.stringify(moved)}`;
  });
  return { lines: out, summary };
}

/** One line for the terminal: what the preparation did. */
export function summaryLine(s) {
  const rules = Object.entries(s.rewrites).map(([r, c]) => `${r} ${c}`).join(', ');
  return [
    `replay: ${s.usable} of ${s.lines} lines usable`,
    `${s.stores} stores mapped (${s.store_map.mode})`,
    rules ? `rewrites: ${rules}` : 'no rewrite',
    s.untranslatable.length ? `${s.untranslatable.length} untranslatable (first: line ${s.untranslatable[0].line}: ${s.untranslatable[0].reason})` : null,
    s.no_store.length ? `${s.no_store.length} without a store (first: line ${s.no_store[0].line})` : null,
    s.unmapped ? `${s.unmapped} of stores outside the map` : null,
  ].filter(Boolean).join('; ');
}

/**
 * The request plan the load engine replays (plan.ndjson), from a prepared log's text: the
 * query-log format is read here, in its one home, never again by the engine. First line: a
 * header { plan: 'replay', queries, errors: ['line N: ...'] }; then one line per query, in log
 * order: { line, at_ms (from the log's first query), type, tenant, index (the alias), body (with
 * the tenant's stats group), aggs (the query asks for facets) }.
 */
export function replayPlan(text) {
  const { entries, errors } = parseLog(text);
  const t0 = entries.reduce((m, e) => Math.min(m, e.timestampMs), Infinity);
  const out = [JSON.stringify({ plan: 'replay', queries: entries.length, errors })];
  for (const e of entries) {
    const req = searchRequestOf(e);
    out.push(JSON.stringify({ line: e.line, at_ms: e.timestampMs - t0, type: e.type, tenant: e.storeId, index: req.index, body: req.body, aggs: !!(e.query.aggs || e.query.aggregations) }));
  }
  return `${out.join('\n')}\n`;
}
