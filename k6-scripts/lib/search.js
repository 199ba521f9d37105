// One search through a tenant's alias at the cluster's entry point, tagged and checked.
import http from 'k6/http';
import { ES_URL, ALIAS, ES_JSON_HEADERS } from './config.js';
import { tags, checkSearch } from './checks.js';
import { withStats } from './queries.js';

/**
 * search(tenant, body, queryType, checkOpts, extraTags): POST <alias>/_search with the tenant's
 * stats group; checks status, facets, hits and the cross-tenant rule. ALIAS= (a test knob)
 * sends the request to another alias while the checks still expect the tenant's own products.
 */
export function search(t, body, queryType, checkOpts = {}, extraTags = {}, extraHeaders = {}) {
  const alias = ALIAS || t.alias;
  const tg = { ...tags(t, queryType), ...extraTags };
  const res = http.post(`${t.esUrl || ES_URL}/${alias}/_search`, withStats(body, t.id), { headers: { ...ES_JSON_HEADERS, ...extraHeaders }, tags: tg, timeout: '30s' });
  return checkSearch(res, t.id, checkOpts, tg);
}
