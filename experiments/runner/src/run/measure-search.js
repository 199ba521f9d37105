// One repetition of the search workload (the storefront's traffic over the variant's stores):
// one run of the load engine, and Elasticsearch's node figures for its measured window. A
// closed-loop variant (`isolate`) also keeps what its allocator did meanwhile (isolation.js):
// when the burst store was flagged and moved, and its neighbours' latency before, during and
// after; then the burst store goes back to its group, so every repetition starts alike.
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { esReason } from '@tenantlab/contract/errors';
import { RunError } from '../errors.js';
import { queueSampler, snapshot, windowFigures } from './es-stats.js';
import { awaitClear, isolationFigures, learnsTooLate, putBack, unlearned, watchIsolation } from './isolation.js';
import { narrator } from './narrate.js';
import { locustfile, pointsFileOf, runLoad, warmWorkload } from './workload.js';

/** One unmeasured run of variant `v`'s search workload into `dir` (the caller deletes it) -> runLoad's result. */
export function unmeasuredSearch(run, v, dir, workload, tag) {
  const { lab, layouts } = run;
  return runLoad({ locust: run.locust, script: locustfile('experiment'), esUrl: lab.esUrl, workload,
    tenants: layouts.names.get(v.name).tenants, dir, runId: `${run.runId}-${tag}`, signal: run.signal, extraEnv: { ...run.metricsEnv, ...layouts.loopRoutes.get(v.name) },
    engineCpus: run.engineCpus?.get(v.name) });
}

/**
 * Unmeasured windows of variant `v`'s `workload` into `dir` (deleted after) until `steady(passes)`
 * or `maxPasses` of them: settling (settle.js), calibrating (calibrate.js) and learning
 * (learnFirst). Each window's figures become a pass (`passOf`, which may be async), told by
 * `say(pass, n, steady)` -> { passes, steady }.
 */
export async function windowsUntilSteady(run, v, dir, workload, tag, { maxPasses, passOf, steady, say }) {
  const out = { passes: [], steady: false };
  mkdirSync(dir, { recursive: true });
  try {
    while (out.passes.length < maxPasses && !out.steady) {
      run.check();
      const { figures } = await unmeasuredSearch(run, v, dir, workload, tag);
      // awaited: a pass may be what another part says after the window (learnFirst: the allocator)
      const pass = await passOf(figures);
      out.passes.push(pass);
      out.steady = steady(out.passes);
      run.log(say(pass, out.passes.length, out.steady));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return out;
}

/** The cold round's window of a variant: a full window as measured ones have them (QUICK: a one-second one), not kept. */
export async function warmUpSearch(run, v, warmDir, { full = !run.plan.quick, workload = null } = {}) {
  try {
    // `workload`: the plan's phases under another load (calibrate.js: saturated, before the rates are known)
    await unmeasuredSearch(run, v, warmDir, warmWorkload({ ...run.plan, workload: workload ?? run.plan.workload }, full), 'warmup');
  } finally {
    rmSync(warmDir, { recursive: true, force: true });
  }
}

/**
 * Repetition `rep` of `variant`, the i-th window of the run, into repDir. A failure is the
 * repetition's (incomplete, with its reason); an interrupt, or a burst store that cannot be put
 * back, stops the run.
 */
export async function measureSearch(run, variant, i, repDir, rep) {
  const { plan, lab, layouts, measured, log } = run;
  const { client } = lab;
  let before = null, sampler = null, cpu0 = null, watch = null;
  const alloc = layouts.allocators.get(variant.name);
  const names = layouts.names.get(variant.name);
  const loop = variant.isolate && alloc ? { target: names.target, home: names.home ?? layouts.loopGroups.get(variant.name)[0], groups: layouts.loopGroups.get(variant.name) } : null;
  try {
    if (loop) {
      const c = await awaitClear(alloc.api, loop.target, { timeoutMs: 60000, signal: run.signal });
      run.check();
      if (c.waited_s > 1 || !c.clear) log(`  ${c.clear ? `waited ${c.waited_s} s for` : `after ${c.waited_s} s, still not`} the allocator's window clear of the last repetition (${loop.target} not flagged, every group within its objective)`);
      // the burst store where the repetition says it is, whatever moved it since the last one
      if (await putBack(alloc.api, loop.target, loop.home)) log(`  ${loop.target} was not on ${loop.home}: moved back before the repetition`);
      run.check();
      await learnFirst(run, variant, alloc, loop);
    }
    const tell = run.narrate && loop ? narrator({ log, pointsFile: pointsFileOf(repDir), target: loop.target, groups: loop.groups, home: loop.home, burst: variant.burst, measureS: plan.workload.measure_s }) : null;
    const out = await runLoad({
      locust: run.locust, script: locustfile('experiment'), esUrl: lab.esUrl, workload: plan.workload, extraEnv: { ...run.metricsEnv, ...layouts.loopRoutes.get(variant.name) },
      tenants: layouts.names.get(variant.name).tenants, dir: repDir, runId: `${run.runId}-${i + 1}`, signal: run.signal, burst: variant.burst ?? null, engineCpus: run.engineCpus?.get(variant.name),
      onMeasureStart: () => {
        if (loop) watch = watchIsolation(alloc.api, { target: loop.target, intervalMs: Math.round(variant.isolate.interval_s * 1000), onTick: tell?.tick });
        tell?.start();
        cpu0 = process.cpuUsage();
        snapshot(client).then((s) => { before = s; }).catch(() => {});
        sampler = queueSampler(client);
      },
    });
    const queueMax = sampler ? await sampler.stop() : null;
    const after = await snapshot(client);
    const cpu = process.cpuUsage(cpu0 ?? undefined);
    measured.cpu += (cpu.user + cpu.system) / 1e6;
    measured.loadCpu += out.loadCpuSeconds ?? 0;
    measured.wall += out.measureWallMs / 1000;
    rep.figures = { ...out.figures, es: before ? windowFigures(before, after, queueMax) : null };
    if (watch) {
      const w = await watch.stop();
      watch = null;
      const burstFromMs = out.t0 + out.burstWindow.from_s * 1000;
      const loopFigures = isolationFigures({ points: out.points, t0: out.t0, burstFromMs, endMs: out.t0 + plan.workload.measure_s * 1000, watch: w, settleMs: variant.isolate.settle_s * 1000, auto: variant.isolate.auto });
      Object.assign(rep.figures, loopFigures);
      rep.isolation = isolationRecord(w, out.t0, loop.target, out.routes);
      tell?.end(loopFigures);
    }
    rep.timeline = out.timeline;
    if (Object.keys(out.timelineBySet).length) rep.timeline_by_set = out.timelineBySet;
    if (out.burstTenant) rep.burst = { tenant: out.burstTenant, ...out.burstWindow, ...(variant.burst?.kind ? { kind: variant.burst.kind } : {}), ...out.burstWrites, ...(out.burstStoppedAfterS !== null ? { stopped_after_s: out.burstStoppedAfterS } : {}) };
    if (out.burstStoppedAfterS !== null) log(`  the burst's engine was still sending ${out.burstStoppedAfterS} s after the shoppers' engine ended (arrivals it owed, load nobody measures): stopped`);
    rep.complete = out.crossTenantHits === 0;
    if (!rep.complete) rep.incomplete_reason = `${out.crossTenantHits} cross-tenant hits`;
    const f = rep.figures;
    log(`  ${f.requests} requests (${f.throughput_rps}/s), ${f.errors} errors, avg ${f.avg_ms} ms, p95 ${f.p95_ms} ms, p99 ${f.p99_ms} ms${f.late_arrivals ? `, ${f.late_arrivals} late arrivals` : ''}`);
  } catch (err) {
    if (sampler) await sampler.stop();
    if (watch) await watch.stop();
    if (err instanceof RunError && err.exitCode === 130) throw err;
    rep.incomplete_reason = err instanceof RunError ? err.message : esReason(err);
    log(`  repetition failed: ${rep.incomplete_reason}`);
  } finally {
    rmSync(pointsFileOf(repDir), { force: true });
  }
  // every repetition of a closed-loop variant starts with the burst store in its group
  if (loop) {
    run.check();
    // only once the allocator's window no longer holds the burst: put back while it still saw the
    // crawl, the store would be flagged in its old group again and auto-isolation (whose cool-down
    // an operator's move ends) would move it out once more before the next repetition. When
    // auto-isolation did not move it, first until its window has passed the crawl's end: not
    // flagged now is not enough (make demo, 2026-11-29: clear when the window ended, the store was
    // flagged and moved 10 s later, while the next variant measured, and the next isolated
    // repetition crawled it on the other group)
    if (variant.isolate.auto && !rep.isolation?.move) await sleep((variant.isolate.window_s + 2 * variant.isolate.interval_s) * 1000, null, { signal: run.signal }).catch(() => {}); // an interrupt: run.check() says it
    run.check();
    await awaitClear(alloc.api, loop.target, { timeoutMs: 60000, signal: run.signal });
    run.check();
    if (await putBack(alloc.api, loop.target, loop.home)) log(`  ${loop.target} moved back to ${loop.home} for the next repetition`);
  }
}

// At most this many learning windows before a closed-loop repetition (isolation.js learnsTooLate)
export const LEARN_PASSES = 3;

/**
 * Before a closed-loop repetition whose stretch before the burst is too short for its allocator
 * to learn the groups' normal in it (isolation.js learnsTooLate): while a loop group has no
 * baseline, unmeasured windows of the planned load, no burst, of two observation windows each,
 * at most LEARN_PASSES; their folder is deleted after. Said in the log, window by window.
 */
async function learnFirst(run, variant, alloc, loop) {
  if (!learnsTooLate(run.plan.workload, variant)) return;
  const missingNow = async () => unlearned(await alloc.api.call('GET', '/hot'), loop.groups);
  if (!(await missingNow()).length) return;
  const windowS = Math.ceil(2 * variant.isolate.window_s);
  const workload = { ...run.plan.workload, measure: `${windowS}s`, measure_s: windowS };
  const { passes } = await windowsUntilSteady(run, variant, join(run.dir, 'repetitions', `00-learn-${variant.name}`), workload, 'learn', {
    maxPasses: LEARN_PASSES,
    passOf: missingNow,
    steady: (ps) => ps.at(-1).length === 0,
    say: (missing, n) => `  learning: ${variant.name} window ${n} (${windowS} s of the planned load, no burst, not measured): ${missing.length ? `no baseline yet for ${missing.join(', ')}` : `every group has its baseline (${loop.groups.join(', ')})`}`,
  });
  const missing = passes.at(-1);
  if (missing.length) run.log(`  learning: still no baseline for ${missing.join(', ')} after ${LEARN_PASSES} windows: the repetition judges those groups by the absolute objective until they have one`);
}

/** What results.json keeps of the watcher: times in seconds from the measured window's start. */
function isolationRecord(w, t0, target, routes = []) {
  const rel = (ms) => (ms === null || ms === undefined ? null : Math.round((ms - t0) / 100) / 10);
  return {
    target,
    flagged_s: rel(w.flagged_at),
    evidence: w.evidence,
    move: w.move ? { ...w.move, created_at: undefined, started_at: undefined, finished_at: undefined, created_s: rel(w.move.created_at), started_s: rel(w.move.started_at), finished_s: rel(w.move.finished_at) } : null,
    samples: w.samples.map((x) => ({ t_s: rel(x.at), groups: x.groups, hot: x.hot })),
    // when the load engine sent a moved store's searches to its new group's nodes
    routes: routes.map((r) => ({ tenant: r.tenant, from: r.from, to: r.to, at_s: rel(r.at_ms) })),
  };
}
