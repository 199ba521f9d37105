// One repetition of the ingest workload (ingest.js): a new empty index with the variant's
// settings, the clients' bulks from the run's bodies through the group's data nodes, the window's
// figures from the load engine, from the index and from the nodes; then every acknowledged
// document is counted in the index (a run that lost one fails), and the index is deleted (the
// disk holds one at a time).
import { rmSync } from 'node:fs';
import { queueSampler, snapshot, windowFigures } from './es-stats.js';
import { acknowledgedOf, createIngestIndex, indexSnapshot, indexWindowFigures, ingestFiguresOf, ingestIndexName, requireAllIndexed } from './ingest.js';
import { flatVariant } from './layout.js';
import { locustfile, pointsFileOf, runLoad, warmWorkload } from './workload.js';

// what traffic/ingest.py reads: where to write, the bodies, how many clients and documents per bulk
const ingestEnv = (run, v, index) => ({
  ES_URLS: run.layouts.ingestUrls.get(v.name).join(','), INDEX: index, BODIES_DIR: run.layouts.bodies.dir, BODIES_COUNT: String(run.layouts.bodies.count),
  CLIENTS: String(run.plan.workload.clients), DOCS_PER_BULK: String(run.plan.workload.bulk_docs),
});

/** The warm-up pass: an index of its own written for the ramp-up and warm-up, then deleted. */
export async function warmUpIngest(run, v, warmDir, { full = !run.plan.quick } = {}) {
  const { plan, lab } = run;
  const index = ingestIndexName(run.runId, v.name, -1);
  try {
    await createIngestIndex(lab.client, { index, variant: flatVariant(v), mapping: run.layouts.bodies.profile.mapping, groupAttr: lab.groupAttr });
    await runLoad({ locust: run.locust, script: locustfile('ingest'), esUrl: lab.esUrl, workload: warmWorkload(plan, full),
      dir: warmDir, runId: `${run.runId}-warmup`, signal: run.signal, extraEnv: ingestEnv(run, v, index), figures: ingestFiguresOf });
  } finally {
    rmSync(warmDir, { recursive: true, force: true });
    await lab.client.indices.delete({ index }, { ignore: [404] }).catch(() => {});
  }
}

/** Repetition `rep` (the variant's round-th) into repDir (see the header); throws when it failed. */
export async function measureIngest(run, v, round, repDir, rep) {
  const { plan, lab, measured, log } = run;
  const { client } = lab;
  const index = ingestIndexName(run.runId, v.name, round - 1);
  await createIngestIndex(client, { index, variant: flatVariant(v), mapping: run.layouts.bodies.profile.mapping, groupAttr: lab.groupAttr });
  let before = null, idxBefore = null, sampler = null, cpu0 = null;
  try {
    const out = await runLoad({
      locust: run.locust, script: locustfile('ingest'), esUrl: lab.esUrl, workload: plan.workload, dir: repDir, runId: `${run.runId}-${v.name}-${round}`, signal: run.signal,
      extraEnv: ingestEnv(run, v, index), figures: ingestFiguresOf,
      onMeasureStart: () => {
        cpu0 = process.cpuUsage();
        snapshot(client).then((s) => { before = s; }).catch(() => {});
        indexSnapshot(client, index).then((s) => { idxBefore = s; }).catch(() => {});
        sampler = queueSampler(client);
      },
    });
    const queues = await sampler?.stop();
    sampler = null;
    const [after, idxAfter] = await Promise.all([snapshot(client), indexSnapshot(client, index)]);
    const cpu = process.cpuUsage(cpu0 ?? undefined);
    measured.cpu += (cpu.user + cpu.system) / 1e6;
    measured.loadCpu += out.loadCpuSeconds ?? 0;
    measured.wall += out.measureWallMs / 1000;
    rep.figures = { ...out.figures, es: before && idxBefore ? { ...windowFigures(before, after, queues), ...indexWindowFigures(idxBefore, idxAfter) } : null };
    rep.timeline = out.timeline;
    rep.integrity = { index, ...(await requireAllIndexed(client, index, acknowledgedOf(out.summary))) };
    rep.complete = true;
    const f = rep.figures;
    log(`  ${f.ingest.docs_indexed} documents indexed (${f.ingest.docs_per_s}/s, ${f.ingest.bulk_ops_per_s} bulks/s), ${f.ingest.docs_rejected} rejected, ${f.ingest.docs_failed} failed; bulk avg ${f.avg_ms} ms, p95 ${f.p95_ms} ms; ${f.es?.merges ?? '-'} merges, ${f.es?.refreshes ?? '-'} refreshes; index holds ${rep.integrity.count} of ${rep.integrity.acknowledged} acknowledged`);
  } finally {
    if (sampler) await sampler.stop();
    rmSync(pointsFileOf(repDir), { force: true });
    await client.indices.delete({ index }, { ignore: [404] }).catch(() => {});
  }
}
