// The shoppers' side of a group's health: k6's p95 per index group while a load run streams its
// metrics to Prometheus (make load, make demo: requests are tagged index_group). Shown beside the
// probe search, not judged on: k6's trend gauges are cumulative since its run started, so they
// lag a burst, and they exist only while a run streams. Prometheus is optional: when it does not
// answer, or no run has written a sample in the last 30 s, there is no figure (null).

/** k6's worst scenario p95 per group over the last 30 s of samples (seconds, as k6 writes it). */
export const K6_P95_QUERY = 'max by (index_group) (max_over_time(k6_http_req_duration_p95{index_group!=""}[30s]))';

/** Map group -> k6 p95 in ms; empty when there is no Prometheus URL, no answer or no run. */
export async function k6P95ByGroup(prometheusUrl, { timeoutMs = 2000 } = {}) {
  if (!prometheusUrl) return new Map();
  try {
    const res = await fetch(`${prometheusUrl.replace(/\/+$/, '')}/api/v1/query?query=${encodeURIComponent(K6_P95_QUERY)}`, { signal: AbortSignal.timeout(timeoutMs) });
    if (!res.ok) return new Map();
    return parseK6P95(await res.json());
  } catch {
    return new Map();
  }
}

/** Prometheus' instant-query answer -> Map group -> ms (one decimal). */
export function parseK6P95(body) {
  const out = new Map();
  for (const r of body?.data?.result ?? []) {
    const group = r.metric?.index_group;
    const seconds = Number(r.value?.[1]);
    if (group && Number.isFinite(seconds)) out.set(group, Math.round(seconds * 10000) / 10);
  }
  return out;
}
