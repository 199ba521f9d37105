// Tags and checks shared by every scenario.
//
// Every request is tagged tenant, index_group (never `group`: a built-in k6 tag) and query_type,
// and store_set when the tenant has one (TENANTS_FILE of an experiment);
// k6 adds `scenario` itself. The `name` tag is the query type, so the URL (one per tenant alias)
// does not multiply the series Prometheus receives (run.sh also drops the `url` system tag).
import { check } from 'k6';
import { Counter } from 'k6/metrics';

export const leaks = new Counter('cross_tenant_hits');

export function tags(tenant, queryType) {
  const t = { tenant: tenant.id, index_group: tenant.group || 'none', query_type: queryType, name: queryType };
  // the experiment runner's store halves (odd / even store numbers): figures per half
  if (tenant.set) t.store_set = tenant.set;
  return t;
}

function parse(res) {
  try {
    return res.status === 200 ? res.json() : null;
  } catch (_) {
    return null;
  }
}

/** The tenant a hit belongs to: its store_id, else the "<tenant>:" prefix of its _id. */
export function hitTenant(hit) {
  const s = hit._source && hit._source.store_id;
  if (s !== undefined && s !== null) return String(s);
  const i = String(hit._id).indexOf(':');
  return i > 0 ? String(hit._id).slice(0, i) : null;
}

/**
 * Checks a _search response for TENANT (an id): status 200, and every hit belongs to the tenant
 * asked for (a cross-tenant leak is a failed check). Options: aggs (facets must be present),
 * expectHits (at least this many hits). Returns the parsed body (or null).
 */
export function checkSearch(res, tenantId, { aggs = false, expectHits = 0 } = {}, checkTags = undefined) {
  const body = parse(res);
  const hits = (body && body.hits && body.hits.hits) || [];
  const foreign = hits.filter((h) => hitTenant(h) !== tenantId);
  if (foreign.length) leaks.add(foreign.length, checkTags);
  const assertions = {
    'status 200': (r) => r.status === 200,
    'no cross-tenant hit': () => body !== null && foreign.length === 0,
  };
  if (aggs) assertions['facets present'] = () => !!(body && body.aggregations && Object.keys(body.aggregations).length);
  if (expectHits) assertions['product found'] = () => hits.length >= expectHits;
  check(res, assertions, checkTags);
  return body;
}

/** Checks a _bulk response: status 200 and every item stored or superseded (409: newer kept). */
export function checkBulk(res, expectedItems, checkTags = undefined) {
  const body = parse(res);
  const items = (body && body.items) || [];
  const bad = items.filter((it) => { const s = (it.index || it.create || it.delete || {}).status; return s !== 200 && s !== 201 && s !== 409; });
  check(res, {
    'status 200': (r) => r.status === 200,
    'bulk items stored': () => body !== null && items.length === expectedItems && bad.length === 0,
  }, checkTags);
  return { body, bad };
}
