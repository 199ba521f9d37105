// Unit tests of k8s/render.mjs's pure parts: the YAML writer (parsed back by the `yaml` package),
// memory quantities, and the nodeSets the topology model gives, with their one-line refusals.
// Run by tests/static/k8s.bats: node --test k8s/test/
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parse, parseAllDocuments } from 'yaml';
import { parseLabEnv } from '../../packages/contract/src/lab-env.js';
import { topology, TopologyError } from '../../packages/contract/src/topology.js';
import { nodeSets, note, quantity, renderK8s, yamlStream } from '../render.mjs';
import { readFileSync } from 'node:fs';

const labEnv = parseLabEnv(readFileSync(new URL('../../lab.env', import.meta.url), 'utf8'));
const model = (extra = {}) => topology({ ...labEnv, ...extra });

test('the YAML writer: what looks like another type stays a string, blocks keep their text', () => {
  const value = {
    version: '9.5.3', port: 8080, portText: '8080', yes: 'yes', empty: '', flag: false, nul: null,
    colon: 'a: b', hash: 'x #y', lead: '-Xms512m -Xmx512m', star: '*x', list: ['a', '1', 2, { k: 'v', w: ['x'] }],
    emptyList: [], emptyMap: {}, text: 'line 1\n  indented\n\nlast\n', noEol: 'a\nb', leadSpace: '  a\nb\n',
    'app.kubernetes.io/name': 'x', 'node.attr.index_group': 'g1',
  };
  const text = yamlStream([note({ ...value }, { version: 'a comment\nof two lines' })], 'header');
  const [doc] = parseAllDocuments(text).map((d) => d.toJS());
  assert.deepEqual(doc, value);
  assert.match(text, /^# header\n---\n# a comment\n# of two lines\nversion: "9.5.3"\n/);
});

test('long comments wrap at 100 columns', () => {
  const text = yamlStream([note({ a: 1 }, { a: 'word '.repeat(60).trim() })], 'h');
  for (const line of text.split('\n')) assert.ok(line.length <= 100, line);
});

test('memory: lab.env sizes (binary, 1536m = MiB) become exact binary quantities', () => {
  assert.equal(quantity(1536 * 1024 ** 2), '1536Mi');
  assert.equal(quantity(2 * 1024 ** 3), '2Gi');
  assert.equal(quantity(1000), '1000');
  assert.equal(quantity(3 * 1024), '3Ki');
});

test('nodeSets: the master alone, one per index group with its data nodes', () => {
  const sets = nodeSets(model());
  assert.deepEqual(sets.map((s) => [s.name, s.nodes.length, s.roles.join(',')]),
    [['es-master', 1, 'master'], ['g1', 2, 'data,ingest'], ['g2', 2, 'data,ingest']]);
});

test('nodeSets: a group of nodes of different sizes or roles is one line naming the keys', () => {
  assert.throws(() => nodeSets(model({ ES_DATA_1_CPUS: '0.5' })), (err) => err instanceof TopologyError
    && err.message === "error: lab.env: ES_DATA_1_CPUS=0.5 and ES_DATA_2_CPUS= differ: g1's nodes are one Kubernetes nodeSet, with one pod template: give every node of g1 the same size");
  assert.throws(() => nodeSets(model({ ES_DATA_3_MEM: '1g', ES_DATA_4_MEM: '2g' })), /ES_DATA_3_MEM=1g and ES_DATA_4_MEM=2g differ/);
  assert.throws(() => nodeSets(model({ ES_DATA_4_HEAP: '1g' })), /ES_DATA_3_HEAP=512m and ES_DATA_4_HEAP=1g differ/);
  assert.throws(() => nodeSets(model({ ES_DATA_2_ROLES: 'data' })), /ES_DATA_1_ROLES=data,ingest and ES_DATA_2_ROLES=data differ/);
  // the same size in two spellings is the same size
  assert.equal(nodeSets(model({ ES_DATA_1_MEM: '1g', ES_DATA_2_MEM: '1024m' }))[1].nodes.length, 2);
  // SHAPE=off applies no size: only the heap must agree
  assert.equal(nodeSets(model({ SHAPE: 'off', ES_DATA_1_CPUS: '0.5' }))[1].size.cpus, null);
});

test('rendered: sizes as requests = limits, CPUSET named as left out, SHAPE=off without resources', () => {
  const env = { ...labEnv, ES_DATA_3_CPUS: '1', ES_DATA_4_CPUS: '1', ES_DATA_3_MEM: '1536m', ES_DATA_4_MEM: '1536m', ES_DATA_3_CPUSET: '1' };
  const files = renderK8s(topology(env), env);
  const es = parse(files['10-elasticsearch.yaml']);
  const g2 = es.spec.nodeSets.find((s) => s.name === 'g2');
  const container = g2.podTemplate.spec.containers[0];
  assert.deepEqual(container.resources, { requests: { cpu: '1', memory: '1536Mi' }, limits: { cpu: '1', memory: '1536Mi' } });
  assert.equal(g2.config['node.attr.index_group'], 'g2');
  assert.match(files['10-elasticsearch.yaml'], /left out: ES_DATA_3_CPUSET/);
  const off = { ...env, SHAPE: 'off' };
  const g2off = parse(renderK8s(topology(off), off)['10-elasticsearch.yaml']).spec.nodeSets.find((s) => s.name === 'g2');
  assert.equal(g2off.podTemplate.spec.containers[0].resources, undefined);
});

test('no secret is ever a literal: every password comes from ECK\'s secret', () => {
  const files = renderK8s(model(), labEnv);
  for (const [name, text] of Object.entries(files)) {
    for (const doc of parseAllDocuments(text).map((d) => d.toJS())) {
      const walk = (v) => {
        if (Array.isArray(v)) return v.forEach(walk);
        if (!v || typeof v !== 'object') return undefined;
        if (/PASSWORD|API_KEY/.test(v.name ?? '') && 'value' in v) assert.fail(`${name}: ${v.name} has a literal value`);
        if (v.name === 'ES_PASSWORD') assert.deepEqual(v.valueFrom, { secretKeyRef: { name: 'tenantlab-es-elastic-user', key: 'elastic' } });
        return Object.values(v).forEach(walk);
      };
      walk(doc);
    }
  }
});

test('bad K8S_ values are one line naming the key', () => {
  assert.throws(() => renderK8s(model(), { ...labEnv, K8S_DATA_VOLUME: '10GB' }), /^TopologyError: error: lab\.env: K8S_DATA_VOLUME=10GB: want a Kubernetes quantity/);
  assert.throws(() => renderK8s(model(), { ...labEnv, K8S_NAMESPACE: '' }), /K8S_NAMESPACE is missing/);
  assert.throws(() => renderK8s(model({ ES_DATA_1_GROUP: 'hot_1', ES_DATA_2_GROUP: 'hot_1' }), labEnv), /ES_DATA_1_GROUP=hot_1 cannot name a Kubernetes nodeSet/);
});
