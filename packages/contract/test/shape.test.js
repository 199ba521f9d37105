import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { appliedEnv } from '../src/node-config.js';
import { describeShape, resolveShape } from '../src/shape.js';
import { formatCpuList, parseCpuList, sizeBytes, topology, TopologyError } from '../src/topology.js';

const cli = new URL('../bin/node-config', import.meta.url).pathname;

// The repository's layout: a master and two groups of two data nodes
const lab = (extra = {}) => {
  const env = { LAB_NODES: 'es-master,es-data-1,es-data-2,es-data-3,es-data-4', LAB_MASTER_NODE: 'es-master', LAB_GROUP_ATTR: 'index_group', ES_HEAP: '512m', ES_MASTER_ROLES: 'master', ES_MASTER_HTTP_PORT: '9200', ES_MASTER_TRANSPORT_PORT: '9300' };
  for (let i = 1; i <= 4; i++) {
    Object.assign(env, { [`ES_DATA_${i}_ROLES`]: 'data', [`ES_DATA_${i}_GROUP`]: i <= 2 ? 'g1' : 'g2', [`ES_DATA_${i}_HTTP_PORT`]: String(9200 + i), [`ES_DATA_${i}_TRANSPORT_PORT`]: String(9300 + i) });
  }
  return { ...env, ...extra };
};
const shapeOf = (extra, cpus = [0, 1]) => resolveShape(topology(lab(extra)), cpus);
const byName = (resolved) => Object.fromEntries(resolved.nodes.map((n) => [n.name, n]));

// one TopologyError line naming the key
const refuses = (fn, pattern) => assert.throws(fn, (err) => {
  assert.ok(err instanceof TopologyError, String(err));
  assert.doesNotMatch(err.message, /\n/);
  assert.match(err.message, pattern);
  return true;
});

test('sizes and CPU lists parse as the JVM, Compose and the kernel write them', () => {
  assert.equal(sizeBytes('512m'), 512 * 1024 ** 2);
  assert.equal(sizeBytes('2G'), 2 * 1024 ** 3);
  assert.equal(sizeBytes('1024'), 1024);
  for (const bad of ['', '1.5g', 'm', '12q', null]) assert.equal(sizeBytes(bad), null);
  assert.deepEqual(parseCpuList('0'), [0]);
  assert.deepEqual(parseCpuList('0,2-3,2'), [0, 2, 3]);
  for (const bad of ['', '1-0', 'a', '0,', '-1']) assert.equal(parseCpuList(bad), null);
  assert.equal(formatCpuList([0, 1, 2, 5, 7, 8]), '0-2,5,7-8');
});

test('the default shape on 2 CPUs: g1 on CPU 0, g2 on CPU 1, the master on both', () => {
  const r = shapeOf({});
  assert.equal(r.shape, 'groups');
  assert.deepEqual(r.slices, { g1: [0], g2: [1] });
  const n = byName(r);
  assert.deepEqual([n['es-data-1'].cpuset, n['es-data-2'].cpuset, n['es-data-3'].cpuset, n['es-data-4'].cpuset], [[0], [0], [1], [1]]);
  assert.equal(n['es-master'].cpuset, null);
  assert.equal(n['es-data-1'].processors, 1);
  assert.equal(n['es-master'].processors, 2);
  assert.equal(describeShape(r), 'SHAPE=groups on CPUs 0-1: g1 on CPU 0, g2 on CPU 1, es-master on every CPU');
});

test('slices on other machines: 4 and 3 CPUs split in order; more groups than CPUs share, with a note', () => {
  assert.deepEqual(shapeOf({}, [0, 1, 2, 3]).slices, { g1: [0, 1], g2: [2, 3] });
  assert.deepEqual(shapeOf({}, [0, 1, 2]).slices, { g1: [0], g2: [1, 2] });
  assert.deepEqual(shapeOf({}, [4, 5]).slices, { g1: [4], g2: [5] });
  const one = shapeOf({}, [0]);
  assert.deepEqual(one.slices, { g1: [0], g2: [0] });
  assert.match(one.notes[0], /2 index groups on 1 CPU\(s\): some groups share a CPU/);
});

test('per-node keys: a quota, an own CPU set, a CPU weight, a memory limit and a heap', () => {
  const n = byName(shapeOf({ ES_DATA_1_CPUS: '0.5', ES_DATA_1_CPU_WEIGHT: '1000', ES_DATA_1_MEM: '1g', ES_DATA_3_CPUSET: '0-1', ES_DATA_3_HEAP: '1g', ES_DATA_3_CPUS: '1.5' }));
  assert.deepEqual(n['es-data-1'], { name: 'es-data-1', key: 'ES_DATA_1', group: 'g1', cpuset: [0], cpus: 0.5, cpuWeight: 1000, memBytes: 1024 ** 3, mem: '1g', heap: '512m', processors: 0.5 });
  assert.equal(n['es-data-3'].cpuWeight, null);
  assert.deepEqual(n['es-data-3'].cpuset, [0, 1]);
  assert.equal(n['es-data-3'].processors, 1.5);
  assert.equal(n['es-data-3'].heap, '1g');
  const env = appliedEnv(shapeOf({ ES_DATA_1_CPUS: '0.5', ES_DATA_1_MEM: '1g', ES_DATA_1_CPU_WEIGHT: '1000' }));
  // Docker's cpu_shares on the kernel's scale (1024 one ordinary process); 0 the engine's default
  assert.equal(env.ES_DATA_1_CPU_SHARES_APPLIED, '10240');
  assert.equal(env.ES_MASTER_CPU_SHARES_APPLIED, '0');
  assert.equal(env.ES_DATA_1_CPUSET_APPLIED, '0');
  assert.equal(env.ES_DATA_1_CPUS_APPLIED, '0.5');
  assert.equal(env.ES_DATA_1_MEM_APPLIED, String(1024 ** 3));
  assert.equal(env.ES_MASTER_CPUSET_APPLIED, '');
  assert.equal(env.ES_MASTER_CPUS_APPLIED, '0');
  assert.equal(env.ES_MASTER_MEM_APPLIED, '0');
  assert.equal(env.ES_DATA_2_PROCESSORS_APPLIED, '1');
});

test('SHAPE=off: no limits at all and node.processors left to Elasticsearch', () => {
  const r = shapeOf({ SHAPE: 'off', ES_DATA_1_CPUS: '0.5', ES_DATA_1_CPUSET: '7' });
  assert.ok(r.nodes.every((n) => n.cpuset === null && n.cpus === null && n.memBytes === null && n.processors === null));
  assert.equal(appliedEnv(r).ES_DATA_1_PROCESSORS_APPLIED, '');
  assert.match(describeShape(r), /^SHAPE=off: no CPU or memory limits/);
});

test('bad values are one line each, naming the key', () => {
  refuses(() => shapeOf({ ES_DATA_1_CPUS: '4' }), /ES_DATA_1_CPUS=4 is more CPUs than this machine lets the lab use \(2: 0-1\)/);
  refuses(() => shapeOf({ ES_DATA_1_CPUS: '4', ES_DATA_1_CPUSET: '0-1' }), /ES_DATA_1_CPUS=4 is more than its 2 CPU\(s\) in ES_DATA_1_CPUSET=0-1/);
  refuses(() => shapeOf({ ES_DATA_1_CPUS: '1.5' }), /ES_DATA_1_CPUS=1.5 is more than the 1 CPU\(s\) es-data-1 runs on/);
  refuses(() => shapeOf({ ES_DATA_1_CPUSET: '0,2' }), /ES_DATA_1_CPUSET=0,2: CPU 2 is not one this machine lets the lab use \(0-1\)/);
  refuses(() => shapeOf({ ES_DATA_1_CPUSET: '0-x' }), /ES_DATA_1_CPUSET=0-x is not a CPU list/);
  refuses(() => shapeOf({ ES_DATA_1_CPUS: '0' }), /ES_DATA_1_CPUS=0: a quota of 0 would stop es-data-1/);
  for (const bad of ['0', '10001', '1.5', 'high', '-5']) {
    refuses(() => shapeOf({ ES_DATA_1_CPU_WEIGHT: bad }), new RegExp(`^error: lab.env: ES_DATA_1_CPU_WEIGHT=${bad.replace('.', '\\.')} is not a CPU weight: give a whole number from 1 to 10000`));
    refuses(() => shapeOf({ LOAD_CPU_WEIGHT: bad }), new RegExp(`^error: lab.env: LOAD_CPU_WEIGHT=${bad.replace('.', '\\.')} is not a CPU weight: give a whole number from 1 to 10000`));
  }
  refuses(() => shapeOf({ ES_DATA_1_CPUS: 'half' }), /ES_DATA_1_CPUS=half is not a number of cores/);
  refuses(() => shapeOf({ ES_DATA_1_MEM: '256m' }), /ES_DATA_1_MEM=256m is not above the heap \(ES_HEAP=512m\): give es-data-1 at least 768m/);
  refuses(() => shapeOf({ ES_DATA_1_MEM: '700m' }), /ES_DATA_1_MEM=700m is too close to the heap/);
  refuses(() => shapeOf({ ES_DATA_1_MEM: '1g', ES_DATA_1_HEAP: '1g' }), /ES_DATA_1_MEM=1g is not above the heap \(ES_DATA_1_HEAP=1g\)/);
  refuses(() => shapeOf({ ES_DATA_1_MEM: 'lots' }), /ES_DATA_1_MEM=lots is not a memory size/);
  refuses(() => shapeOf({ SHAPE: 'on' }), /SHAPE=on: use groups .* or off/);
});

const run = (args, env) => spawnSync(process.execPath, [cli, ...args], { env: { PATH: process.env.PATH, ...env }, encoding: 'utf8' });

test('bin/node-config env: KEY=VALUE lines for bash on the CPUs given; a bad value is one line, exit 2', () => {
  const file = join(mkdtempSync(join(tmpdir(), 'shape-')), 'lab.env');
  writeFileSync(file, Object.entries(lab()).map(([k, v]) => `${k}=${v}\n`).join(''));
  let r = run(['env', '--cpus', '0-3'], { LAB_ENV_FILE: file });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^SHAPE_APPLIED=SHAPE=groups on CPUs 0-3: g1 on CPU 0-1, g2 on CPU 2-3, es-master on every CPU$/m);
  assert.match(r.stdout, /^ES_DATA_4_CPUSET_APPLIED=2-3$/m);
  r = run(['env'], { LAB_ENV_FILE: file });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^ES_DATA_1_CPUSET_APPLIED=\d/m);
  r = run(['env', '--cpus', '0-1'], { LAB_ENV_FILE: file, ES_DATA_2_CPUSET: '5' });
  assert.equal(r.status, 2);
  assert.match(r.stderr, /^error: .*lab\.env: ES_DATA_2_CPUSET=5: CPU 5 is not one/);
  r = run(['env', '--cpus', 'x'], { LAB_ENV_FILE: file });
  assert.equal(r.status, 2);
  assert.match(r.stderr, /^error: --cpus x is not a CPU list/);
});
