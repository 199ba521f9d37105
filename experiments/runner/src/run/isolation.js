// The closed loop of a variant with `isolate` (the noisy-neighbour and noisy-writer experiments,
// `make demo`):
//   - its stores are placed by a real allocator (allocator/src/main.js, started here against the
//     experiment's cluster with the run's index prefix and a policy made of the variant's values:
//     observation window, probe pace, hot share, the absolute and relative latency objectives,
//     auto-isolation and its cool-down);
//   - during each measured window a watcher polls the allocator (GET /hot, GET /jobs) and keeps
//     when the burst store was first flagged, with the evidence, and the move's start and end;
//   - after the window, the burst store goes back to its group, so every repetition starts alike;
//   - the figures (isolationFigures) come from the load engine's own points (POINTS_FILE): the neighbours' p95 before the
//     burst, during it until the move ended, and after the move, and the loop's times.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AllocatorProcess } from 'tenantlab-allocator/process';
import { aliasFor } from '@tenantlab/contract/naming';
import { RunError } from '../errors.js';
import { flooredPercentile, nearestRank } from '@tenantlab/contract/percentile';

const LAB_POLICY = new URL('../../../../allocator/policy.json', import.meta.url);

// spec key (spec.js's parsed isolate) -> the allocator policy's key in observe or hot; a key the
// spec leaves out stays out, so the allocator's own default applies rather than one of ours
const OPTIONAL_POLICY = [
  ['probe_interval_ms', 'observe', 'probeIntervalMs'],
  ['relative', 'hot', 'relative'],
  ['min_rise_ms', 'hot', 'minRiseMs'],
  ['share_rise', 'hot', 'shareRise'],
  ['share_rise_sd', 'hot', 'shareRiseSd'],
  ['baseline_s', 'hot', 'baselineS'],
];

/** The allocator policy of an isolate variant: the lab's, with the variant's loop values. */
export function isolationPolicy(isolate, { auto = true } = {}) {
  const lab = JSON.parse(readFileSync(LAB_POLICY, 'utf8'));
  const policy = {
    ...lab,
    observe: { windowS: isolate.window_s, minQueries: 20 },
    hot: { share: isolate.share, objectiveMs: { default: isolate.objective_ms }, dedicated: false },
    auto: { enabled: auto, coolDownS: isolate.cool_down_s },
  };
  for (const [key, section, name] of OPTIONAL_POLICY) if (isolate[key] !== undefined) policy[section][name] = isolate[key];
  return policy;
}

/** Starts the variant's allocator; its log goes to DIR/allocator-<variant>.log when it stops. */
export async function startAllocator({ esUrl, prefix, isolate, dir, variant }) {
  const policyFile = join(dir, `allocator-policy-${variant}.json`);
  writeFileSync(policyFile, `${JSON.stringify(isolationPolicy(isolate, { auto: isolate.auto !== false }), null, 2)}\n`);
  let proc;
  try {
    proc = await AllocatorProcess.start({
      prefix,
      policyFile,
      logLevel: 'info',
      env: { ALLOCATOR_ES_URL: esUrl, ALLOCATOR_STATS_INTERVAL_MS: String(Math.round(isolate.interval_s * 1000)) },
      timeoutMs: 60000,
    });
  } catch (err) {
    throw new RunError(`variant ${variant}: its allocator did not start: ${err.message.split('\n').slice(0, 3).join(' | ')}`, 1);
  }
  return {
    url: proc.url,
    api: proc.api,
    async stop() {
      await proc.stop();
      writeFileSync(join(dir, `allocator-${variant}.log`), proc.output);
    },
  };
}

/**
 * Tells each closed-loop allocator of `variants` to forget the baselines its groups learned
 * (DELETE /groups/{group}/baseline): the cold round and the calibration ran saturated on their
 * stores, and their allocators learned that p95 as the groups' normal. Measured: make demo on a
 * lab just warmed, the isolated allocator's baseline 29.4 ms after the calibration against 8-12 ms
 * of steady traffic, its bot flagged 28 s after it began while the left-alone one, which had seen
 * none of it, flagged at 7 s. Called after the settling windows (the planned load): the shoppers'
 * p95 (load-latency.js: the last 15 s) then reaches back to planned load only.
 */
export async function forgetBaselines(run, variants) {
  const { layouts, log } = run;
  const said = [];
  for (const v of variants) {
    const alloc = layouts.allocators.get(v.name);
    if (!alloc) continue;
    for (const g of layouts.loopGroups.get(v.name) ?? []) {
      try {
        await alloc.api.call('DELETE', `/groups/${encodeURIComponent(g)}/baseline`);
      } catch (err) {
        throw new RunError(`variant ${v.name}: its allocator did not forget ${g}'s baseline after the calibration: ${err.message.split('\n')[0]}`, 1);
      }
    }
    said.push(v.name);
  }
  if (said.length) log(`the allocators of ${said.join(', ')} forget the baselines they learned during the saturated windows: learned again from the planned load`);
}

/**
 * Places the stores through the allocator: odd store numbers on `groups[0]`, even on
 * `groups[1]`, shared indices; the burst store on `targetGroup` when given (a control's: on the
 * other group from the start). Returns the layout's names as layout.js's layoutNames does, the
 * burst store marked `set: 'target'` (its own traffic is neither half's).
 */
export async function placeStores(api, { tenants, groups, target, targetGroup = null }) {
  const out = [];
  for (const t of tenants) {
    const set = (t.index + 1) % 2 === 1 ? 'odd' : 'even';
    const group = t.id === target && targetGroup ? targetGroup : set === 'odd' ? groups[0] : groups[1];
    const placed = await api.call('POST', '/tenants', { id: t.id, name: t.name, expected_products: t.expected_products, traffic_weight: t.traffic_weight, group, dedicated: false });
    out.push({ id: t.id, alias: aliasFor(t.id), index: placed.index, group, set: t.id === target ? 'target' : set, weight: t.traffic_weight, documents: t.expected_products });
  }
  return { indices: [...new Set(out.map((t) => t.index))].sort(), tenants: out };
}

/** The burst store: the biggest or the smallest odd store (spec burst.store, default biggest). */
export function burstTarget(tenants, store = 'biggest') {
  const odd = tenants.filter((t) => (t.index + 1) % 2 === 1).sort((a, b) => a.expected_products - b.expected_products || (a.id < b.id ? -1 : 1));
  return (store === 'smallest' ? odd[0] : odd.at(-1))?.id ?? null;
}

// What a sample keeps of each group of GET /hot: the p95 the allocator judged (from the
// shoppers' load or its probes: signal), both sources, the learned baseline and the relative
// limit, the absolute objective, and which objective it missed; with the group's load. A field
// an allocator does not give is null.
const GROUP_FIELDS = ['p95_ms', 'signal', 'probe_p95_ms', 'load_p95_ms', 'baseline_p95_ms', 'relative_limit_ms', 'objective_ms', 'meets_objective', 'missed', 'latency_ms', 'search_rate', 'queue', 'cpu_percent'];

/** (exported for the tests) One poll of GET /hot as a sample: each group's figures, each hot flag's tenant, kind and crossing. */
export function sampleOf(hot, at) {
  return {
    at,
    groups: (hot.groups ?? []).map((g) => ({ group: g.group, ...Object.fromEntries(GROUP_FIELDS.map((k) => [k, g[k] ?? null])) })),
    hot: (hot.hot ?? []).map((h) => ({ tenant: h.tenant, kind: h.kind ?? null, crossed: h.crossed ?? null })),
  };
}

/**
 * Polls the allocator every `intervalMs` from start() to stop(): when `target` was first
 * flagged (with the evidence: the hot entry whole, its kind search or write, which objective
 * its group crossed, the p95 against baseline and limit, why), each group's latency and each
 * hot flag over time, and the first move of `target` that started after start() (its job:
 * created, started, finished, state). `onTick(state)` lets a narrator print along.
 */
export function watchIsolation(api, { target, intervalMs = 1000, onTick }) {
  const state = { started_at: Date.now(), flagged_at: null, evidence: null, move: null, samples: [] };
  let timer = null;
  let busy = false;
  const tick = async () => {
    if (busy) return;
    busy = true;
    try {
      const [hot, jobs] = await Promise.all([api.call('GET', '/hot'), api.call('GET', '/jobs')]);
      const now = Date.now();
      const flagged = hot.hot.find((h) => h.tenant === target);
      // when the allocator first saw it hot (its observation), not when this poll came by
      if (flagged && !state.flagged_at) Object.assign(state, { flagged_at: Date.parse(flagged.since) || now, evidence: flagged });
      const job = jobs.jobs
        .filter((j) => j.type === 'move' && j.tenant === target && Date.parse(j.created_at) >= state.started_at)
        .sort((a, b) => (a.created_at < b.created_at ? -1 : 1))[0];
      if (job) {
        state.move = {
          job: job.id, trigger: job.trigger, state: job.state, from: job.from, to: job.to, reason: job.reason ?? null,
          created_at: Date.parse(job.created_at), started_at: job.started_at ? Date.parse(job.started_at) : null,
          finished_at: job.finished_at ? Date.parse(job.finished_at) : null, documents_copied: job.documents_copied,
        };
      }
      state.samples.push(sampleOf(hot, now));
      onTick?.(state, hot);
    } catch {
      // a missed poll is a gap in the samples, not a failed repetition
    } finally {
      busy = false;
    }
  };
  timer = setInterval(tick, intervalMs);
  tick();
  return {
    state,
    async stop() {
      clearInterval(timer);
      while (busy) await new Promise((r) => setTimeout(r, 50));
      await tick();
      return state;
    },
  };
}

// A closed-loop repetition judges its burst against what the allocator learned of the groups'
// normal (their baseline p95 and the tenants' normal shares: allocator/src/observe/learning.js),
// which counts once its samples span one observation window (isolate.window). When the stretch
// before the burst is shorter than two such windows (QUICK's and make demo's: 2 + 2 s and a
// quarter of 45 s; a full run's 40 s or more is not) and a loop group has no baseline yet, the
// crawl starts before the allocator knows the group's normal: the baseline pauses while the bot's
// share rises, the shares learn the crawl as normal, and nothing is flagged. Measured: make demo
// QUICK=1 REPEAT=5, 2026-12-07: the left-alone variant's allocator (it flags, it does not move)
// had no baseline for g1 until 24 s into its first crawl, learned the crawl (baseline 41.9 ms,
// 15-18 ms before it) and flagged in none of its 5 repetitions, while its neighbours' p95 rose
// 3-10x. So such a repetition first runs unmeasured windows of the planned load, no burst
// (measure-search.js learnFirst), until every loop group has its baseline.

/** (exported for the tests) Whether a repetition's stretch before its burst is under two of the allocator's windows (workload: the plan's, durations in s). */
export function learnsTooLate(workload, variant) {
  if (!variant.isolate || !variant.burst) return false;
  const before = (workload.ramp_up_s ?? 0) + (workload.warmup_s ?? 0) + (variant.burst.from ?? 0) * workload.measure_s;
  return before < 2 * variant.isolate.window_s;
}

/** (exported for the tests) Those of `groups` that GET /hot (`hot`) gives no baseline p95 for. */
export function unlearned(hot, groups) {
  const by = new Map((hot?.groups ?? []).map((g) => [g.group, g]));
  return groups.filter((g) => !(by.get(g)?.baseline_p95_ms > 0));
}

/** Moves `target` back to `group` (after a repetition whose loop moved it) and waits. */
/**
 * Before a closed-loop repetition: waits until the allocator no longer holds the last one (the
 * burst store not flagged, no group missing its objective), so that a repetition never starts
 * with the last one's burst in the allocator's window (make demo's short windows: a repetition
 * right after another saw its store flagged before its own burst, and no move, since the last
 * crawl still made the other group look busy). At most `timeoutMs`; -> { waited_s, clear }.
 */
export async function awaitClear(api, target, { timeoutMs = 60000, intervalMs = 1000, signal } = {}) {
  const t0 = Date.now();
  for (;;) {
    const hot = await api.call('GET', '/hot');
    const clear = !hot.hot.some((h) => h.tenant === target) && hot.groups.every((g) => g.meets_objective !== false);
    const waited = Math.round((Date.now() - t0) / 1000);
    if (clear || Date.now() - t0 >= timeoutMs || signal?.aborted) return { waited_s: waited, clear };
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

export async function putBack(api, target, group) {
  let t = await api.call('GET', `/tenants/${target}`);
  // a move the loop started may still be running when the window ends: let it finish first
  if (t.state === 'moving' && t.job_id) {
    await api.waitJob(t.job_id, { timeoutMs: 300000 });
    t = await api.call('GET', `/tenants/${target}`);
  }
  if (t.group === group && t.state === 'active') return false;
  const job = await api.call('POST', `/tenants/${target}/move`, { group });
  const done = await api.waitJob(job.id, { timeoutMs: 300000 });
  if (done.state !== 'succeeded') throw new RunError(`putting ${target} back on ${group} failed: ${done.errors?.map((e) => e.message).join('; ')}`, 1);
  return true;
}

const p95 = (xs) => nearestRank(xs, 0.95);
// Elasticsearch's `took` is floored to the millisecond: its p95 is read as grouped data (since
// 2026-12-03; nearest rank before, which moved in whole steps of 10-20% of a 5-10 ms p95)
const tookP95 = (xs) => flooredPercentile(xs, 0.95);
const r2 = (v) => (v === null || !Number.isFinite(v) ? null : Math.round(v * 100) / 100);

/** Whether the burst added at least `minRise` x before to a p95 (else there is no rise to recover from). */
const roseBy = (before, during, minRise) => Boolean(before) && during !== null && during >= before * (1 + minRise);

/**
 * The share of what the burst added to a p95 that is gone after it: (during - after) / (during -
 * before); 1 = back to before, 0 = as slow as during the burst, below 0 = slower still. Null when
 * there is no after, or when the burst added less than `minRise` x before: no rise to recover from
 * (a control whose crawl never reached the group; divided by a rise of a few ms, a window's noise
 * would read as any share at all).
 * Why a share of the rise: a p95 of a few tens of ms moves 20-30% from one window to the next on a
 * 2-core lab, so a bound on after / before measures that noise; against a rise of hundreds of ms
 * the same noise is a few percent.
 */
export function recoveredShare(before, during, after, minRise = 0.15) {
  if (!roseBy(before, during, minRise) || after === null) return null;
  return Math.round(((during - after) / (during - before)) * 1000) / 1000;
}

/**
 * The loop's figures from the load engine's points ([epoch ms, duration ms, store set, took ms]) and the watcher:
 *   neighbours = the burst store's group (odd set, the store itself excluded), others = even;
 *   before = measure start .. burst start; during = burst start .. the move's end. Without
 *   auto-isolation (`auto` false: the baseline and the control) during is the burst's first two
 *   thirds and after its last third. With a move, after is that same last third, or from the
 *   move's end + settle when the move ended later: every variant's "after" is then the same
 *   stretch of the window, so a comparison between variants is not one between a stretch right
 *   after a burst and one 20 s later (the runs before 2026-11-28 took after from the move's end
 *   + settle, 10-20 s earlier than the controls' last third). With auto-isolation on and no
 *   move, after is null. recovered_s: the first second from the burst's start from which five
 *   consecutive 5-second windows of the neighbours have a p95 within `tolerance` of before;
 *   recovered_rise_s: the same within `tolerance` of the burst's rise (before + tolerance x
 *   (during - before)), the time the side's recovered_share reaches 1 - tolerance.
 *   neighbours_es / others_es: the same sides on Elasticsearch's `took` instead of the client's time,
 *   its p95 read as grouped data (took is whole milliseconds, floored: flooredPercentile).
 */
export function isolationFigures({ points, t0, burstFromMs, endMs, watch, settleMs, auto = true, tolerance = 0.15 }) {
  const moveEnd = watch?.move?.state === 'succeeded' ? watch.move.finished_at : null;
  const noMoveSplit = burstFromMs + ((endMs - burstFromMs) * 2) / 3;
  // with auto-isolation on and no move, there is no "after the move": those figures stay null
  // rather than stand in for a move that did not happen
  const spans = {
    before: [t0, burstFromMs],
    during: [burstFromMs, moveEnd ?? (auto ? endMs : noMoveSplit)],
    after: moveEnd !== null ? [Math.max(moveEnd + settleMs, noMoveSplit), endMs] : auto ? [endMs, endMs] : [noMoveSplit, endMs],
  };
  // col 1: the client's duration; col 3: Elasticsearch's `took` (null when the line has none)
  const of = (set, [a, b], col = 1) => points.filter((p) => p[2] === set && p[0] >= a && p[0] < b && p[col] != null).map((p) => p[col]);
  const side = (set, col = 1) => {
    const pick = col === 3 ? tookP95 : p95;
    const before = pick(of(set, spans.before, col));
    const during = pick(of(set, spans.during, col));
    const after = spans.after[1] > spans.after[0] ? pick(of(set, spans.after, col)) : null;
    return {
      before_p95_ms: r2(before), during_p95_ms: r2(during), after_p95_ms: r2(after),
      during_ratio: before && during !== null ? r2(during / before) : null,
      after_ratio: before && after !== null ? r2(after / before) : null,
      recovered_share: recoveredShare(before, during, after, tolerance),
    };
  };
  const neighbours = side('odd');
  // the first second from the burst's start from which five consecutive 5-second windows of the
  // neighbours have a p95 at or under the limit
  const backUnder = (limit) => {
    const ok = (s) => {
      const w = of('odd', [s, s + 5000]);
      return w.length > 0 && p95(w) <= limit;
    };
    for (let s = burstFromMs; s + 5000 * 5 <= endMs + 1; s += 1000) {
      if ([0, 1, 2, 3, 4].every((k) => ok(s + k * 5000))) return s;
    }
    return null;
  };
  const { before_p95_ms: b, during_p95_ms: d } = neighbours;
  const recovered = b ? backUnder(b * (1 + tolerance)) : null;
  // the same against what the burst added: back under before + tolerance x (during - before)
  const recoveredRise = roseBy(b, d, tolerance) ? backUnder(b + tolerance * (d - b)) : null;
  const secs = (ms) => (ms === null || ms === undefined ? null : r2((ms - burstFromMs) / 1000));
  return {
    neighbours,
    others: side('even'),
    // the same, on Elasticsearch's own `took`: what the cluster did to them, apart from the
    // load engine's queueing on a machine it shares with the lab
    neighbours_es: side('odd', 3),
    others_es: side('even', 3),
    isolation: {
      flag_s: secs(watch?.flagged_at ?? null),
      move_start_s: secs(watch?.move?.created_at ?? null),
      move_s: watch?.move?.finished_at && watch.move.created_at ? r2((watch.move.finished_at - watch.move.created_at) / 1000) : null,
      recovered_s: secs(recovered),
      recovered_rise_s: secs(recoveredRise),
      moved: moveEnd !== null,
    },
  };
}
