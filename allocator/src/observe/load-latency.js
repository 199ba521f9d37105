// The shoppers' side of a group's health: the load's p95 per index group while a run is scraped
// by Prometheus (make load, make demo: the Locust engine, traffic/, serves the histogram
// tenantlab_load_request_duration_seconds, labelled index_group, and Prometheus scrapes it every
// 5 s as job `load`). While a run lasts, a group is judged on it (objective.js): it is what the
// shoppers feel; the probe stands in when there is no run. Prometheus is optional: when it does not answer, or no run was scraped in the last 30 s,
// there is no figure (null).
//
// Which requests: the neighbours', since what a group's shoppers feel is the point (a noisy
// tenant's own slow pages say nothing about the harm it does, and would hide it: a crawler's many
// requests would make the p95 its own). Left out: scenario `bot` (make load-bot, the crawler) and
// `burst` (an experiment's noisy burst); `writes` and `resubmit` (bulk indexing: another request,
// another latency, mixed in it would move the p95 with the write rate); index_group `none`
// (requests to no tenant). Every outcome counts: a failed search is felt too. The same selection
// as the recording rule index_group:tenantlab_load_request_duration_seconds:p95_1m
// (prometheus/rules/tenantlab-recording.yml), over the observation window (observe.windowS, at
// least 15 s: three of Prometheus' 5 s scrapes) instead of 1 m, so that the shoppers' p95 and the
// tenants' shares are of the same seconds. It was a fixed 30 s: with the demo's 15 s window, a
// burst whose neighbours' p95 was 79-116 ms over the last 3 s was judged at 36-47 ms, under its
// relative limit, for the burst's first 15 s.
//
// The histogram's p95 is interpolated inside its bucket (buckets .0025 ... 30 s): exact enough to
// compare groups and to see a burst, not to the millisecond. A group with no such request in the
// window is NaN, and a p95 past the last bucket +Inf: both are no figure.

/** How far back the shoppers' p95 reaches for an observation window of `windowS` seconds. */
export const loadRangeS = (windowS) => Math.max(15, Math.round(windowS));

/** Shoppers' p95 per group over the last `rangeS` seconds of the load's histogram (seconds). */
export const loadP95Query = (rangeS) =>
  `histogram_quantile(0.95, sum by (index_group, le) (rate(tenantlab_load_request_duration_seconds_bucket{index_group!="none", scenario!~"bot|burst|writes|resubmit"}[${rangeS}s])))`;

/** Map group -> load p95 in ms; empty when there is no Prometheus URL, no answer or no run. */
export async function loadP95ByGroup(prometheusUrl, { rangeS = 30, timeoutMs = 2000 } = {}) {
  if (!prometheusUrl) return new Map();
  try {
    const res = await fetch(`${prometheusUrl.replace(/\/+$/, '')}/api/v1/query?query=${encodeURIComponent(loadP95Query(rangeS))}`, { signal: AbortSignal.timeout(timeoutMs) });
    if (!res.ok) return new Map();
    return parseLoadP95(await res.json());
  } catch {
    return new Map();
  }
}

/** Prometheus' instant-query answer -> Map group -> ms (one decimal); NaN and +Inf left out. */
export function parseLoadP95(body) {
  const out = new Map();
  for (const r of body?.data?.result ?? []) {
    const group = r.metric?.index_group;
    const seconds = Number(r.value?.[1]);
    if (group && group !== 'none' && Number.isFinite(seconds)) out.set(group, Math.round(seconds * 10000) / 10);
  }
  return out;
}
