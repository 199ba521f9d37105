// The lab's shape: what each node of the topology model (topology.js) may use on one machine.
// Both runtimes apply what this resolves, through node-config.js (compose as cpus/cpuset/mem_limit,
// native through cgroups or taskset: runtimes/native/lib/node-limits.sh), so a node is sized the same
// way whichever runs it.
// No Node APIs here: the machine's CPUs come in as a list.
//
// SHAPE=groups (the default): each index group's data nodes share a slice of the machine's CPUs
// of their own, in the order the groups first appear (2 CPUs, 2 groups: g1 on CPU 0, g2 on CPU
// 1), so one group's load cannot take the other's cores, as on separate hosts. A node's own
// <KEY>_CPUSET replaces its group's slice; <KEY>_CPUS, <KEY>_CPU_WEIGHT and <KEY>_MEM apply on top. Nodes without
// a group (the master) run on every CPU unless given a set.
// SHAPE=off: no limit at all; every node sees every CPU (the lab before nodes had a size).
import { formatCpuList, TopologyError } from './topology.js';

/**
 * model (topology()) and the machine's CPU ids -> {
 *   shape, machine: [ids],
 *   slices: { g1: [ids] },           // each group's CPU slice (SHAPE=groups)
 *   nodes: [{ name, key, group, cpuset: [ids]|null, cpus: number|null, cpuWeight: number|null,
 *             memBytes: number|null, mem: string|null, heap, processors }],
 *   notes: [lines]                    // what a user should know (groups sharing CPUs)
 * }
 * processors is what Elasticsearch sizes its thread pools from (node.processors): the quota
 * when there is one, else the number of CPUs the node may run on; null under SHAPE=off (left
 * to Elasticsearch, as before nodes had a size). Throws TopologyError naming
 * the key when a node asks for CPUs the machine does not have.
 */
export function resolveShape(model, machine, { file = 'lab.env' } = {}) {
  const fail = (message) => {
    throw new TopologyError(file, message);
  };
  if (!Array.isArray(machine) || machine.length === 0) throw new Error('resolveShape: the machine has no CPU list');
  const all = formatCpuList(machine);
  const notes = [];
  const slices = {};
  const groupNames = Object.keys(model.groups);
  if (model.shape === 'groups') {
    const n = machine.length;
    const g = groupNames.length;
    groupNames.forEach((name, i) => {
      slices[name] = n >= g ? machine.slice(Math.floor((i * n) / g), Math.floor(((i + 1) * n) / g)) : [machine[i % n]];
    });
    if (g > n) notes.push(`${g} index groups on ${n} CPU(s): some groups share a CPU (${groupNames.map((x) => `${x} on ${formatCpuList(slices[x])}`).join(', ')})`);
  }

  const nodes = model.nodes.map((node) => {
    const { key, size } = node;
    if (model.shape === 'off') {
      return { name: node.name, key, group: node.group, cpuset: null, cpus: null, cpuWeight: null, memBytes: null, mem: null, heap: size.heap, processors: null };
    }
    let cpuset = null;
    if (size.cpuset !== null) {
      const missing = size.cpuset.filter((id) => !machine.includes(id));
      if (missing.length > 0) fail(`${key}_CPUSET=${formatCpuList(size.cpuset)}: CPU ${missing.join(', ')} is not one this machine lets the lab use (${all}): pick CPUs from ${all}`);
      cpuset = size.cpuset;
    } else if (node.group !== null) {
      cpuset = slices[node.group];
    }
    if (size.cpus !== null) {
      if (size.cpus > machine.length) fail(`${key}_CPUS=${size.cpus} is more CPUs than this machine lets the lab use (${machine.length}: ${all}): give at most ${machine.length}`);
      if (cpuset !== null && size.cpus > cpuset.length) {
        fail(`${key}_CPUS=${size.cpus} is more than the ${cpuset.length} CPU(s) ${node.name} runs on (${node.group}'s slice under SHAPE=groups: ${formatCpuList(cpuset)}): lower it, set ${key}_CPUSET, or SHAPE=off`);
      }
    }
    const width = cpuset === null ? machine.length : cpuset.length;
    const processors = size.cpus === null ? width : Math.min(width, size.cpus);
    return { name: node.name, key, group: node.group, cpuset, cpus: size.cpus, cpuWeight: size.cpuWeight, memBytes: size.memBytes, mem: size.mem, heap: size.heap, processors };
  });
  return { shape: model.shape, machine, slices, nodes, notes };
}

/** One line for `make up`: "SHAPE=groups on CPUs 0-1: g1 on 0, g2 on 1; es-master on every CPU" */
export function describeShape(resolved) {
  const all = formatCpuList(resolved.machine);
  if (resolved.shape === 'off') return `SHAPE=off: no CPU or memory limits, every node on CPUs ${all}`;
  const parts = Object.entries(resolved.slices).map(([g, ids]) => `${g} on CPU ${formatCpuList(ids)}`);
  const free = resolved.nodes.filter((n) => n.cpuset === null).map((n) => n.name);
  if (free.length > 0) parts.push(`${free.join(', ')} on every CPU`);
  const sized = resolved.nodes.filter((n) => n.cpus !== null || n.cpuWeight !== null || n.memBytes !== null)
    .map((n) => `${n.name}${n.cpus !== null ? ` ${n.cpus} cores` : ''}${n.cpuWeight !== null ? ` weight ${n.cpuWeight}` : ''}${n.mem !== null ? ` ${n.mem}` : ''}`);
  return `SHAPE=groups on CPUs ${all}: ${parts.join(', ')}${sized.length ? `; limits: ${sized.join(', ')}` : ''}`;
}

// The resolved shape in each runtime's terms (limits, node.processors, the heap; compose's
// run-time <KEY>_*_APPLIED values): node-config.js, the one node-config source.
