// THE topology model. lab.env's node list and per-node keys are the only definition of the
// lab's Elasticsearch nodes; the compose generator (compose/render.js), the native runtime
// (through bin/topology, at `make up`) and any other consumer read the nodes from here, so a
// broken topology is the same one line, naming the lab.env key to fix, everywhere.
// No Node APIs here: k6 may import it.
//
// The keys: LAB_NODES (the list), LAB_MASTER_NODE, LAB_GROUP_ATTR, and per node NAME
// <KEY>_ROLES, <KEY>_GROUP (data nodes only), <KEY>_HTTP_PORT, <KEY>_TRANSPORT_PORT, where KEY
// is NAME upper-cased with '-' turned into '_' (es-data-1 -> ES_DATA_1).

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

export class TopologyError extends Error {
  constructor(file, message) {
    super(`error: ${file}: ${message}`);
    this.name = 'TopologyError';
    this.file = file;
  }
}

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
    };
  });

  const dataNodes = nodes.filter((n) => n.group !== null).map((n) => n.name);
  if (dataNodes.length === 0) fail(`LAB_NODES=${list} has no data node: give at least one node a data role and a group`);
  const groups = {};
  for (const n of nodes) if (n.group !== null) (groups[n.group] ??= []).push(n.name);

  return { nodes, master, groupAttr, groups, dataNodes };
}
