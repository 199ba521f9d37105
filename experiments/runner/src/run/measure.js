// Phase 3 of a run: the measured windows round by round, every variant once per round in the
// order the plan drew for that round (spec.js measuredOrder: seeded, counterbalanced, never a
// curve's own order, so neither a drift of the machine nor a warm-up lands on one variant or
// passes for a trend), each one repetition: one run of the load engine (Locust) plus
// Elasticsearch's own figures for its window (measure-search.js, measure-ingest.js,
// measure-many-shards.js). Before a lab's first window come its variants' layouts (layouts.js)
// and, each time its JVMs are new, a cold round: a full unmeasured window of every variant (JIT,
// caches, page cache: after a shorter warm-up the first measured round was still 40-55% off; a
// lab restarted on the same data between rounds: a full window of the variant measured next,
// ramp-up and warm-up of the others). A failed repetition is recorded with its reason and the
// run goes on; an interrupt stops it.
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { esReason } from '@tenantlab/contract/errors';
import { RunError } from '../errors.js';
import { fmtWithUnit } from '../format.js';
import { needsCalibration } from '../spec.js';
import { calibrateRates, calibrationOf, closingSaturation, saturatingWorkload } from './calibrate.js';
import { forgetBaselines } from './isolation.js';
import { buildLayout } from './layouts.js';
import { measureIngest, warmUpIngest } from './measure-ingest.js';
import { measureManyShards, warmUpManyShards } from './measure-many-shards.js';
import { measureSearch, warmUpSearch } from './measure-search.js';
import { settleOf, settleSearch } from './settle.js';

/** The windows (see the header); each repetition goes into results.json as it starts. */
export async function measureWindows(run) {
  const { plan, lab, data, log } = run;
  await prepareLab(run, plan.order[0], { restarted: true, fresh: true });
  run.results.plan.warmup_pass = true;
  const rounds = new Map();
  for (let i = 0; i < plan.order.length; i++) {
    run.check();
    const vname = plan.order[i];
    const switched = await lab.switchTo(vname);
    if (switched) await prepareLab(run, vname, switched);
    const variant = plan.variants.find((v) => v.name === vname);
    const round = (rounds.get(vname) ?? 0) + 1;
    rounds.set(vname, round);
    const repDir = join(run.dir, 'repetitions', `${String(i + 1).padStart(2, '0')}-${vname}-r${round}`);
    mkdirSync(repDir, { recursive: true });
    const phases = data.manyShards
      ? `making ${variant.settings.indices} indices (${plan.workload.measure} at most)`
      : `ramp-up ${plan.workload.ramp_up}, warm-up ${plan.workload.warmup}, measuring ${plan.workload.measure}`;
    log(`[${i + 1}/${plan.order.length}] ${vname}, repetition ${round}: ${phases}`);
    // where the window sat in the run: its round and its place in that round's order
    const at = roundOf(plan, i);
    const rep = { round, measured_round: at.round, position: at.position, started_at: new Date().toISOString(), complete: false, figures: null, timeline: [] };
    run.byName.get(vname).repetitions.push(rep);
    if (!data.writes) {
      // a search repetition records its own failure: its closed loop is put back even then
      await measureSearch(run, variant, i, repDir, rep);
      continue;
    }
    const measureOnce = () => (data.manyShards ? measureManyShards : measureIngest)(run, variant, round, repDir, rep);
    await measureWriteRepetition(rep, measureOnce, { workload: plan.workload, repDir, log, check: () => run.check() });
  }
  const { results } = run;
  // a full run measures the lab's saturation again at its end, when the calibration's stores are in
  // the lab up now (calibrate.js closingSaturation): the report says how far the lab moved
  const cal = results.calibration;
  const calibrated = cal && !plan.quick ? lab.sameLab(plan.order.at(-1)).find((v) => v.name === cal.variant) : null;
  if (calibrated) {
    const closing = await closingSaturation(run, calibrated, join(run.dir, 'repetitions', `99-calibrate-${cal.variant}`), cal);
    if (closing) cal.closing = closing;
    run.write();
  }
  for (const v of results.variants) for (const rep of v.repetitions) markUnfit(rep, plan.workload);
  results.complete = results.variants.every((v) => v.repetitions.length === plan.repetitions && v.repetitions.every((r) => r.complete));
  if (results.complete) delete results.incomplete_reason;
  else results.incomplete_reason = 'a repetition failed or was incomplete (see its incomplete_reason)';
}

/**
 * One write repetition (ingest, many-shards) through measureOnce, which fills rep in or throws: a
 * failure is recorded in rep and the run goes on; an interrupt (exit 130) stops it. A window in
 * which the load engine measured nothing (every bulk started before it or after it: the host
 * stalled across a QUICK window of seconds) is no measurement of the variant: it is run once
 * more, in a clean folder on a new index, and rep.retried says why; a second empty window stays
 * unfit (markUnfit).
 */
export async function measureWriteRepetition(rep, measureOnce, { workload, repDir, log, check }) {
  for (let attempt = 1; attempt <= 2; attempt++) {
    try {
      await measureOnce();
    } catch (err) {
      if (err instanceof RunError && err.exitCode === 130) throw err;
      rep.incomplete_reason = err instanceof RunError ? err.message : esReason(err);
      log(`  repetition failed: ${rep.incomplete_reason}`);
    }
    if (attempt === 2 || !emptyWindow(rep)) return;
    rep.retried = emptyReason(rep.figures, workload);
    log(`  ${rep.retried}: the repetition once more`);
    rmSync(repDir, { recursive: true, force: true });
    mkdirSync(repDir, { recursive: true });
    Object.assign(rep, { started_at: new Date().toISOString(), complete: false, figures: null, timeline: [] });
    delete rep.integrity;
    check();
  }
}

/** The i-th window of the plan's order -> { round, position } (both from 1). */
function roundOf(plan, i) {
  let left = i;
  const rounds = plan.rounds ?? [plan.order];
  for (let r = 0; r < rounds.length; r++) {
    if (left < rounds[r].length) return { round: r + 1, position: left + 1 };
    left -= rounds[r].length;
  }
  return { round: null, position: null };
}

/**
 * A repetition whose errors or late arrivals pass the spec's limits (workload.max_error_rate,
 * workload.max_late_rate) is incomplete: its figures stay, the verdict does not use them, the
 * reason gives the exact counts and `unfit` names the limits passed ('errors', 'late_arrivals').
 * So is one whose window holds no request at all ('empty_window'): a rate of 0 there is no figure.
 */
export function markUnfit(rep, workload) {
  const f = rep.figures;
  if (!rep.complete || !f) return;
  const sent = f.requests ?? 0;
  const reasons = [];
  const unfit = [];
  if (emptyWindow(rep)) {
    unfit.push('empty_window');
    reasons.push(emptyReason(f, workload));
  }
  const errors = f.ingest ? (f.ingest.docs_failed ?? 0) + (f.ingest.docs_rejected ?? 0) : f.errors ?? 0;
  const errorBase = f.ingest ? (f.ingest.docs_sent ?? (f.ingest.docs_indexed ?? 0) + errors) : sent;
  const maxErr = workload.max_error_rate ?? 0.01;
  if (errorBase > 0 && errors / errorBase > maxErr) {
    unfit.push('errors');
    reasons.push(`${errors} of ${errorBase} ${f.ingest ? 'documents' : 'requests'} failed (${fmtShare(errors / errorBase)}), above max_error_rate ${fmtShare(maxErr)}`);
  }
  const late = f.late_arrivals ?? 0;
  const maxLate = workload.max_late_rate ?? 0.05;
  if (sent > 0 && late / sent > maxLate) {
    unfit.push('late_arrivals');
    reasons.push(`${late} of ${sent} arrivals started late (${fmtShare(late / sent)}), above max_late_rate ${fmtShare(maxLate)}`);
  }
  if (reasons.length) {
    rep.complete = false;
    rep.incomplete_reason = reasons.join('; ');
    // which limits, for a reader that must tell a generator that fell behind from failed requests
    rep.unfit = unfit;
  }
}

const fmtShare = (x) => fmtWithUnit(x, 'ratio');

/** A repetition that ran to its end but whose window holds no request: nothing of it is a figure. */
export const emptyWindow = (rep) => rep.complete && rep.figures?.requests === 0;

const emptyReason = (f, workload) =>
  `no ${f.ingest ? 'bulk' : 'request'} started in the ${workload.measure ?? 'measured'} window (the load engine measured none: the host stalled?)`;

/** The lab up now made ready: its variants' layouts built where they are not, and warmed up when its JVMs are new. */
async function prepareLab(run, vname, { restarted, fresh }) {
  const { plan, lab, data, layouts } = run;
  if (fresh) layouts.built.clear();
  for (const v of lab.sameLab(vname)) if (!layouts.built.has(v.name)) await buildLayout(run, v);
  run.write();
  // QUICK (a smoke run of small data) warms the JVMs with its first variant only, and the
  // write workloads not at all (their QUICK windows are seconds: nothing to compare)
  const warm = plan.quick ? (data.writes ? [] : lab.sameLab(vname).slice(0, 1)) : lab.sameLab(vname);
  if (!restarted) return;
  // rates given as shares of the lab's saturation (calibrate.js) are measured on the first lab,
  // warm: its cold round runs saturated (no rate yet), the calibration's windows right after
  const uncalibrated = fresh && !run.results.calibration && needsCalibration(plan);
  const coldWorkload = uncalibrated ? saturatingWorkload(plan.workload, calibrationOf(plan).vus) : null;
  // A lab started on new data: a full window of every variant (the cold round). A lab restarted
  // on the same data between rounds (its page cache survives the JVMs): a full window of the
  // variant measured next, ramp-up and warm-up of the others
  for (const v of warm) await warmUp(run, v, { full: !plan.quick && (fresh || v.name === vname), workload: coldWorkload });
  if (uncalibrated) {
    const first = lab.sameLab(vname)[0];
    run.results.calibration = await calibrateRates(run, first, join(run.dir, 'repetitions', `00-calibrate-${first.name}`));
    run.write();
  }
  // a lab whose JVMs are new can stay slow for minutes after its cold round (settle.js)
  if (fresh && !data.writes && !data.manyShards) {
    const first = plan.variants.find((v) => v.name === vname);
    run.results.settle = await settleSearch(run, first, join(run.dir, 'repetitions', `00-settle-${vname}`), settleOf(plan, { narrate: run.narrate }));
    run.write();
  }
  // the saturated windows (the cold round's, the calibration's) are no group's normal: the
  // allocators of the variants they ran on learn it again from the planned load, in their first
  // repetition's ramp-up, warm-up and the stretch before its burst (isolation.js forgetBaselines)
  if (uncalibrated) await forgetBaselines(run, [...new Set([...warm, lab.sameLab(vname)[0]])]);
}

/** One pass of the variant's workload that is not measured (`full`: a whole window); its folder is deleted after. */
async function warmUp(run, v, { full, workload = null }) {
  const { plan, data } = run;
  run.check();
  const n = full ? v.settings.indices : Math.min(20, v.settings.indices);
  const window = full ? `${plan.workload.ramp_up} + ${plan.workload.warmup} + ${plan.workload.measure}` : `${plan.workload.ramp_up} + ${plan.workload.warmup}`;
  run.log(data.manyShards ? `cold round: ${v.name} (${n} indices made and deleted, not measured)` : `cold round: ${v.name} (${window}, not measured${workload ? `, ${workload.vus} shoppers with no think time: no rate before the calibration` : ''})`);
  const warmDir = join(run.dir, 'repetitions', `00-warmup-${v.name}`);
  mkdirSync(warmDir, { recursive: true });
  if (data.manyShards) return warmUpManyShards(run, v, warmDir, { full });
  if (data.writes) return warmUpIngest(run, v, warmDir, { full });
  return warmUpSearch(run, v, warmDir, { full, workload });
}
