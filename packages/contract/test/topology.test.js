import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { labRoot } from '../src/lab-env-file.js';
import { parseLabEnv } from '../src/lab-env.js';
import { isDataRole, nodeKey, topology, TopologyError } from '../src/topology.js';

const cli = new URL('../bin/topology', import.meta.url).pathname;

// A small valid topology: a master and two data nodes in one group
const base = () => ({
  LAB_NODES: 'es-master,es-data-1,es-data-2',
  LAB_MASTER_NODE: 'es-master',
  LAB_GROUP_ATTR: 'index_group',
  ES_MASTER_ROLES: 'master',
  ES_MASTER_HTTP_PORT: '9200',
  ES_MASTER_TRANSPORT_PORT: '9300',
  ES_DATA_1_ROLES: 'data,ingest',
  ES_DATA_1_GROUP: 'g1',
  ES_DATA_1_HTTP_PORT: '9201',
  ES_DATA_1_TRANSPORT_PORT: '9301',
  ES_DATA_2_ROLES: 'data,ingest',
  ES_DATA_2_GROUP: 'g1',
  ES_DATA_2_HTTP_PORT: '9202',
  ES_DATA_2_TRANSPORT_PORT: '9302',
});

// rejects(env, pattern): topology(env) throws one TopologyError line matching pattern
const rejects = (env, pattern) => {
  assert.throws(() => topology(env, { file: 'x/lab.env' }), (err) => {
    assert.ok(err instanceof TopologyError, `not a TopologyError: ${err}`);
    assert.match(err.message, /^error: x\/lab\.env: /);
    assert.doesNotMatch(err.message, /\n/, 'one line');
    assert.match(err.message, pattern);
    return true;
  });
};

test('node keys: upper case, "-" -> "_"', () => {
  assert.equal(nodeKey('es-data-1'), 'ES_DATA_1');
  assert.equal(nodeKey('es-master'), 'ES_MASTER');
});

test('data roles are data and data_*', () => {
  assert.ok(isDataRole('data') && isDataRole('data_hot') && isDataRole('data_content'));
  assert.ok(!isDataRole('master') && !isDataRole('ingest'));
});

test('the model: nodes in order with roles, group, ports; groups and data nodes', () => {
  const size = { cpus: null, cpuset: null, cpuWeight: null, mem: null, memBytes: null, heap: null, heapBytes: null };
  assert.deepEqual(topology(base()), {
    nodes: [
      { name: 'es-master', key: 'ES_MASTER', roles: ['master'], group: null, httpPort: 9200, transportPort: 9300, size },
      { name: 'es-data-1', key: 'ES_DATA_1', roles: ['data', 'ingest'], group: 'g1', httpPort: 9201, transportPort: 9301, size },
      { name: 'es-data-2', key: 'ES_DATA_2', roles: ['data', 'ingest'], group: 'g1', httpPort: 9202, transportPort: 9302, size },
    ],
    master: 'es-master',
    groupAttr: 'index_group',
    groups: { g1: ['es-data-1', 'es-data-2'] },
    dataNodes: ['es-data-1', 'es-data-2'],
    shape: 'groups',
    loadCpuWeight: null,
  });
  assert.equal(topology({ ...base(), LOAD_CPU_WEIGHT: '1000' }).loadCpuWeight, 1000);
});

test("the repository's lab.env: a master and four data nodes in two groups", () => {
  const m = topology(parseLabEnv(readFileSync(join(labRoot, 'lab.env'), 'utf8')));
  assert.equal(m.master, 'es-master');
  assert.deepEqual(m.groups, { g1: ['es-data-1', 'es-data-2'], g2: ['es-data-3', 'es-data-4'] });
  assert.equal(m.nodes.length, 5);
});

test('three groups of two data nodes, and a single data node', () => {
  const env = base();
  env.LAB_NODES = 'es-master,es-data-1,es-data-2,es-data-3,es-data-4,es-data-5,es-data-6';
  for (let i = 1; i <= 6; i++) {
    Object.assign(env, {
      [`ES_DATA_${i}_ROLES`]: 'data,ingest',
      [`ES_DATA_${i}_GROUP`]: `g${Math.ceil(i / 2)}`,
      [`ES_DATA_${i}_HTTP_PORT`]: String(9200 + i),
      [`ES_DATA_${i}_TRANSPORT_PORT`]: String(9300 + i),
    });
  }
  const m = topology(env);
  assert.deepEqual(m.groups, { g1: ['es-data-1', 'es-data-2'], g2: ['es-data-3', 'es-data-4'], g3: ['es-data-5', 'es-data-6'] });
  assert.equal(m.dataNodes.length, 6);

  const one = { ...base(), LAB_NODES: 'es-master,es-data-1' };
  assert.deepEqual(topology(one).groups, { g1: ['es-data-1'] });
  assert.deepEqual(topology(one).dataNodes, ['es-data-1']);
});

test('groups keep their first appearance; keys of unlisted nodes are ignored', () => {
  const env = { ...base(), ES_DATA_1_GROUP: 'hot', ES_DATA_2_GROUP: 'cold', ES_DATA_9_ROLES: 'bogus' };
  assert.deepEqual(Object.keys(topology(env).groups), ['hot', 'cold']);
});

test('a coordinating-only node (empty roles) and a master that also holds data are valid', () => {
  const env = { ...base(), ES_DATA_2_ROLES: '' };
  delete env.ES_DATA_2_GROUP;
  const m = topology(env);
  assert.deepEqual(m.nodes[2].roles, []);
  assert.equal(m.nodes[2].group, null);
  assert.deepEqual(m.dataNodes, ['es-data-1']);

  const both = { ...base(), ES_MASTER_ROLES: 'master,data', ES_MASTER_GROUP: 'g0' };
  assert.deepEqual(topology(both).groups, { g0: ['es-master'], g1: ['es-data-1', 'es-data-2'] });
});

test('a listed node without its keys names the missing key', () => {
  for (const suffix of ['ROLES', 'HTTP_PORT', 'TRANSPORT_PORT']) {
    const env = base();
    delete env[`ES_DATA_2_${suffix}`];
    rejects(env, new RegExp(`ES_DATA_2_${suffix} is missing: es-data-2 is in LAB_NODES`));
  }
  rejects({ ...base(), LAB_NODES: 'es-master,es-data-1,es-data-2,es-data-3' }, /ES_DATA_3_ROLES is missing/);
  rejects({ ...base(), ES_DATA_1_HTTP_PORT: '' }, /ES_DATA_1_HTTP_PORT is missing/);
});

test('a data node with no group names its GROUP key', () => {
  const env = base();
  delete env.ES_DATA_1_GROUP;
  rejects(env, /ES_DATA_1_GROUP is missing: es-data-1 holds data \(ES_DATA_1_ROLES=data,ingest\)/);
  rejects({ ...base(), ES_DATA_1_ROLES: 'data_hot', ES_DATA_1_GROUP: '' }, /ES_DATA_1_GROUP is missing/);
});

test('a group on a node without data is refused', () => {
  rejects({ ...base(), ES_MASTER_GROUP: 'g1' }, /ES_MASTER_GROUP=g1 is set but es-master holds no data \(ES_MASTER_ROLES=master\)/);
});

test('a port used twice names both keys', () => {
  rejects({ ...base(), ES_DATA_2_HTTP_PORT: '9201' }, /ES_DATA_2_HTTP_PORT=9201 is the port of ES_DATA_1_HTTP_PORT already/);
  rejects({ ...base(), ES_DATA_1_TRANSPORT_PORT: '9200' }, /ES_DATA_1_TRANSPORT_PORT=9200 is the port of ES_MASTER_HTTP_PORT already/);
});

test('a port that is not a number in 1-65535 is refused', () => {
  for (const bad of ['92o1', '0', '65536', '-1', '9201 ']) {
    rejects({ ...base(), ES_DATA_1_HTTP_PORT: bad }, /ES_DATA_1_HTTP_PORT=.* is not a port number/);
  }
});

test('the master must be listed and master-eligible', () => {
  rejects({ ...base(), LAB_MASTER_NODE: 'es-boss' }, /LAB_MASTER_NODE=es-boss is not in LAB_NODES \(es-master,es-data-1,es-data-2\)/);
  rejects({ ...base(), LAB_MASTER_NODE: '' }, /LAB_MASTER_NODE is missing/);
  rejects({ ...base(), ES_MASTER_ROLES: 'data' }, /ES_MASTER_ROLES=data must include master/);
});

test('an unknown role names the key and the role', () => {
  rejects({ ...base(), ES_DATA_1_ROLES: 'data,ingset' }, /ES_DATA_1_ROLES=data,ingset: unknown role 'ingset' \(known: master,/);
  rejects({ ...base(), ES_DATA_1_ROLES: 'data,,ingest' }, /unknown role ''/);
  rejects({ ...base(), ES_DATA_1_ROLES: 'ml,data' }, /unknown role 'ml'/);
});

test('the node list: present, names valid, no duplicates, at least one data node', () => {
  const noList = base();
  delete noList.LAB_NODES;
  rejects(noList, /LAB_NODES is missing or empty/);
  rejects({ ...base(), LAB_NODES: 'es-master,ES-DATA-1' }, /'ES-DATA-1' is not a node name/);
  rejects({ ...base(), LAB_NODES: 'es-master,,es-data-1' }, /'' is not a node name/);
  rejects({ ...base(), LAB_NODES: 'es-master,es_data_1' }, /'es_data_1' is not a node name/);
  rejects({ ...base(), LAB_NODES: 'es-master,es-data-1,es-data-1' }, /es-data-1 is listed twice/);
  rejects({ ...base(), LAB_NODES: 'es-master' }, /LAB_NODES=es-master has no data node/);
});

test('group and attribute names are checked', () => {
  rejects({ ...base(), ES_DATA_1_GROUP: 'G 1' }, /ES_DATA_1_GROUP=G 1 is not a group name/);
  rejects({ ...base(), LAB_GROUP_ATTR: 'index-group' }, /LAB_GROUP_ATTR=index-group is not an attribute name/);
  const noAttr = base();
  delete noAttr.LAB_GROUP_ATTR;
  rejects(noAttr, /LAB_GROUP_ATTR is missing/);
});

// The CLI bash uses, with a file of its own and a clean environment
const envFile = (values) => {
  const file = join(mkdtempSync(join(tmpdir(), 'topology-')), 'lab.env');
  writeFileSync(file, Object.entries(values).map(([k, v]) => `${k}=${v}\n`).join(''));
  return file;
};
const run = (args, env) => spawnSync(process.execPath, [cli, ...args], { env: { PATH: process.env.PATH, ...env }, encoding: 'utf8' });

test('bin/topology check: silent and 0 when valid; one line and exit 2 when not', () => {
  const file = envFile(base());
  let r = run(['check'], { LAB_ENV_FILE: file });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout + r.stderr, '');

  const broken = base();
  delete broken.ES_DATA_2_HTTP_PORT;
  r = run(['check'], { LAB_ENV_FILE: envFile(broken) });
  assert.equal(r.status, 2);
  assert.equal(r.stdout, '');
  assert.match(r.stderr, /^error: .*lab\.env: ES_DATA_2_HTTP_PORT is missing: es-data-2 is in LAB_NODES and needs it\n$/);

  // the environment wins over the file, as for every lab.env consumer
  r = run(['check'], { LAB_ENV_FILE: file, ES_DATA_1_HTTP_PORT: '9202' });
  assert.equal(r.status, 2);
  assert.match(r.stderr, /ES_DATA_2_HTTP_PORT=9202 is the port of ES_DATA_1_HTTP_PORT already/);
});

test('bin/topology json and nodes print the model', () => {
  const file = envFile(base());
  const r = run(['json'], { LAB_ENV_FILE: file });
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout), topology(base()));
  assert.equal(run(['nodes'], { LAB_ENV_FILE: file }).stdout, 'es-master\nes-data-1\nes-data-2\n');
});

test('bin/topology: bad usage, a missing file and a malformed line are one line, exit 2', () => {
  for (const args of [[], ['frobnicate'], ['check', 'extra'], ['shape']]) {
    const r = run(args, {});
    assert.equal(r.status, 2);
    assert.match(r.stderr, /^error: .*usage: topology check\|json\|nodes\n$/);
  }
  let r = run(['check'], { LAB_ENV_FILE: '/nonexistent/lab.env' });
  assert.equal(r.status, 2);
  assert.equal(r.stderr, 'error: /nonexistent/lab.env: no such file (LAB_ENV_FILE)\n');
  const file = envFile(base());
  writeFileSync(file, `${readFileSync(file, 'utf8')}BAD LINE\n`);
  r = run(['check'], { LAB_ENV_FILE: file });
  assert.equal(r.status, 2);
  assert.match(r.stderr, /^error: .*lab\.env:15: not a KEY=VALUE line: BAD LINE\n$/);
});
