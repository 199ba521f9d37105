// Phase 3 of a run: the measured windows in the plan's order, interleaved (ABCABC, so a drift of
// the machine over the run touches every variant alike), each one repetition: one run of the load
// engine (Locust) plus Elasticsearch's own figures for its window (measure-search.js,
// measure-ingest.js, measure-many-shards.js). Before a lab's first window come its variants'
// layouts (layouts.js) and, each time its JVMs are new, a warm-up pass (JIT, caches, page cache:
// without it the first round was several times slower than the next). A failed repetition is
// recorded with its reason and the run goes on; an interrupt stops it.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { esReason } from '@tenantlab/contract/errors';
import { RunError } from '../errors.js';
import { buildLayout } from './layouts.js';
import { measureIngest, warmUpIngest } from './measure-ingest.js';
import { measureManyShards, warmUpManyShards } from './measure-many-shards.js';
import { measureSearch, warmUpSearch } from './measure-search.js';

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
    const rep = { round, started_at: new Date().toISOString(), complete: false, figures: null, timeline: [] };
    run.byName.get(vname).repetitions.push(rep);
    if (!data.writes) {
      // a search repetition records its own failure: its closed loop is put back even then
      await measureSearch(run, variant, i, repDir, rep);
      continue;
    }
    try {
      await (data.manyShards ? measureManyShards : measureIngest)(run, variant, round, repDir, rep);
    } catch (err) {
      if (err instanceof RunError && err.exitCode === 130) throw err;
      rep.incomplete_reason = err instanceof RunError ? err.message : esReason(err);
      log(`  repetition failed: ${rep.incomplete_reason}`);
    }
  }
  const { results } = run;
  results.complete = results.variants.every((v) => v.repetitions.length === plan.repetitions && v.repetitions.every((r) => r.complete));
  if (!results.complete) results.incomplete_reason = 'a repetition failed (see its incomplete_reason)';
}

/** The lab up now made ready: its variants' layouts built where they are not, and warmed up when its JVMs are new. */
async function prepareLab(run, vname, { restarted, fresh }) {
  const { plan, lab, data, layouts } = run;
  if (fresh) layouts.built.clear();
  for (const v of lab.sameLab(vname)) if (!layouts.built.has(v.name)) await buildLayout(run, v);
  run.write();
  // QUICK (a smoke run of small data) warms the JVMs with its first variant only, and the
  // write workloads not at all (their QUICK windows are seconds: nothing to compare)
  const warm = plan.quick ? (data.writes ? [] : lab.sameLab(vname).slice(0, 1)) : lab.sameLab(vname);
  if (restarted) for (const v of warm) await warmUp(run, v);
}

/** One pass of the variant's workload that is not measured; its folder is deleted after. */
async function warmUp(run, v) {
  const { plan, data } = run;
  run.check();
  run.log(data.manyShards ? `warm-up pass: ${v.name} (${Math.min(20, v.settings.indices)} indices made and deleted, not measured)` : `warm-up pass: ${v.name} (${plan.workload.ramp_up} + ${plan.workload.warmup}, not measured)`);
  const warmDir = join(run.dir, 'repetitions', `00-warmup-${v.name}`);
  mkdirSync(warmDir, { recursive: true });
  if (data.manyShards) return warmUpManyShards(run, v, warmDir);
  if (data.writes) return warmUpIngest(run, v, warmDir);
  return warmUpSearch(run, v, warmDir);
}
