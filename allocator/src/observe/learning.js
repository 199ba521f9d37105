// What one observation teaches each group's normal: its baseline p95 (baseline.js) and its
// tenants' normal shares (share-normal.js). Pure; the observer calls it after judging and flagging.
//
// Both learn only while the group had shoppers to judge (enough searches, a signal) and none of
// its tenants is flagged or was within the hold: one observation window (its p95 still holds the
// burst after the store moved away), plus the range the shoppers' p95 reaches back
// (load-latency.js) when that is the signal. The baseline also waits while a tenant's share has
// risen like a culprit's (hot.js risingShares), flagged or not yet: a bot's first seconds, before
// its group's p95 crosses the limit, must not raise the limit. Measured without that wait: make
// demo REPEAT=5's fifth repetition learned 10.7 -> 13.1 ms in 16 s of a slow crawl, its limit
// 15.7 -> 18.1 ms, and the bot was flagged 34 s after it began. The shares go on learning, so a
// store that stays busier becomes normal in its share, stops being a candidate, and its group's
// latency then becomes the normal too (unit test: within the share's half window).
import { risingShares } from './hot.js';
import { loadRangeS } from './load-latency.js';

/**
 * cost: observedCost()'s result; hot, observe: the policy's; normalShare(tenant, group, kind);
 * flaggedAt: Map group -> ms of its latest flag; now: ms. Returns Map group -> { shares, baseline,
 * rising, why } (whether each learns; the tenant whose share pauses the baseline, or null; why the
 * baseline does not learn, one line for GET /groups and make hot, or null while it learns).
 */
export function whatLearns(cost, { hot, observe, normalShare, flaggedAt, now }) {
  const rising = risingShares(cost, hot, normalShare);
  const learns = new Map();
  for (const g of cost.groups.values()) {
    const holdMs = observe.windowS * 1000 + (g.signal === 'load' ? loadRangeS(observe.windowS) * 1000 : 0);
    const heldFor = (flaggedAt.get(g.group) ?? -Infinity) + holdMs - now;
    const shares = Boolean(g.enough && g.signal !== null && heldFor < 0);
    const tenant = rising.get(g.group) ?? null;
    const why = whyNotLearning(g, { heldFor, tenant, observe, spanS: cost.span_s ?? 0 });
    learns.set(g.group, { shares, baseline: shares && tenant === null, rising: tenant, why });
  }
  return learns;
}

/** Why a group's baseline does not learn from this observation, one line; null while it learns. */
function whyNotLearning(g, { heldFor, tenant, observe, spanS }) {
  if (g.signal === null) return "no signal to judge it by (no shoppers' p95, too few probes)";
  if (!g.enough && (g.tenant_queries ?? 0) < observe.minQueries) return `too few searches of its stores to judge it (${g.tenant_queries ?? 0} in the window, ${observe.minQueries} needed)`;
  if (!g.enough) return `watched for less than half a window (${spanS} of ${observe.windowS} s)`;
  if (heldFor >= 0) return `held ${Math.ceil(heldFor / 1000)} s more after a flag (one window${g.signal === 'load' ? " and the shoppers' p95's range" : ''})`;
  if (tenant !== null) return `paused while ${tenant}'s share has risen like a culprit's`;
  return null;
}
