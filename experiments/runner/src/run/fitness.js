// Phase 1 of a run: can the plan run here, and is the lab fit to measure? Refusals come first,
// each one line (a spec that sets its lab, on an external cluster or without a lab of its own);
// then the lab of the first variant starts (LAB=own) and the cluster must answer, be quiet, hold
// every variant's index group and have the disk for the dataset. Nothing is created before every
// check has passed, and a lab started for the run is stopped again when one fails.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@elastic/elasticsearch';
import { clientOptions, clusterConnection } from '@tenantlab/contract/connection';
import { loadProfile } from '@tenantlab/dataset/profiles';
import { generateTenants } from '@tenantlab/dataset/tenants';
import { RunError } from '../errors.js';
import { isManyShards, labKey, writesDocuments } from '../spec.js';
import { groupsOf, nodeUrlsByGroup, requireDisk, requireQuiet, requireUp, requireVariantsFit, settleAfterStart, writeQueueOf } from './lab-check.js';
import { describeLab, labControl, labEnvOf, labUrl } from './lab-control.js';
import { flatVariant } from './layout.js';

/** The prefix of the generated stores' ids: every layout holds the same stores. */
const TENANT_PREFIX = 'exp';

/**
 * The cluster a run measures, checked fit (see the header). -> { client, esUrl, runtime, conn,
 * groupAttr, own, starts, quiet, switchTo(vname), sameLab(vname), nodeUrlsOf(v), stop() }.
 * `client` is replaced when a variant needs another lab: read it from here every time.
 */
export async function openLab(plan, { name, labMode, labCommand, esUrl, runtime, log, signal }) {
  const ownsLab = labMode === 'own' && Boolean(labCommand);
  // the cluster measured, with its credentials and CA when it is an external one (RUNTIME=external)
  const conn = ownsLab ? null : clusterConnection(process.env);
  const setsLab = plan.variants.find((v) => v.lab);
  if (conn?.external && setsLab) {
    throw new RunError(`${name} changes the topology (lab: in its spec: ${describeLab(setsLab.lab)}), which an external cluster's nodes are not the lab's to do: run it on a lab of its own (RUNTIME=native or compose, LAB=own)`);
  }
  if (!ownsLab && setsLab) {
    throw new RunError(`${name} sets the lab it runs on (lab: in its spec: ${describeLab(setsLab.lab)}): run it with LAB=own, which starts that lab beside yours`);
  }
  const control = ownsLab ? labControl({ command: labCommand, log, signal }) : null;
  const labOf = new Map(plan.variants.map((v) => [v.name, v.lab]));
  const keyOf = (vname) => labKey(labOf.get(vname));
  const groupAttr = process.env.LAB_GROUP_ATTR || 'index_group';
  // `own`: a lab of the run's own (LAB=own); `starts`: each start of it, as results.json keeps
  // them (lab.starts); `current`: the variant whose lab is up
  const lab = { client: null, esUrl, runtime, conn, groupAttr, own: Boolean(control), starts: [], quiet: null, current: plan.order[0] };

  const use = async (vname) => {
    const r = await control.use(labOf.get(vname));
    if (r.restarted) lab.starts.push({ at: new Date().toISOString(), lab: labOf.get(vname) ?? null, fresh: r.fresh, shape: r.shape ?? null });
    return r;
  };
  if (control) {
    await use(plan.order[0]);
    lab.esUrl = labUrl();
    try { lab.runtime = readFileSync(join(process.env.LAB_DIR, 'runtime'), 'utf8').trim(); } catch { /* as given */ }
  }
  const newClient = () => new Client({ ...(conn ? clientOptions(conn) : {}), node: lab.esUrl, requestTimeout: 120000, maxRetries: 2 });
  lab.client = newClient();

  // up, quiet, and the index groups of the variants measured on this lab; -> the quiet sample
  const requireFit = async () => {
    const { client } = lab;
    await requireUp(client, lab.esUrl);
    const quiet = await requireQuiet(client);
    // a lab just started for the run: what its nodes say they run with
    const started = lab.starts.at(-1);
    if (started && started.write_queue === undefined) started.write_queue = await writeQueueOf(client).catch(() => null);
    const groups = await groupsOf(client, groupAttr);
    requireVariantsFit(plan.variants.filter((v) => !control || labKey(v.lab) === keyOf(lab.current)).map(flatVariant), groups);
    return quiet;
  };
  const stopAndThrow = async (err) => {
    await control?.stop();
    throw err;
  };
  if (control) await settleAfterStart(lab.client).catch(stopAndThrow);
  lab.quiet = await requireFit().catch(stopAndThrow);

  /**
   * Makes `vname`'s lab the one up: when it is another than the current one's, it starts (or
   * restarts on the same data), settles and is checked again. -> null when nothing changed,
   * else { restarted, fresh } (labControl's use()): the layouts and warm-up it needs.
   */
  lab.switchTo = async (vname) => {
    let switched = null;
    if (control && keyOf(vname) !== keyOf(lab.current)) {
      lab.current = vname;
      switched = await use(vname);
      await lab.client.close();
      lab.client = newClient();
      if (switched.restarted) await settleAfterStart(lab.client);
      await requireFit();
    }
    lab.current = vname;
    return switched;
  };
  /** The variants measured on the lab `vname`'s variant runs on. */
  lab.sameLab = (vname) => plan.variants.filter((v) => labKey(v.lab) === keyOf(vname));
  // the data nodes' addresses on the variant's lab, by index group: -> urlsOf(group). An
  // external cluster is reached through ES_URL only: its nodes' own addresses are not the way in
  lab.nodeUrlsOf = async (v) => (conn?.external ? () => [] : nodeUrlsByGroup(lab.client, { groupAttr, env: { ...process.env, ...(control ? labEnvOf(labOf.get(v.name)) : {}) } }));
  lab.stop = async () => control?.stop();
  return lab;
}

/**
 * The run's dataset: the stores generated (their sizes; no document yet) and held against the
 * data nodes' disk. The write workloads have none: each repetition writes into new indices of
 * its own. -> { writes, manyShards, profile, tenants, documents }
 */
export async function fitDataset(plan, lab) {
  const writes = writesDocuments(plan.workload);
  const manyShards = isManyShards(plan.workload);
  const profile = writes ? null : loadProfile(plan.dataset.profile);
  const tenants = writes ? [] : generateTenants({ seed: plan.dataset.seed, profile, scale: plan.dataset.scale, prefix: TENANT_PREFIX });
  const documents = writes ? null : tenants.reduce((a, t) => a + t.expected_products, 0);
  if (!writes) await requireDisk(lab.client, { documents, variants: plan.variants.map(flatVariant) }).catch(async (err) => { await lab.stop(); throw err; });
  return { writes, manyShards, profile, tenants, documents };
}
