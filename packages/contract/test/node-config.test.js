// The one node-config source (src/node-config.js): every node's settings, JVM options and limits,
// one function with a variant per runtime, and its shell door (bin/node-config).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { parseLabEnv } from '../src/lab-env.js';
import { AOT_TRAINING_NODE, aotTrainingConfig, appliedEnv, appliedKey, cgroupWeights, halfHeapMb, jvmOptions, LAUNCHER_MAIN, nodeConfigs, shellLines } from '../src/node-config.js';
import { describeShape, resolveShape } from '../src/shape.js';
import { topology, TopologyError } from '../src/topology.js';

const cli = new URL('../bin/node-config', import.meta.url).pathname;
const labEnv = parseLabEnv(readFileSync(new URL('../../../lab.env', import.meta.url), 'utf8'));
const dirs = { lab: '/lab', dist: '/dist', data: '/lab/data', logs: '/lab/logs' };
const configs = (runtime, extra = {}, cpus = [0, 1]) => {
  const env = { ...labEnv, ...extra };
  const model = topology(env);
  return nodeConfigs(model, env, runtime, { resolved: resolveShape(model, cpus), dirs });
};
const byName = (list) => Object.fromEntries(list.map((c) => [c.name, c]));

test('native: every setting the launcher takes, in order, from lab.env and the shape', () => {
  const c = byName(configs('native', { ES_DATA_1_CPUS: '0.5', ES_DATA_1_CPU_WEIGHT: '1000', ES_DATA_1_MEM: '1g', ES_DATA_1_HEAP: '600m' }));
  const want = {
    'cluster.name': labEnv.CLUSTER_NAME,
    'node.name': 'es-data-1',
    'node.roles': ['data', 'ingest'],
    'node.attr.index_group': 'g1',
    'path.home': '/dist',
    'path.data': '/lab/data/es-data-1',
    'path.logs': '/lab/logs/es-data-1',
    'network.host': labEnv.LAB_BIND,
    'http.port': Number(labEnv.ES_DATA_1_HTTP_PORT),
    'transport.port': Number(labEnv.ES_DATA_1_TRANSPORT_PORT),
    'discovery.seed_hosts': `${labEnv.LAB_BIND}:${labEnv.ES_MASTER_TRANSPORT_PORT}`,
    'cluster.initial_master_nodes': 'es-master',
    'cluster.routing.allocation.disk.watermark.low': labEnv.ES_DISK_WATERMARK_LOW,
    'cluster.routing.allocation.disk.watermark.high': labEnv.ES_DISK_WATERMARK_HIGH,
    'cluster.routing.allocation.disk.watermark.flood_stage': labEnv.ES_DISK_WATERMARK_FLOOD,
    'thread_pool.write.queue_size': Number(labEnv.ES_WRITE_QUEUE),
    'indices.recovery.max_bytes_per_sec': labEnv.ES_RECOVERY_MAX_BYTES_PER_SEC,
    'node.processors': 0.5,
  };
  assert.deepEqual(c['es-data-1'].settings, want);
  assert.deepEqual(Object.keys(c['es-data-1'].settings), Object.keys(want));
  // the master: no group attribute; every CPU of the machine
  assert.equal(Object.keys(c['es-master'].settings).some((k) => k.startsWith('node.attr.')), false);
  assert.equal(c['es-master'].settings['node.processors'], 2);
  assert.deepEqual(c['es-data-1'].limits, { cpuset: '0', cpus: 0.5, cpuWeight: 1000, memBytes: 1024 ** 3 });
  assert.deepEqual(c['es-master'].limits, { cpuset: null, cpus: null, cpuWeight: null, memBytes: null });
  const jvm = c['es-data-1'].jvm;
  assert.deepEqual(jvm.slice(0, 4), ['-Dtenantlab.lab=/lab', '-Xms600m', '-Xmx600m', '-XX:MaxDirectMemorySize=300m']);
  assert.ok(jvm.includes('-Djava.io.tmpdir=/lab/tmp/es-data-1'));
  assert.deepEqual(jvm.slice(-4), ['--module-path=/dist/lib', '--add-modules=ALL-MODULE-PATH', '-cp', '/dist/launcher/*']);
});

test('SHAPE=off: no limits, no node.processors; ES_WRITE_QUEUE defaults to 10000', () => {
  const c = byName(configs('native', { SHAPE: 'off', ES_DATA_1_CPUS: '0.5', ES_DATA_1_CPU_WEIGHT: '1000', ES_WRITE_QUEUE: '' }));
  assert.equal('node.processors' in c['es-data-1'].settings, false);
  assert.deepEqual(c['es-data-1'].limits, { cpuset: null, cpus: null, cpuWeight: null, memBytes: null });
  assert.equal(c['es-data-1'].settings['thread_pool.write.queue_size'], 10000);
});

test('compose: the same settings as references to lab.env and to the run-time sizes', () => {
  const c = byName(configs('compose'));
  const d = c['es-data-1'];
  assert.deepEqual(d.settings, {
    'cluster.name': '${CLUSTER_NAME}',
    'node.name': 'es-data-1',
    'node.roles': '${ES_DATA_1_ROLES}',
    'node.attr.${LAB_GROUP_ATTR}': '${ES_DATA_1_GROUP}',
    'network.host': '0.0.0.0',
    'discovery.seed_hosts': '${LAB_MASTER_NODE}',
    'cluster.initial_master_nodes': '${LAB_MASTER_NODE}',
    'cluster.routing.allocation.disk.watermark.low': '${ES_DISK_WATERMARK_LOW}',
    'cluster.routing.allocation.disk.watermark.high': '${ES_DISK_WATERMARK_HIGH}',
    'cluster.routing.allocation.disk.watermark.flood_stage': '${ES_DISK_WATERMARK_FLOOD}',
    'thread_pool.write.queue_size': '${ES_WRITE_QUEUE}',
    'indices.recovery.max_bytes_per_sec': '${ES_RECOVERY_MAX_BYTES_PER_SEC}',
    'node.processors': '${ES_DATA_1_PROCESSORS_APPLIED:-}',
  });
  assert.deepEqual(d.optional, ['node.processors']);
  assert.deepEqual(d.jvm, ['-Xms${ES_DATA_1_HEAP_APPLIED:-${ES_HEAP}}', '-Xmx${ES_DATA_1_HEAP_APPLIED:-${ES_HEAP}}']);
  assert.deepEqual(d.limits, { cpuset: '${ES_DATA_1_CPUSET_APPLIED:-}', cpus: '${ES_DATA_1_CPUS_APPLIED:-0}', cpuWeight: '${ES_DATA_1_CPU_SHARES_APPLIED:-0}', memBytes: '${ES_DATA_1_MEM_APPLIED:-0}' });
});

test('compose: every run-time reference is a key appliedEnv sets, with the native sizes as values', () => {
  const env = { ...labEnv, ES_DATA_1_CPUS: '0.5', ES_DATA_1_MEM: '1g', ES_DATA_2_HEAP: '600m' };
  const model = topology(env);
  const resolved = resolveShape(model, [0, 1]);
  const applied = appliedEnv(resolved);
  const text = JSON.stringify(nodeConfigs(model, env, 'compose'));
  for (const [, key] of text.matchAll(/\$\{([A-Z0-9_]+_APPLIED)/g)) assert.ok(key in applied, key);
  assert.equal(applied.SHAPE_APPLIED, describeShape(resolved));
  assert.equal(applied[appliedKey('ES_DATA_1', 'CPUS')], '0.5');
  assert.equal(applied.ES_DATA_1_MEM_APPLIED, String(1024 ** 3));
  assert.equal(applied.ES_DATA_1_CPUSET_APPLIED, '0');
  assert.equal(applied.ES_MASTER_CPUSET_APPLIED, '');
  assert.equal(applied.ES_DATA_2_HEAP_APPLIED, '600m');
  assert.equal(applied.ES_DATA_1_PROCESSORS_APPLIED, '0.5');
  // the local image's launcher options: native's list with the image's paths and the node's heap
  assert.equal(applied.ES_DATA_2_JVM_OPTIONS_APPLIED, jvmOptions('600m', 'launcher', { labDir: '/usr/share/elasticsearch', dist: '/usr/share/elasticsearch', tmp: '/usr/share/elasticsearch/tmp' }).join(' '));
  assert.match(applied.ES_DATA_2_JVM_OPTIONS_APPLIED, /-Xmx600m -XX:MaxDirectMemorySize=300m .* --module-path=\/usr\/share\/elasticsearch\/lib /);
});

test('k8s: what ECK does not set itself, sizes as declared, no mmap', () => {
  const c = byName(configs('k8s', { ES_DATA_3_CPUS: '1', ES_DATA_3_MEM: '1536m', ES_DATA_3_CPUSET: '1' }));
  assert.deepEqual(c['es-data-3'].settings, {
    'node.roles': ['data', 'ingest'],
    'node.attr.index_group': 'g2',
    'cluster.routing.allocation.disk.watermark.low': labEnv.ES_DISK_WATERMARK_LOW,
    'cluster.routing.allocation.disk.watermark.high': labEnv.ES_DISK_WATERMARK_HIGH,
    'cluster.routing.allocation.disk.watermark.flood_stage': labEnv.ES_DISK_WATERMARK_FLOOD,
    'thread_pool.write.queue_size': Number(labEnv.ES_WRITE_QUEUE),
    'indices.recovery.max_bytes_per_sec': labEnv.ES_RECOVERY_MAX_BYTES_PER_SEC,
    'node.store.allow_mmap': false,
  });
  assert.deepEqual(c['es-data-3'].limits, { cpuset: null, cpus: 1, cpuWeight: null, memBytes: 1536 * 1024 ** 2 });
  assert.deepEqual(c['es-data-3'].jvm, [`-Xms${labEnv.ES_HEAP}`, `-Xmx${labEnv.ES_HEAP}`]);
  assert.deepEqual(byName(configs('k8s', { SHAPE: 'off', ES_DATA_3_CPUS: '1' }))['es-data-3'].limits, { cpuset: null, cpus: null, cpuWeight: null, memBytes: null });
});

test('one setting, three runtimes: what every variant shares comes from one place', () => {
  const extra = { ES_WRITE_QUEUE: '4242', ES_DISK_WATERMARK_LOW: '3gb', ES_DATA_2_ROLES: 'data' };
  const native = byName(configs('native', extra));
  const k8s = byName(configs('k8s', extra));
  assert.equal(native['es-data-2'].settings['thread_pool.write.queue_size'], 4242);
  assert.equal(k8s['es-data-2'].settings['thread_pool.write.queue_size'], 4242);
  assert.equal(native['es-data-2'].settings['cluster.routing.allocation.disk.watermark.low'], '3gb');
  assert.deepEqual(k8s['es-data-2'].settings['node.roles'], ['data']);
  // compose names the keys: Compose reads the same values from lab.env at run time
  const compose = byName(configs('compose', extra));
  assert.equal(compose['es-data-2'].settings['thread_pool.write.queue_size'], '${ES_WRITE_QUEUE}');
  // the same keys in the same order, less what the platform sets itself
  const keys = (c) => Object.keys(c['es-data-2'].settings).map((k) => k.replace('${LAB_GROUP_ATTR}', 'index_group'));
  const eckOwns = ['cluster.name', 'node.name', 'path.home', 'path.data', 'path.logs', 'network.host', 'http.port', 'transport.port', 'discovery.seed_hosts', 'cluster.initial_master_nodes'];
  assert.deepEqual(keys(k8s), [...keys(native).filter((k) => !eckOwns.includes(k) && k !== 'node.processors'), 'node.store.allow_mmap']);
  assert.deepEqual(keys(compose), keys(native).filter((k) => !/^(path\..*|http\.port|transport\.port)$/.test(k)));
});

test('the heap: half of it caps direct memory; a missing heap is one line naming the key', () => {
  assert.equal(halfHeapMb('512m'), 256);
  assert.equal(halfHeapMb('1g'), 512);
  assert.equal(halfHeapMb('1536m'), 768);
  assert.equal(halfHeapMb('2147483648'), 1024);
  assert.equal(halfHeapMb('lots'), 256);
  assert.deepEqual(jvmOptions('1g', 'heap'), ['-Xms1g', '-Xmx1g']);
  assert.throws(() => jvmOptions('1g', 'other'), /unknown flavour/);
  assert.throws(() => configs('native', { ES_HEAP: '' }), (err) => err instanceof TopologyError && /ES_HEAP is missing/.test(err.message));
  assert.throws(() => nodeConfigs(topology(labEnv), labEnv, 'swarm'), /unknown runtime 'swarm'/);
});

test('ES_RECOVERY_MAX_BYTES_PER_SEC: every node\'s recovery rate in every runtime; missing is Elasticsearch\'s 40mb; not a byte rate is one line naming the key', () => {
  for (const runtime of ['native', 'k8s']) {
    assert.equal(byName(configs(runtime, { ES_RECOVERY_MAX_BYTES_PER_SEC: '250mb' }))['es-data-1'].settings['indices.recovery.max_bytes_per_sec'], '250mb');
    assert.equal(byName(configs(runtime, { ES_RECOVERY_MAX_BYTES_PER_SEC: '' }))['es-master'].settings['indices.recovery.max_bytes_per_sec'], '40mb');
  }
  for (const runtime of ['native', 'compose', 'k8s']) {
    assert.throws(() => configs(runtime, { ES_RECOVERY_MAX_BYTES_PER_SEC: 'fast' }), (err) => err instanceof TopologyError && /ES_RECOVERY_MAX_BYTES_PER_SEC=fast: want a byte rate/.test(err.message) && !err.message.includes('\n'));
  }
});

test('shellLines: NODE FIELD VALUE lines, the java command line in order, the limits', () => {
  const env = { ...labEnv, ES_DATA_1_CPUS: '0.5' };
  const model = topology(env);
  const resolved = resolveShape(model, [0, 1]);
  const text = shellLines(nodeConfigs(model, env, 'native', { resolved, dirs }), describeShape(resolved));
  const rows = text.trimEnd().split('\n').map((l) => l.split('\t'));
  assert.ok(rows.every((r) => r.length === 3), 'three fields a line');
  assert.deepEqual(rows[0], ['*', 'shape', describeShape(resolved)]);
  const of = (node, ...fields) => rows.filter((r) => r[0] === node && fields.includes(r[1])).map((r) => r[2]);
  const java = of('es-data-1', 'jvm', 'main', 'setting');
  assert.equal(java[of('es-data-1', 'jvm').length], LAUNCHER_MAIN);
  assert.ok(java.includes('node.roles=data,ingest'));
  assert.deepEqual([...of('es-data-1', 'cpuset'), ...of('es-data-1', 'cpus'), ...of('es-data-1', 'mem')], ['0', '0.5', '0']);
  assert.deepEqual([...of('es-master', 'cpuset'), ...of('es-master', 'cpus')], ['', '0']);
  // nothing weighted: the lab's group weighs one process (on both scales), no load engine group
  assert.deepEqual(of('*', 'lab_cpu_weight', 'lab_cpu_shares', 'load_cpu_weight', 'load_cpu_shares'), ['100', '1024', '0', '0']);
  assert.deepEqual(of('es-data-1', 'cpu_weight', 'cpu_shares'), ['0', '0']);
});

test('cgroupWeights: the lab weighs the sum of its nodes\' and the load engine\'s, one process when nothing is weighted; shellLines says both scales', () => {
  const weights = (extra, load = null) => {
    const env = { ...labEnv, ...extra };
    const model = topology(env);
    const configs = nodeConfigs(model, env, 'native', { resolved: resolveShape(model, [0, 1]), dirs });
    return { configs, weights: cgroupWeights(configs, load) };
  };
  assert.deepEqual(weights({}).weights, { lab: 100, load: null });
  // lab.env's five nodes: es-data-1 at 1000, the four others 100 each
  assert.deepEqual(weights({ ES_DATA_1_CPU_WEIGHT: '1000' }).weights, { lab: 1400, load: null });
  // the load engine alone weighs the lab too: its group is inside the lab's
  assert.deepEqual(weights({}, 500).weights, { lab: 1000, load: 500 });
  const all = { ES_DATA_1_CPU_WEIGHT: '1000', ES_DATA_2_CPU_WEIGHT: '1000', ES_DATA_3_CPU_WEIGHT: '1000', ES_DATA_4_CPU_WEIGHT: '1000' };
  assert.deepEqual(weights(all, 1000).weights, { lab: 5100, load: 1000 });
  // cgroup v2 takes at most 10000
  assert.deepEqual(weights({ ES_DATA_1_CPU_WEIGHT: '9000', ES_DATA_2_CPU_WEIGHT: '9000' }).weights.lab, 10000);
  const { configs, weights: w } = weights(all, 1000);
  const rows = shellLines(configs, 'd', w).trimEnd().split('\n').map((l) => l.split('\t'));
  const of = (node, ...fields) => rows.filter((r) => r[0] === node && fields.includes(r[1])).map((r) => r[2]);
  assert.deepEqual(of('*', 'lab_cpu_weight', 'lab_cpu_shares', 'load_cpu_weight', 'load_cpu_shares'), ['5100', '52224', '1000', '10240']);
  assert.deepEqual(of('es-data-3', 'cpu_weight', 'cpu_shares'), ['1000', '10240']);
});

test('the AOT training node: the master\'s JVM options, a single-node cluster of its own, ports no lab node uses, no limits', () => {
  const env = { ...labEnv, ES_MASTER_HEAP: '700m' };
  const model = topology(env);
  const resolved = resolveShape(model, [0, 1]);
  const nodes = nodeConfigs(model, env, 'native', { resolved, dirs });
  const t = aotTrainingConfig(nodes, model, env, { dirs });
  const master = byName(nodes)['es-master'];
  assert.equal(t.name, AOT_TRAINING_NODE);
  // the cache serves JVMs of the same options: the master's, but its own temp folder
  const tmp = (o) => o.startsWith('-Djava.io.tmpdir=');
  assert.deepEqual(t.jvm.filter((o) => !tmp(o)), master.jvm.filter((o) => !tmp(o)));
  assert.ok(t.jvm.includes(`-Djava.io.tmpdir=/lab/tmp/${AOT_TRAINING_NODE}/tmp`));
  assert.equal(t.settings['discovery.type'], 'single-node');
  assert.notEqual(t.settings['cluster.name'], labEnv.CLUSTER_NAME);
  assert.equal('discovery.seed_hosts' in t.settings, false);
  assert.equal(t.settings['network.host'], labEnv.LAB_BIND);
  assert.equal(t.settings['path.data'], `/lab/tmp/${AOT_TRAINING_NODE}/data`);
  // ranges (the first free port of each) clear of every lab port
  const ports = Object.entries(labEnv).filter(([k]) => k.endsWith('_PORT')).map(([, v]) => Number(v));
  for (const key of ['http.port', 'transport.port']) {
    const [lo, hi] = t.settings[key].split('-').map(Number);
    assert.ok(lo < hi && ports.every((p) => p < lo || p > hi), `${key} ${t.settings[key]}`);
  }
  assert.deepEqual(t.limits, { cpuset: null, cpus: null, cpuWeight: null, memBytes: null });
  // bin/node-config native lists it after the lab's nodes
  const text = shellLines([...nodes, t], describeShape(resolved));
  assert.match(text, new RegExp(`^${AOT_TRAINING_NODE}\tsetting\tdiscovery\.type=single-node$`, 'm'));
});

const run = (args, env) => spawnSync(process.execPath, [cli, ...args], { env: { PATH: process.env.PATH, ...env }, encoding: 'utf8' });

test('bin/node-config: native lines, compose\'s run-time env, JSON; bad input one line, exit 2', () => {
  const file = join(mkdtempSync(join(tmpdir(), 'node-config-')), 'lab.env');
  writeFileSync(file, Object.entries(labEnv).map(([k, v]) => `${k}=${v}\n`).join(''));
  const native = ['native', '--lab-dir', '/lab', '--dist', '/dist', '--data', '/lab/data', '--logs', '/lab/logs', '--cpus', '0-1'];
  let r = run(native, { LAB_ENV_FILE: file, ES_WRITE_QUEUE: '777' });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^es-data-3\tsetting\tthread_pool\.write\.queue_size=777$/m);
  assert.match(r.stdout, /^es-data-3\tcpuset\t1$/m);
  assert.match(r.stdout, /^aot-training\tmain\torg\.tenantlab\.nativeruntime\.LabNode$/m);
  r = run(['env', '--cpus', '0-3'], { LAB_ENV_FILE: file });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^ES_DATA_4_CPUSET_APPLIED=2-3$/m);
  assert.match(r.stdout, /^SHAPE_APPLIED=SHAPE=groups on CPUs 0-3: /m);
  r = run(['json', 'k8s', '--cpus', '0-1'], { LAB_ENV_FILE: file });
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout).nodes[0].settings['node.roles'], ['master']);
  r = run(['native', '--cpus', '0-1'], { LAB_ENV_FILE: file });
  assert.equal(r.status, 2);
  assert.match(r.stderr, /^error: native needs --lab-dir, --dist, --data, --logs; usage: /);
  r = run([...native.slice(0, -1), '0-x'], { LAB_ENV_FILE: file });
  assert.equal(r.status, 2);
  assert.match(r.stderr, /^error: --cpus 0-x is not a CPU list/);
  r = run(native, { LAB_ENV_FILE: file, ES_DATA_1_CPUSET: '5' });
  assert.equal(r.status, 2);
  assert.equal(r.stderr.trimEnd().split('\n').length, 1);
  assert.match(r.stderr, /ES_DATA_1_CPUSET=5: CPU 5 is not one this machine lets the lab use/);
  r = run(['bogus'], { LAB_ENV_FILE: file });
  assert.equal(r.status, 2);
  assert.match(r.stderr, /^error: unknown arguments 'bogus'; usage: node-config native/);
});
