// The experiment's own lab (LAB=own), started with the topology each variant asks for (its
// `lab:`: groups, data nodes per group, their size, SHAPE) through the lab's own driver
// (scripts/lab, with the LAB_DIR and shifted ports scripts/experiment exported), so the runner
// never touches the user's lab. Switching between two labs that differ only in node sizes
// restarts the nodes on the same data (`down`, then `up`: the indices stay); a different node set
// is a new lab (`clean`, then `up`) whose layouts are built again.
import { spawn } from 'node:child_process';
import { formatCpuList, labTopologyEnv, nodeKey, topology } from '@tenantlab/contract/topology';
import { loadLabEnv } from '@tenantlab/contract/lab-env-file';
import { machineCpus } from '@tenantlab/contract/machine';
import { resolveShape } from '@tenantlab/contract/shape';
import { RunError } from '../errors.js';

/** The experiment's own lab answers on its master's port, as scripts/experiment shifted it. */
export function labUrl(env = process.env) {
  const key = nodeKey(env.LAB_MASTER_NODE || 'es-master');
  return `http://${env.LAB_BIND || '127.0.0.1'}:${env[`${key}_HTTP_PORT`]}`;
}

/** A spec's lab (null: the lab as lab.env has it) -> the lab.env keys it sets over `env`. */
export function labEnvOf(lab, env = process.env) {
  if (!lab) return {};
  const keys = labTopologyEnv({ groups: lab.groups, dataNodesPerGroup: lab.data_nodes_per_group, shape: lab.shape, dataNode: lab.data_node, loadEngine: lab.load_engine }, env);
  // a node setting of every node (lab.env ES_WRITE_QUEUE): the runtimes render it at start
  if (lab.write_queue !== undefined) keys.ES_WRITE_QUEUE = String(lab.write_queue);
  return keys;
}

/**
 * Where a lab's load engines run (lab.load_engine.cpus_of / burst_cpus_of: an index group whose
 * CPU slice the engine is pinned to, LOAD_CPUS for load-engine-exec) -> { measure, burst }, each
 * a CPU list or null (the engine on every CPU). The slices are the ones the lab's nodes get
 * (contract/shape.js, SHAPE=groups) on this machine's CPUs; a group without one is a RunError.
 */
export function engineCpusOf(lab, env = process.env, machine = machineCpus()) {
  const e = lab?.load_engine ?? {};
  if (!e.cpus_of && !e.burst_cpus_of) return { measure: null, burst: null };
  const shape = resolveShape(topology(loadLabEnv({ env: { ...env, ...labEnvOf(lab, env) } })), machine);
  const slice = (key) => {
    if (!e[key]) return null;
    const ids = shape.slices[e[key]];
    if (!ids) {
      throw new RunError(`lab.load_engine.${key}: ${e[key]} has no CPU slice of its own in this lab (${shape.shape === 'groups' ? `its groups: ${Object.keys(shape.slices).join(', ')}` : `SHAPE=${shape.shape}`}): name one of its groups, with SHAPE=groups`, 2);
    }
    return formatCpuList(ids);
  };
  return { measure: slice('cpus_of'), burst: slice('burst_cpus_of') };
}

/** What makes two labs need separate data: the node list and each node's roles and group. */
export function structureOf(env) {
  const model = topology(env);
  return JSON.stringify(model.nodes.map((n) => [n.name, n.roles, n.group]));
}

/**
 * labControl({ command, log, signal }) -> { use(lab) -> { restarted, fresh, shape }, stop() }.
 * use() brings the lab up with `lab`'s keys (a no-op when it already runs with them); `fresh`
 * says its data is new (layouts must be built), `restarted` that its JVMs are (warm them up).
 */
export function labControl({ command, log = () => {}, signal, env: given = process.env }) {
  let current = null; // { key, structure }
  // RUNTIME as given; it becomes native when a variant's lab has other nodes than lab.env's and
  // RUNTIME was left to choose (compose runs the nodes rendered from lab.env, and cannot)
  let env = given;
  let shape = null; // the SHAPE line of the last `up`
  const run = (args, extra) => new Promise((resolve, reject) => {
    const child = spawn(command, args, { env: { ...env, ...extra, FORCE: '1', SEED: '0' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let tail = [];
    const onLine = (b) => {
      for (const line of String(b).split('\n').filter(Boolean)) {
        tail = [...tail.slice(-9), line];
        if (/^SHAPE=/.test(line)) shape = line.replace(/ \(as the containers.*$/, '');
        if (/^(SHAPE=|  applied|cluster green|lab up|starting \d|error)/.test(line)) log(`  lab: ${line}`);
      }
    };
    child.stdout.on('data', onLine);
    child.stderr.on('data', onLine);
    const kill = () => child.kill('SIGTERM');
    signal?.addEventListener('abort', kill, { once: true });
    child.on('close', (code) => {
      signal?.removeEventListener('abort', kill);
      if (signal?.aborted) reject(new RunError('interrupted', 130));
      else if (code === 0) resolve();
      else reject(new RunError(`the experiment's lab: '${command} ${args.join(' ')}' failed (exit ${code}): ${tail.slice(-3).join(' | ')}`, code === 2 ? 2 : 1));
    });
  });
  let lastKeys = {};
  return {
    async use(lab) {
      const keys = labEnvOf(lab, env);
      const key = JSON.stringify(keys);
      const structure = structureOf(loadLabEnv({ env: { ...env, ...keys } }));
      if (current?.key === key) return { restarted: false, fresh: false };
      // compose runs the nodes rendered from lab.env (runtimes/compose/nodes.generated.yml): sizes can
      // change there, the node set cannot
      if (structure !== structureOf(loadLabEnv({ env })) && env.RUNTIME !== 'native') {
        if (env.RUNTIME && env.RUNTIME !== 'auto') {
          throw new RunError(`this experiment's lab (${describeLab(lab)}) has other nodes than lab.env's, which only the native runtime can start on the fly: run it with RUNTIME=native (RUNTIME=${env.RUNTIME} was asked for)`);
        }
        // whatever runs now goes first (as its own runtime), then every lab of this run is native
        if (current !== null) await run(['clean'], lastKeys);
        current = null;
        env = { ...env, RUNTIME: 'native' };
        log(`this experiment's lab (${describeLab(lab)}) has other nodes than lab.env's: it runs on the native runtime (compose cannot start other nodes on the fly)`);
      }
      const fresh = current === null || current.structure !== structure;
      log(fresh ? `starting the experiment's lab${lab ? ` (${describeLab(lab)})` : ''}` : `restarting the experiment's lab on the same data (${describeLab(lab)})`);
      if (current !== null) await run([fresh ? 'clean' : 'down'], lastKeys);
      else await run(['clean'], keys);
      shape = null;
      await run(['up'], keys);
      current = { key, structure };
      lastKeys = keys;
      return { restarted: true, fresh, shape };
    },
    async stop() {
      if (current === null) return;
      await run(['clean'], lastKeys).catch((err) => log(`warning: ${err.message}`));
      current = null;
    },
  };
}

/** "2 groups x 2 data nodes, 0.5 cores, 1536m each, SHAPE=off" */
export function describeLab(lab) {
  if (!lab) return 'lab.env as it is';
  const parts = [];
  if (lab.groups !== undefined || lab.data_nodes_per_group !== undefined) parts.push(`${lab.groups ?? '?'} groups x ${lab.data_nodes_per_group ?? '?'} data nodes`);
  const d = lab.data_node ?? {};
  const size = [d.cpus !== undefined ? `${d.cpus} cores` : null, d.cpuset !== undefined ? `CPUs ${d.cpuset}` : null, d.cpu_weight !== undefined ? `CPU weight ${d.cpu_weight}` : null, d.mem ? `${d.mem} memory` : null, d.heap ? `${d.heap} heap` : null].filter(Boolean);
  if (size.length) parts.push(`${size.join(', ')} each`);
  if (lab.shape) parts.push(`SHAPE=${lab.shape}`);
  const e = lab.load_engine;
  if (e?.cpu_weight !== undefined) parts.push(`the load engine at CPU weight ${e.cpu_weight}`);
  if (e?.cpus_of) parts.push(`the shoppers' engine on ${e.cpus_of}'s CPUs`);
  if (e?.burst_cpus_of) parts.push(`the burst's engine on ${e.burst_cpus_of}'s CPUs`);
  if (lab.write_queue !== undefined) parts.push(`write queue ${lab.write_queue}`);
  return parts.join(', ') || 'lab.env as it is';
}
