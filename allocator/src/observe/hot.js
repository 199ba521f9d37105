// Hot-tenant detection: a tenant is hot when its group misses its latency objective (objective.js:
// the p95 the group's shoppers feel, above the absolute objective or above its relative limit
// over the group's own baseline) while the tenant takes at least the policy's `hot.share` of the
// group's search time (a crawler, a bot: kind `search`) or of its indexing time (whole-catalogue
// re-submissions: kind `write`), over a window with enough searches to judge (policy.observe).
// The culprit is what changed: the tenant's share must also have risen above its own normal share
// of the group (share-normal.js) by hot.shareRise and by hot.shareRiseSd of its normal's standard
// deviations, whichever is more (a share that varies a lot in steady traffic needs a larger rise). A group slower than its own normal, or slower
// than its objective on a cold lab, is not its steady biggest store's doing; a bot's or a
// re-submission's share jumps. So nothing in a group is flagged before its normal shares are
// learned (half a window of its shoppers' searches, nothing flagged): `normalShare` returns null
// then. Measured without that wait: make demo on a freshly started lab, every group past its
// absolute objective from the first window, flagged and moved a big steady store (30.4%) before
// the bot came, and the cool-down then kept the bot's store where it was.
// A tenant alone in its group has no neighbour to hurt and is never flagged. Pure; `since` (when
// each tenant was first seen hot, continuously) is kept by the caller and passed back in, and
// `normalShare(tenant, group, kind)` -> { share, under, sd } | null (by default nothing is known of
// any tenant: every share is a rise).
import { objectiveLine } from './objective.js';

// the normal of a tenant when the caller keeps none: every share is a rise
const NOTHING_KNOWN = Object.freeze({ share: 0, under: true, sd: 0 });

/** The rise above its normal a tenant's share needs to make it the culprit. */
export const riseNeeded = (normal, hot) => Math.max(hot.shareRise ?? 0, (hot.shareRiseSd ?? 0) * (normal?.sd ?? 0));

/**
 * Whether tenant `t` (a tenant of observedCost()) has the share of a culprit, its group slow or
 * not: at least hot.share of its group's search or indexing time, risen above its own normal by
 * riseNeeded. Of the two kinds that qualify, the larger share decides what kind of neighbour it
 * is. Returns { kind, share, normal } or null (null too while its normal is not learned).
 */
export function shareCandidate(t, hot, normalShare = () => NOTHING_KNOWN) {
  const culprit = (kind) => {
    const share = kind === 'search' ? t.share_of_group : t.write_share_of_group;
    if (!(share >= hot.share)) return null;
    const normal = normalShare(t.tenant, t.group, kind);
    if (!normal || share - normal.share < riseNeeded(normal, hot) - 1e-9) return null;
    return { kind, share, normal };
  };
  return [culprit('search'), culprit('write')].filter(Boolean).sort((a, b) => b.share - a.share)[0] ?? null;
}

/**
 * The groups in which some tenant is a share candidate (shareCandidate), whether or not the group
 * misses its objective yet: group -> the candidate's tenant id. These groups' baselines wait
 * (learning.js): a bot's first seconds, before its group's p95 crosses the limit, would otherwise
 * raise the limit it has to cross.
 */
export function risingShares(cost, hot, normalShare) {
  const rising = new Map();
  for (const t of cost.tenants.values()) {
    if (rising.has(t.group)) continue;
    if (shareCandidate(t, hot, normalShare)) rising.set(t.group, t.tenant);
  }
  return rising;
}

/**
 * cost: observedCost()'s result; hot: policy.hot; since: Map tenant -> ISO time first flagged.
 * Returns the flagged tenants, hottest share first, each with its evidence.
 */
export function detectHot(cost, hot, { since = new Map(), now = new Date().toISOString(), normalShare = () => NOTHING_KNOWN } = {}) {
  const flagged = [];
  for (const t of cost.tenants.values()) {
    const g = cost.groups.get(t.group);
    if (!g || !g.enough || g.tenants < 2 || !g.missed) continue;
    const found = shareCandidate(t, hot, normalShare);
    if (!found) continue;
    const { kind, share, normal } = found;
    const spread = normal.sd > 0 ? ` (sd ${pct(normal.sd)})` : '';
    const usual = normal === NOTHING_KNOWN ? '' : `, normally ${normal.under ? 'under ' : ''}${pct(normal.share)}${spread}`;
    const uses = kind === 'search'
      ? `${pct(share)} of ${t.group}'s search time (${t.search_ms_per_s} of ${g.search_ms_per_s} ms/s${usual})`
      : `${pct(share)} of ${t.group}'s indexing time (${t.write_ms_per_s} of ${g.index_ms_per_s} ms/s, ${t.write_rate} products/s re-written${usual})`;
    flagged.push({
      tenant: t.tenant,
      group: t.group,
      index: t.index,
      kind,
      share,
      share_of_group: t.share_of_group,
      write_share_of_group: t.write_share_of_group,
      share_threshold: hot.share,
      normal_share: normal === NOTHING_KNOWN ? null : normal.share,
      normal_share_under: normal === NOTHING_KNOWN ? null : normal.under,
      share_rise: hot.shareRise ?? 0,
      normal_share_sd: normal === NOTHING_KNOWN ? null : normal.sd ?? 0,
      share_rise_needed: Math.round(riseNeeded(normal, hot) * 1000) / 1000,
      search_ms_per_s: t.search_ms_per_s,
      search_rate: t.search_rate,
      write_ms_per_s: t.write_ms_per_s,
      group_search_ms_per_s: g.search_ms_per_s,
      group_index_ms_per_s: g.index_ms_per_s,
      crossed: g.missed,
      signal: g.signal,
      p95_ms: g.p95_ms,
      objective_ms: g.objective_ms,
      baseline_p95_ms: g.baseline_p95_ms,
      relative: g.relative,
      relative_limit_ms: g.relative_limit_ms,
      group_latency_ms: g.latency_ms,
      neighbours_latency_ms: t.neighbours_latency_ms,
      window_s: cost.window_s,
      span_s: cost.span_s,
      since: since.get(t.tenant) ?? now,
      why: `${t.tenant} uses ${uses}, threshold ${pct(hot.share)}, while ${objectiveLine(t.group, g)} (last ${cost.span_s} s)`,
    });
  }
  return flagged.sort((a, b) => b.share - a.share || (a.tenant < b.tenant ? -1 : 1));
}

export const pct = (x) => `${Math.round(x * 1000) / 10}%`;

/**
 * Where a hot tenant should go ("a lesser utilised index", in BigCommerce's words): the other
 * group with the lowest search time per node, when that is below its own group's. Returns
 * { group, expected: [{ group, busy_ms_per_s_per_node: { before, after } }] }, or null when no
 * group is less utilised. Busy = search plus indexing time (ms/s per node). The expected figures
 * say plainly when a move only shifts the cost (a crawled store makes its new group as busy as
 * its old one was).
 */
export function headroomTarget(cost, tenantId) {
  const t = cost.tenants.get(tenantId);
  const own = t && cost.groups.get(t.group);
  if (!own) return null;
  // busy = search and indexing time per node: a noisy writer's cost is its indexing
  const busy = (x) => (x.search_ms_per_s ?? 0) + (x.index_ms_per_s ?? x.write_ms_per_s ?? 0);
  const load = (g) => busy(g) / Math.max(1, g.nodes);
  let best = null;
  for (const g of cost.groups.values()) {
    if (g.group === t.group) continue;
    if (!best || load(g) < load(best) - 1e-9) best = g;
  }
  if (!best || load(best) >= load(own) - 1e-9) return null;
  const expected = [...cost.groups.values()].map((g) => {
    let after = busy(g);
    if (g.group === t.group) after -= busy(t);
    if (g.group === best.group) after += busy(t);
    return { group: g.group, busy_ms_per_s_per_node: { before: r1(load(g)), after: r1(Math.max(0, after) / Math.max(1, g.nodes)) } };
  });
  return { group: best.group, expected };
}

const r1 = (x) => Math.round(x * 10) / 10;
