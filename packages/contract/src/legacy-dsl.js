// Legacy query DSL (Elasticsearch 1.x / 2.x, as real platforms' query logs hold it) translated to
// the lab's Elasticsearch. One rule per legacy construct; each rewrite is counted by rule name so
// a replay can say what it changed, and what cannot be translated is refused with the reason
// (never sent half-translated). Pure: a query object in, a new object out; no Node API, so the
// replay preparation and the tests import the same file (the load engine replays the prepared log).
//
// Rules (RULES below, in the order they are tried on every object of the query):
//   filtered         {filtered: {query, filter}} -> {bool: {must: [query], filter: [filter]}}
//   legacy-flags     _cache, _cache_key on filters and bools dropped (Elasticsearch caches by itself)
//   and-or-not       {and: [..]} / {or: [..]} / {not: X} filters (also {filters: [..]} and
//                    {filter: X} forms) -> bool filter / should (minimum 1) / must_not
//   missing          {missing: {field}} -> {bool: {must_not: [{exists: {field}}]}}
//   min-should       bool's minimum_number_should_match -> minimum_should_match
//   match-type       {match: {f: {query, type: phrase|phrase_prefix}}} -> match_phrase / match_phrase_prefix
//   query-options    (simple_)query_string options removed since 5.x-7.x dropped:
//                    lowercase_expanded_terms, locale, auto_generate_phrase_queries, use_dis_max,
//                    split_on_whitespace, all_fields, escape (and disable_coord on bool)
//   sort-unmapped    sort ignore_unmapped -> unmapped_type (the field's type when known, else
//                    keyword); dropped on _score, which is always mapped
//   fields           a top-level fields list -> _source (the stored fields a 1.x search returned
//                    are the source fields here)
// Untranslatable (refused, with the reason): the removed `query` filter wrapper with a cache key,
// `indices`, `type`, `limit`, `has_parent` with `score_type`, `facets` (aggregations replaced them;
// their meaning is not the same), `script` in the 1.x string form with `lang: mvel`.
import { TranslateError } from './errors.js';

export { TranslateError };

const isObj = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const asList = (v) => (Array.isArray(v) ? v : v === undefined ? [] : [v]);
const REMOVED_QS_OPTIONS = ['lowercase_expanded_terms', 'locale', 'auto_generate_phrase_queries', 'use_dis_max', 'split_on_whitespace', 'all_fields', 'escape'];

/** Each rule: (node, ctx) -> a replacement node, or undefined when it does not apply. */
const RULES = {
  filtered(node) {
    if (!isObj(node.filtered) || Object.keys(node).length !== 1) return undefined;
    const { query, filter, strategy, ...rest } = node.filtered;
    if (Object.keys(rest).length) throw new TranslateError(`filtered has keys the rule does not know: ${Object.keys(rest).join(', ')}`);
    const bool = {};
    if (query !== undefined) bool.must = [query];
    if (filter !== undefined) bool.filter = asList(filter);
    if (!bool.must && !bool.filter) return { match_all: {} };
    return { bool };
  },
  'legacy-flags'(node) {
    const keys = Object.keys(node).filter((k) => k === '_cache' || k === '_cache_key');
    if (!keys.length) return undefined;
    const out = { ...node };
    for (const k of keys) delete out[k];
    // a filter whose only other key was the flag, e.g. {term: {..}, _cache: true}: keep the filter
    return out;
  },
  'and-or-not'(node) {
    if (Object.keys(node).length !== 1) return undefined;
    const [key] = Object.keys(node);
    if (key !== 'and' && key !== 'or' && key !== 'not') return undefined;
    const v = node[key];
    if (key === 'not') {
      const inner = isObj(v) && Object.keys(v).length === 1 && v.filter !== undefined ? v.filter : isObj(v) && v.query !== undefined && Object.keys(v).length === 1 ? v.query : v;
      return { bool: { must_not: asList(inner) } };
    }
    const list = Array.isArray(v) ? v : isObj(v) && Array.isArray(v.filters) ? v.filters : null;
    if (!list) throw new TranslateError(`${key} filter: want a list of filters (or {filters: [...]})`);
    return key === 'and' ? { bool: { filter: list } } : { bool: { should: list, minimum_should_match: 1 } };
  },
  missing(node) {
    if (!isObj(node.missing) || Object.keys(node).length !== 1) return undefined;
    const { field, existence, null_value: nullValue } = node.missing;
    if (typeof field !== 'string') throw new TranslateError('missing filter: want a field name');
    if (existence === false || nullValue === true) throw new TranslateError('missing with existence: false or null_value: true has no equivalent (null_value is a mapping setting now)');
    return { bool: { must_not: [{ exists: { field } }] } };
  },
  'min-should'(node) {
    if (!isObj(node.bool) || node.bool.minimum_number_should_match === undefined) return undefined;
    const { minimum_number_should_match: m, ...rest } = node.bool;
    return { ...node, bool: { ...rest, minimum_should_match: m } };
  },
  'match-type'(node) {
    if (!isObj(node.match) || Object.keys(node).length !== 1) return undefined;
    const [field, spec] = Object.entries(node.match)[0] ?? [];
    if (!isObj(spec) || spec.type === undefined) return undefined;
    const { type, ...rest } = spec;
    const to = { phrase: 'match_phrase', phrase_prefix: 'match_phrase_prefix', boolean: 'match' }[type];
    if (!to) throw new TranslateError(`match type '${type}' is not known`);
    return { [to]: { [field]: rest } };
  },
  'query-options'(node) {
    for (const key of ['query_string', 'simple_query_string']) {
      if (!isObj(node[key])) continue;
      const drop = Object.keys(node[key]).filter((k) => REMOVED_QS_OPTIONS.includes(k));
      if (!drop.length) continue;
      const inner = { ...node[key] };
      for (const k of drop) delete inner[k];
      return { ...node, [key]: inner };
    }
    if (isObj(node.bool) && node.bool.disable_coord !== undefined) {
      const { disable_coord: _, ...rest } = node.bool;
      return { ...node, bool: rest };
    }
    return undefined;
  },
};

const REFUSED = {
  facets: 'facets were replaced by aggregations, whose results are not the same: translate them by hand',
  indices: 'the indices query was removed (search the indices by name instead)',
  type: 'mapping types were removed: a type filter has no meaning',
  limit: 'the limit filter was removed (terminate_after on the search is the nearest)',
};

// Queries whose object is a map of field names: a field may be called type, missing or limit,
// so no rule looks inside them
const LEAF_QUERIES = new Set(['term', 'terms', 'match', 'match_phrase', 'match_phrase_prefix', 'range', 'prefix', 'wildcard', 'regexp', 'fuzzy', 'exists', 'ids', 'geo_distance', 'geo_bounding_box']);

/** Applies the rules to every object of `node`, bottom-up, counting rewrites in ctx.counts. */
function walk(node, ctx, path, parentKey = null) {
  if (Array.isArray(node)) return node.map((x, i) => walk(x, ctx, `${path}[${i}]`));
  if (!isObj(node)) return node;
  if (LEAF_QUERIES.has(parentKey)) {
    // a field map: only a legacy flag beside the fields (`{term: {f: 1, _cache: true}}`) goes
    const fields = { ...node };
    for (const k of ['_cache', '_cache_key']) if (k in fields) { delete fields[k]; ctx.counts['legacy-flags'] = (ctx.counts['legacy-flags'] ?? 0) + 1; }
    return fields;
  }
  let out = {};
  for (const [k, v] of Object.entries(node)) out[k] = walk(v, ctx, `${path}.${k}`, k);
  for (let changed = true, rounds = 0; changed && rounds < 10; rounds++) {
    changed = false;
    for (const [name, rule] of Object.entries(RULES)) {
      const next = rule(out, ctx);
      if (next === undefined) continue;
      ctx.counts[name] = (ctx.counts[name] ?? 0) + 1;
      // a rewrite may expose legacy constructs inside (a filtered's filter is an `and`...)
      out = isObj(next) ? Object.fromEntries(Object.entries(next).map(([k, v]) => [k, walk(v, ctx, `${path}.${k}`, k)])) : next;
      changed = true;
    }
  }
  for (const key of Object.keys(REFUSED)) {
    if (key in out && path !== '' && key !== 'type') throw new TranslateError(`${path}.${key}: ${REFUSED[key]}`);
  }
  if (isObj(out.type) && Object.keys(out).length === 1) throw new TranslateError(`${path}.type: ${REFUSED.type}`);
  return out;
}

/** A search body's sort, translated: ignore_unmapped -> unmapped_type, dropped on _score. */
function translateSort(sort, ctx) {
  const one = (s) => {
    if (!isObj(s)) return s;
    const [[field, spec]] = Object.entries(s);
    if (!isObj(spec) || spec.ignore_unmapped === undefined) return s;
    const { ignore_unmapped: ignore, ...rest } = spec;
    ctx.counts['sort-unmapped'] = (ctx.counts['sort-unmapped'] ?? 0) + 1;
    if (field === '_score' || !ignore) return { [field]: rest };
    return { [field]: { ...rest, unmapped_type: ctx.fieldType(field) ?? 'keyword' } };
  };
  return Array.isArray(sort) ? sort.map(one) : one(sort);
}

/**
 * translate(body, { fieldType }) -> { body, counts }: a legacy _search body in the lab's DSL and
 * how many times each rule rewrote it. `fieldType(field)` names a field's type in the lab's
 * mapping (for unmapped_type). Throws TranslateError (the reason, with the path) when a part of
 * the body cannot be translated.
 */
export function translate(body, { fieldType = () => null } = {}) {
  if (!isObj(body)) throw new TranslateError('the query is not a JSON object');
  const ctx = { counts: {}, fieldType };
  const out = {};
  for (const [k, v] of Object.entries(body)) {
    if (k === 'facets') throw new TranslateError(`facets: ${REFUSED.facets}`);
    if (k === 'query' || k === 'post_filter' || k === 'filter') out[k] = walk(v, ctx, k);
    else if (k === 'sort') out.sort = translateSort(v, ctx);
    else if (k === 'fields') {
      ctx.counts.fields = (ctx.counts.fields ?? 0) + 1;
      out._source = v;
    } else out[k] = v;
  }
  // 1.x's top-level `filter` is today's post_filter
  if (out.filter !== undefined) {
    out.post_filter = out.filter;
    delete out.filter;
    ctx.counts['top-filter'] = (ctx.counts['top-filter'] ?? 0) + 1;
  }
  return { body: out, counts: ctx.counts };
}

/** The rule names a summary counts, in order. */
export const RULE_NAMES = Object.freeze([...Object.keys(RULES), 'sort-unmapped', 'fields', 'top-filter']);

/**
 * The store a query is for, found anywhere a storefront puts it: a term (or a single-value terms)
 * on `field` inside query.bool.filter / must, nested bools, a legacy filtered.filter, and/or
 * filters, a constant_score's filter, or post_filter. -> the value as a string, or null.
 * Several different stores in one query: TranslateError (a cross-store query has no tenant).
 */
export function findStore(body, field = 'store_id') {
  const found = new Set();
  const visit = (node) => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (!isObj(node)) return;
    if (isObj(node.term) && node.term[field] !== undefined) {
      const v = node.term[field];
      found.add(String(isObj(v) ? v.value : v));
    }
    if (isObj(node.terms) && Array.isArray(node.terms[field]) && node.terms[field].length === 1) found.add(String(node.terms[field][0]));
    for (const [k, v] of Object.entries(node)) {
      // a store named under must_not / should is not the query's store
      if (k === 'must_not' || k === 'should' || k === 'not' || k === 'or') continue;
      visit(v);
    }
  };
  visit(body?.query);
  visit(body?.post_filter);
  visit(body?.filter);
  if (found.size > 1) throw new TranslateError(`the query names ${found.size} stores (${[...found].slice(0, 3).join(', ')}): a replayed search belongs to one store`);
  return found.size ? [...found][0] : null;
}

/**
 * The query with every term / single-value terms on `field` naming store `from` set to `to` (the
 * lab tenant's), on the lab's store field `toField`.
 */
export function replaceStore(body, from, to, field = 'store_id', toField = field) {
  const visit = (node) => {
    if (Array.isArray(node)) return node.map(visit);
    if (!isObj(node)) return node;
    const out = {};
    for (const [k, v] of Object.entries(node)) {
      const rename = (obj, value) => {
        const { [field]: _, ...rest } = obj;
        return { ...rest, [toField]: value };
      };
      if (k === 'term' && isObj(v) && v[field] !== undefined && String(isObj(v[field]) ? v[field].value : v[field]) === from) {
        out.term = rename(v, isObj(v[field]) ? { ...v[field], value: to } : to);
      } else if (k === 'terms' && isObj(v) && Array.isArray(v[field]) && v[field].length === 1 && String(v[field][0]) === from) {
        out.terms = rename(v, [to]);
      } else out[k] = visit(v);
    }
    return out;
  };
  return visit(body);
}
