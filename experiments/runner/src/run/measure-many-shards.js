// One repetition of the many-shards workload (many-shards.js): the clients make the variant's
// indices; the master's heap and GC and the cluster state's size before and after; every
// acknowledged document counted; then the indices deleted, timed (deleting is cluster-state work
// too).
import { rmSync } from 'node:fs';
import { clusterStateBytes, deleteIndices, manyShardsFiguresOf, manyShardsPrefix, masterJvm, masterSampler, requireAllCreated } from './many-shards.js';
import { locustfile, pointsFileOf, runLoad } from './workload.js';

// what traffic/many_shards.py reads: where to write, the index names, how many, the fixture
const manyShardsEnv = (run, v, prefix, count) => ({
  ES_URLS: run.layouts.ingestUrls.get(v.name).join(','), INDEX_PREFIX: prefix, INDICES: String(count), BODIES_FILE: run.layouts.bodies.file,
  CLIENTS: String(run.plan.workload.clients), DOCS_PER_INDEX: String(run.plan.workload.docs_per_index),
});

/** The cold round's window: the variant's indices made and deleted as a measured window makes them (QUICK: 20), so the master's code paths are warm; nothing is measured. */
export async function warmUpManyShards(run, v, warmDir, { full = !run.plan.quick } = {}) {
  const { plan, lab } = run;
  const prefix = manyShardsPrefix(run.runId, v.name, 0);
  try {
    await runLoad({ locust: run.locust, script: locustfile('many_shards'), esUrl: lab.esUrl, workload: plan.workload, dir: warmDir, runId: `${run.runId}-warmup`, signal: run.signal,
      extraEnv: manyShardsEnv(run, v, prefix, full ? v.settings.indices : Math.min(20, v.settings.indices)), figures: manyShardsFiguresOf });
  } finally {
    rmSync(warmDir, { recursive: true, force: true });
    await deleteIndices(lab.client, prefix).catch(() => {});
  }
}

/** Repetition `rep` (the variant's round-th) into repDir (see the header); throws when it failed. */
export async function measureManyShards(run, v, round, repDir, rep) {
  const { plan, lab, measured, log } = run;
  const { client } = lab;
  const prefix = manyShardsPrefix(run.runId, v.name, round);
  const [jvm0, state0] = await Promise.all([masterJvm(client), clusterStateBytes(client)]);
  const sampler = masterSampler(client);
  const cpu0 = process.cpuUsage();
  let out, peak;
  try {
    out = await runLoad({ locust: run.locust, script: locustfile('many_shards'), esUrl: lab.esUrl, workload: plan.workload, dir: repDir, runId: `${run.runId}-${v.name}-${round}`, signal: run.signal,
      extraEnv: manyShardsEnv(run, v, prefix, v.settings.indices), figures: manyShardsFiguresOf });
  } finally {
    peak = await sampler.stop();
    rmSync(pointsFileOf(repDir), { force: true });
  }
  try {
    const [jvm1, state1] = await Promise.all([masterJvm(client), clusterStateBytes(client)]);
    const cpu = process.cpuUsage(cpu0);
    const f = out.figures;
    measured.cpu += (cpu.user + cpu.system) / 1e6;
    measured.loadCpu += out.loadCpuSeconds ?? 0;
    measured.wall += f.many_shards.elapsed_s ?? 0;
    const ms = f.many_shards;
    const held = await requireAllCreated(client, prefix, { created: ms.indices_created, docsIndexed: ms.docs_indexed, docsFailed: ms.docs_failed });
    rep.integrity = { index: `${prefix}*`, count: held.count, acknowledged: ms.docs_indexed };
    Object.assign(ms, {
      cluster_state_bytes: state1,
      cluster_state_bytes_before: state0,
      master_heap_max_mb: Math.round(Math.max(peak.heapUsed, jvm1?.heapUsed ?? 0) / 1048576),
      master_heap_limit_mb: jvm1 ? Math.round(jvm1.heapMax / 1048576) : null,
      master_gc_ms: jvm0 && jvm1 ? jvm1.gcMs - jvm0.gcMs : null,
      pending_tasks_max: peak.pending,
    });
    const t0 = Date.now();
    await deleteIndices(client, prefix);
    ms.delete_s = Math.round((Date.now() - t0) / 100) / 10;
    rep.figures = f;
    rep.timeline = out.timeline;
    rep.complete = ms.indices_created === v.settings.indices;
    if (!rep.complete) rep.incomplete_reason = `${ms.indices_created} of ${v.settings.indices} indices made (${ms.indices_failed} refused or unanswered) within ${plan.workload.measure}`;
    log(`  ${ms.indices_created} indices in ${ms.elapsed_s}s (${ms.indices_per_s}/s), creation avg ${f.avg_ms} ms, p95 ${f.p95_ms} ms; cluster state ${Math.round(state0 / 1024)} -> ${Math.round(state1 / 1024)} KB; master heap up to ${ms.master_heap_max_mb} MB, GC ${ms.master_gc_ms} ms; deleted in ${ms.delete_s}s`);
  } finally {
    await deleteIndices(client, prefix).catch(() => {});
  }
}
