// THE topology model. lab.env's node list and per-node keys are the only definition of the
// lab's Elasticsearch nodes; the compose generator (runtimes/compose/render.js), the native runtime
// (through bin/topology, at `make up`) and any other consumer read the nodes from here, so a
// broken topology is the same one line, naming the lab.env key to fix, everywhere.
// No Node APIs here: a plain ES module any JavaScript runtime loads.
//
// The keys: LAB_NODES (the list), LAB_MASTER_NODE, LAB_GROUP_ATTR, and per node NAME
// <KEY>_ROLES, <KEY>_GROUP (data nodes only), <KEY>_HTTP_PORT, <KEY>_TRANSPORT_PORT, where KEY
// is NAME upper-cased with '-' turned into '_' (es-data-1 -> ES_DATA_1). The node's size, all
// optional: <KEY>_CPUS (a CPU quota in cores, fractions allowed), <KEY>_CPUSET (the CPUs it may
// run on, e.g. 0 or 0-1), <KEY>_MEM (a memory limit, e.g. 1536m), <KEY>_HEAP (default ES_HEAP),
// <KEY>_CPU_WEIGHT (its weight against the machine's other processes when they want the same
// CPU, on cgroup v2's cpu.weight scale: 100 is one ordinary process, 1-10000). LOAD_CPU_WEIGHT,
// on the same scale, is the load engine's (Locust) beside the lab's nodes.
// Which CPUs a machine has is not known here: src/shape.js resolves the sizes on a machine.
import { TopologyError } from './errors.js';

// The roles a node of this lab may carry: Elasticsearch's built-in ones that need no x-pack
// (the native runtime has none; `ml` or `transform` would stop a native node from starting).
export const KNOWN_ROLES = Object.freeze([
  'master', 'voting_only', 'data', 'data_content', 'data_hot', 'data_warm', 'data_cold',
  'data_frozen', 'ingest', 'remote_cluster_client',
]);

// A node name is a compose service name, an Elasticsearch node name and (upper-cased) the
// prefix of lab.env keys, so it is held to what all three accept.
const NODE_NAME = /^[a-z][a-z0-9-]*$/;
// A group name ends up in node attributes, allocation filters and index names.
const GROUP_NAME = /^[a-z0-9][a-z0-9_-]*$/;
const ATTR_NAME = /^[a-z][a-z0-9_]*$/;
// 512m, 1g, 1536m, 2147483648: what the JVM's -Xmx and Compose's mem_limit both accept
const SIZE = /^([0-9]+)([kmg]?)$/i;
const UNIT = { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 };
// 0-1, 0,2-3: a Linux CPU list (cpuset.cpus, taskset -c, Compose's cpuset)
const CPU_LIST = /^[0-9]+(-[0-9]+)?(,[0-9]+(-[0-9]+)?)*$/;

/** '512m' -> 536870912; null when it is not a size */
export function sizeBytes(text) {
  const m = SIZE.exec(String(text ?? ''));
  return m ? Number(m[1]) * UNIT[m[2].toLowerCase()] : null;
}

/** '0,2-3' -> [0, 2, 3] (sorted, no duplicates); null when it is not a CPU list */
export function parseCpuList(text) {
  if (!CPU_LIST.test(String(text ?? ''))) return null;
  const ids = new Set();
  for (const part of text.split(',')) {
    const [a, b = a] = part.split('-').map(Number);
    if (b < a) return null;
    for (let i = a; i <= b; i++) ids.add(i);
  }
  return [...ids].sort((x, y) => x - y);
}

/** [0, 1, 2, 5] -> '0-2,5' */
export function formatCpuList(ids) {
  const out = [];
  for (let i = 0; i < ids.length; i++) {
    let j = i;
    while (j + 1 < ids.length && ids[j + 1] === ids[j] + 1) j++;
    out.push(j > i ? `${ids[i]}-${ids[j]}` : `${ids[i]}`);
    i = j;
  }
  return out.join(',');
}

export { TopologyError };

/** es-data-1 -> ES_DATA_1, the prefix of the node's lab.env keys */
export function nodeKey(name) {
  return name.toUpperCase().replaceAll('-', '_');
}

/** A role that makes a node hold shards, hence need an index group. */
export function isDataRole(role) {
  return role === 'data' || role.startsWith('data_');
}

/**
 * lab.env's values (as parseLabEnv/loadLabEnv give them) -> the node model:
 *   { nodes: [{ name, key, roles, group, httpPort, transportPort }], master, groupAttr,
 *     groups: { g1: [names] }, dataNodes: [names] }
 * Nodes keep LAB_NODES' order, groups their first appearance. `group` is null for a node
 * without a data role. Throws TopologyError (one line, naming the key) on the first problem.
 * `file` only names the source in the message.
 */
export function topology(env, { file = 'lab.env' } = {}) {
  const fail = (message) => {
    throw new TopologyError(file, message);
  };
  const value = (key) => (env[key] === undefined ? undefined : String(env[key]));

  const list = value('LAB_NODES');
  if (!list) fail('LAB_NODES is missing or empty: list the nodes, e.g. LAB_NODES=es-master,es-data-1');
  const names = list.split(',');
  const seen = new Set();
  for (const name of names) {
    if (!NODE_NAME.test(name)) {
      fail(`LAB_NODES=${list}: '${name}' is not a node name (lower-case letters, digits and '-', starting with a letter)`);
    }
    if (seen.has(name)) fail(`LAB_NODES=${list}: ${name} is listed twice`);
    seen.add(name);
  }

  const groupAttr = value('LAB_GROUP_ATTR');
  if (!groupAttr) fail('LAB_GROUP_ATTR is missing: the node attribute the index groups are tagged with, e.g. LAB_GROUP_ATTR=index_group');
  if (!ATTR_NAME.test(groupAttr)) {
    fail(`LAB_GROUP_ATTR=${groupAttr} is not an attribute name (lower-case letters, digits and '_', starting with a letter)`);
  }

  const master = value('LAB_MASTER_NODE');
  if (!master) fail('LAB_MASTER_NODE is missing: name the master-eligible node of LAB_NODES, e.g. LAB_MASTER_NODE=es-master');
  if (!seen.has(master)) fail(`LAB_MASTER_NODE=${master} is not in LAB_NODES (${list})`);

  // every port key already read, by port: a second node on the same port is named with the first
  const portOwners = new Map();
  const port = (name, key) => {
    const raw = value(key);
    if (raw === undefined || raw === '') fail(`${key} is missing: ${name} is in LAB_NODES and needs it`);
    const n = Number(raw);
    if (!/^[0-9]+$/.test(raw) || n < 1 || n > 65535) fail(`${key}=${raw} is not a port number (1-65535)`);
    if (portOwners.has(n)) fail(`${key}=${raw} is the port of ${portOwners.get(n)} already: every node port must differ`);
    portOwners.set(n, key);
    return n;
  };

  const nodes = names.map((name) => {
    const key = nodeKey(name);
    const rolesKey = `${key}_ROLES`;
    const rolesValue = value(rolesKey);
    if (rolesValue === undefined) fail(`${rolesKey} is missing: ${name} is in LAB_NODES and needs its roles, e.g. ${rolesKey}=data,ingest`);
    // An empty value is a valid coordinating-only node (node.roles=[])
    const roles = rolesValue === '' ? [] : rolesValue.split(',');
    for (const role of roles) {
      if (!KNOWN_ROLES.includes(role)) fail(`${rolesKey}=${rolesValue}: unknown role '${role}' (known: ${KNOWN_ROLES.join(', ')})`);
    }
    if (name === master && !roles.includes('master')) {
      fail(`${rolesKey}=${rolesValue} must include master: ${name} is LAB_MASTER_NODE, the node the cluster forms around`);
    }

    const groupKey = `${key}_GROUP`;
    const groupValue = value(groupKey);
    const holdsData = roles.some(isDataRole);
    let group = null;
    if (holdsData) {
      if (!groupValue) fail(`${groupKey} is missing: ${name} holds data (${rolesKey}=${rolesValue}) and needs an index group, e.g. ${groupKey}=g1`);
      if (!GROUP_NAME.test(groupValue)) {
        fail(`${groupKey}=${groupValue} is not a group name (lower-case letters, digits, '_' and '-')`);
      }
      group = groupValue;
    } else if (groupValue) {
      fail(`${groupKey}=${groupValue} is set but ${name} holds no data (${rolesKey}=${rolesValue}): remove it`);
    }

    return {
      name,
      key,
      roles,
      group,
      httpPort: port(name, `${key}_HTTP_PORT`),
      transportPort: port(name, `${key}_TRANSPORT_PORT`),
      size: nodeSize(name, key, value, fail),
    };
  });

  const dataNodes = nodes.filter((n) => n.group !== null).map((n) => n.name);
  if (dataNodes.length === 0) fail(`LAB_NODES=${list} has no data node: give at least one node a data role and a group`);
  const groups = {};
  for (const n of nodes) if (n.group !== null) (groups[n.group] ??= []).push(n.name);

  const shape = value('SHAPE') || 'groups';
  if (!SHAPES.includes(shape)) fail(`SHAPE=${shape}: use groups (each index group's data nodes on a CPU slice of their own) or off (no limits)`);

  // the load engine's weight against the lab's nodes (the instrument, on a shaped lab)
  const loadCpuWeight = cpuWeightOf('LOAD_CPU_WEIGHT', value, fail);

  return { nodes, master, groupAttr, groups, dataNodes, shape, loadCpuWeight };
}

// groups: each index group's data nodes share a slice of the machine's CPUs of their own (the
// per-node keys still apply); off: no CPU or memory limit on any node, today's unshaped lab.
export const SHAPES = Object.freeze(['groups', 'off']);

/** A CPU weight key (<KEY>_CPU_WEIGHT, LOAD_CPU_WEIGHT) -> its number, null when empty. */
function cpuWeightOf(key, value, fail) {
  const raw = value(key) || '';
  if (raw === '') return null;
  const weight = /^[0-9]+$/.test(raw) ? Number(raw) : NaN;
  if (!(weight >= 1 && weight <= 10000)) fail(`${key}=${raw} is not a CPU weight: give a whole number from 1 to 10000 (100 is one ordinary process), or leave it empty`);
  return weight;
}

/**
 * A node's size keys -> { cpus, cpuset, cpuWeight, mem, memBytes, heap, heapBytes }; null where unset
 * (heap falls back to ES_HEAP). Whether the CPUs exist is the machine's question (shape.js);
 * what can be told from the values alone is refused here.
 */
function nodeSize(name, key, value, fail) {
  const cpusRaw = value(`${key}_CPUS`) || '';
  let cpus = null;
  if (cpusRaw !== '') {
    if (!/^[0-9]+(\.[0-9]+)?$/.test(cpusRaw)) fail(`${key}_CPUS=${cpusRaw} is not a number of cores (e.g. 0.5, 1, 1.5)`);
    cpus = Number(cpusRaw);
    if (cpus < 0.01) fail(`${key}_CPUS=${cpusRaw}: a quota of 0 would stop ${name}; leave it empty for no quota, or give at least 0.01`);
  }
  const cpusetRaw = value(`${key}_CPUSET`) || '';
  let cpuset = null;
  if (cpusetRaw !== '') {
    cpuset = parseCpuList(cpusetRaw);
    if (cpuset === null) fail(`${key}_CPUSET=${cpusetRaw} is not a CPU list (e.g. 0, 0-1 or 0,2)`);
    if (cpus !== null && cpus > cpuset.length) {
      fail(`${key}_CPUS=${cpusRaw} is more than its ${cpuset.length} CPU(s) in ${key}_CPUSET=${cpusetRaw} can give: lower the quota or widen the set`);
    }
  }
  const cpuWeight = cpuWeightOf(`${key}_CPU_WEIGHT`, value, fail);
  const heapKey = value(`${key}_HEAP`) ? `${key}_HEAP` : 'ES_HEAP';
  const heap = value(heapKey) || null;
  const memRaw = value(`${key}_MEM`) || '';
  let memBytes = null;
  if (memRaw !== '') {
    memBytes = sizeBytes(memRaw);
    if (memBytes === null) fail(`${key}_MEM=${memRaw} is not a memory size (e.g. 1536m or 2g)`);
    const heapBytes = sizeBytes(heap);
    if (heapBytes === null) fail(`${heapKey}=${heap} is not a heap size (e.g. 512m or 1g), and ${key}_MEM needs one to compare with`);
    // The JVM takes the heap, direct buffers up to half the heap (the launcher's
    // MaxDirectMemorySize) and its own overhead: below heap x 1.5 the node is killed under load
    const floor = Math.ceil((heapBytes * 1.5) / 1024 ** 2);
    if (memBytes < floor * 1024 ** 2) {
      fail(`${key}_MEM=${memRaw} is ${memBytes <= heapBytes ? 'not above' : 'too close to'} the heap (${heapKey}=${heap}): give ${name} at least ${floor}m (heap + half of it for direct memory), or a smaller heap`);
    }
  }
  return { cpus, cpuset, cpuWeight, mem: memRaw || null, memBytes, heap, heapBytes: sizeBytes(heap) };
}

/**
 * A lab of another shape, as lab.env keys over `env` (an experiment's `lab:`): the master of
 * `env` kept with its ports, then `groups` index groups g1..gN of `dataNodesPerGroup` data nodes
 * es-data-1..M (data,ingest; HTTP and transport ports after the master's: +1, +2, ...), each
 * data node sized by `dataNode` ({ cpus, cpuset, cpu_weight, mem, heap }, all optional), SHAPE =
 * `shape`, and the load engine weighed by `loadEngine` ({ cpu_weight }: LOAD_CPU_WEIGHT).
 * Unset parts keep `env`'s lab. Returns only the keys to set; topology() of the merged result
 * is the check.
 */
export function labTopologyEnv({ groups, dataNodesPerGroup, shape, dataNode, loadEngine } = {}, env = {}) {
  const out = {};
  if (shape !== undefined) out.SHAPE = shape;
  if (loadEngine?.cpu_weight !== undefined) out.LOAD_CPU_WEIGHT = String(loadEngine.cpu_weight);
  if (groups === undefined && dataNodesPerGroup === undefined && dataNode === undefined) return out;
  const master = String(env.LAB_MASTER_NODE ?? 'es-master');
  const mkey = nodeKey(master);
  const http = Number(env[`${mkey}_HTTP_PORT`] ?? 9200);
  const transport = Number(env[`${mkey}_TRANSPORT_PORT`] ?? 9300);
  // the lab's own layout when only the sizes change: its data nodes and their groups
  const current = String(env.LAB_NODES ?? '').split(',').filter((n) => n && n !== master);
  const g = groups ?? new Set(current.map((n) => env[`${nodeKey(n)}_GROUP`])).size;
  const per = dataNodesPerGroup ?? Math.max(1, Math.round(current.length / Math.max(1, g)));
  const names = [master];
  for (let i = 1; i <= g * per; i++) {
    const name = `es-data-${i}`;
    const key = nodeKey(name);
    names.push(name);
    out[`${key}_ROLES`] = 'data,ingest';
    out[`${key}_GROUP`] = `g${Math.ceil(i / per)}`;
    out[`${key}_HTTP_PORT`] = String(http + i);
    out[`${key}_TRANSPORT_PORT`] = String(transport + i);
    for (const [field, suffix] of [['cpus', 'CPUS'], ['cpuset', 'CPUSET'], ['cpu_weight', 'CPU_WEIGHT'], ['mem', 'MEM'], ['heap', 'HEAP']]) {
      out[`${key}_${suffix}`] = dataNode?.[field] === undefined ? '' : String(dataNode[field]);
    }
  }
  out.LAB_NODES = names.join(',');
  return out;
}
