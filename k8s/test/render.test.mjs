// Unit tests of k8s/render.mjs's pure parts: the YAML it writes with the `yaml` package (parsed back),
// memory quantities, the nodeSets the topology model gives, with their one-line refusals, and the
// Locust load (traffic/ as ConfigMaps, Prometheus' discovery of the workers).
// Run by tests/static/k8s.bats: node --test k8s/test/
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parse, parseAllDocuments } from 'yaml';
import { parseLabEnv } from '../../packages/contract/src/lab-env.js';
import { topology, TopologyError } from '../../packages/contract/src/topology.js';
import { nodeSets, note, quantity, renderK8s, trafficFiles, withLoadDiscovery, yamlStream } from '../render.mjs';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const labEnv = parseLabEnv(readFileSync(new URL('../../lab.env', import.meta.url), 'utf8'));
const model = (extra = {}) => topology({ ...labEnv, ...extra });
const sets = (extra = {}) => nodeSets(model(extra), { ...labEnv, ...extra });

test('the YAML: what looks like another type (YAML 1.1, as Kubernetes reads it) stays a string, blocks keep their text', () => {
  const value = {
    version: '9.5.3', port: 8080, portText: '8080', yes: 'yes', empty: '', flag: false, nul: null,
    colon: 'a: b', hash: 'x #y', lead: '-Xms512m -Xmx512m', star: '*x', list: ['a', '1', 2, { k: 'v', w: ['x'] }],
    emptyList: [], emptyMap: {}, text: 'line 1\n  indented\n\nlast\n', noEol: 'a\nb', leadSpace: '  a\nb\n',
    'app.kubernetes.io/name': 'x', 'node.attr.index_group': 'g1', on: 'off', sexagesimal: '1:20', ip: '127.0.0.1',
  };
  const text = yamlStream([note({ ...value }, { version: 'a comment\nof two lines' })], 'header');
  const [doc] = parseAllDocuments(text).map((d) => d.toJS());
  assert.deepEqual(doc, value);
  assert.deepEqual(parseAllDocuments(text, { version: '1.1' })[0].toJS(), value);
  assert.match(text, /^# header\n---\n# a comment\n# of two lines\nversion: 9\.5\.3\n/);
  assert.match(text, /^text: \|\n {2}line 1\n {4}indented\n\n {2}last\n/m);
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
  assert.deepEqual(sets().map((s) => [s.name, s.nodes.length, s.roles.join(',')]),
    [['es-master', 1, 'master'], ['g1', 2, 'data,ingest'], ['g2', 2, 'data,ingest']]);
});

test('nodeSets: a group of nodes of different sizes or roles is one line naming the keys', () => {
  assert.throws(() => sets({ ES_DATA_1_CPUS: '0.5' }), (err) => err instanceof TopologyError
    && err.message === "error: lab.env: ES_DATA_1_CPUS=0.5 and ES_DATA_2_CPUS= differ: g1's nodes are one Kubernetes nodeSet, with one pod template: give every node of g1 the same size");
  assert.throws(() => sets({ ES_DATA_3_MEM: '1g', ES_DATA_4_MEM: '2g' }), /ES_DATA_3_MEM=1g and ES_DATA_4_MEM=2g differ/);
  assert.throws(() => sets({ ES_DATA_4_HEAP: '1g' }), /ES_DATA_3_HEAP=512m and ES_DATA_4_HEAP=1g differ/);
  assert.throws(() => sets({ ES_DATA_2_ROLES: 'data' }), /ES_DATA_1_ROLES=data,ingest and ES_DATA_2_ROLES=data differ/);
  // the same size in two spellings is the same size
  assert.equal(sets({ ES_DATA_1_MEM: '1g', ES_DATA_2_MEM: '1024m' })[1].nodes.length, 2);
  // SHAPE=off applies no size: only the heap must agree
  assert.equal(sets({ SHAPE: 'off', ES_DATA_1_CPUS: '0.5' })[1].config.limits.cpus, null);
});

test('rendered: sizes as requests = limits, CPUSET and CPU_WEIGHT named as left out, SHAPE=off without resources', () => {
  const env = { ...labEnv, ES_DATA_3_CPUS: '1', ES_DATA_4_CPUS: '1', ES_DATA_3_MEM: '1536m', ES_DATA_4_MEM: '1536m', ES_DATA_3_CPUSET: '1', ES_DATA_1_CPU_WEIGHT: '1000' };
  const files = renderK8s(topology(env), env);
  const es = parse(files['10-elasticsearch.yaml']);
  const g2 = es.spec.nodeSets.find((s) => s.name === 'g2');
  const container = g2.podTemplate.spec.containers[0];
  assert.deepEqual(container.resources, { requests: { cpu: '1', memory: '1536Mi' }, limits: { cpu: '1', memory: '1536Mi' } });
  assert.equal(g2.config['node.attr.index_group'], 'g2');
  // the header's prose is wrapped at 100 columns: the list may start on the next comment line
  assert.match(files['10-elasticsearch.yaml'], /left out:\s*(?:#\s*)?ES_DATA_1_CPU_WEIGHT,\s*(?:#\s*)?ES_DATA_3_CPUSET\b/);
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

test('the load: K8S_LOAD_WORKERS workers share the rate, bad K8S_LOAD_ values are one line', () => {
  const env = { ...labEnv, K8S_LOAD_WORKERS: '4', K8S_LOAD_RATE: '50' };
  const docs = parseAllDocuments(renderK8s(model(), env)['load/storefront.yaml']).map((d) => d.toJS());
  const worker = docs.find((d) => d.kind === 'Deployment' && d.metadata.name === 'locust-worker');
  const master = docs.find((d) => d.kind === 'Deployment' && d.metadata.name === 'locust-master');
  const envOf = (d) => Object.fromEntries(d.spec.template.spec.containers[0].env.map((e) => [e.name, e.value]));
  assert.equal(worker.spec.replicas, 4);
  assert.equal(envOf(worker).LOAD_RATE_SHARE, '0.25');
  assert.equal(envOf(worker).RATE, '50');
  assert.ok(master.spec.template.spec.containers[0].args.includes('--expect-workers=4'));
  assert.equal(envOf(master).LOAD_METRICS_PORT, '0');
  assert.throws(() => renderK8s(model(), { ...labEnv, K8S_LOAD_WORKERS: '0' }), /K8S_LOAD_WORKERS=0: want the number of Locust worker pods/);
  assert.throws(() => renderK8s(model(), { ...labEnv, K8S_LOAD_DURATION: '5 min' }), /K8S_LOAD_DURATION=5 min: want a duration/);
  assert.throws(() => renderK8s(model(), { ...labEnv, K8S_LOCUST_IMAGE: '' }), /K8S_LOCUST_IMAGE is missing/);
});

test('traffic/ as ConfigMap data: *.py and lib/*.py only, the storefront required', () => {
  const dir = mkdtempSync(join(tmpdir(), 'traffic-'));
  mkdirSync(join(dir, 'lib'));
  writeFileSync(join(dir, 'run.sh'), '#!/bin/sh\n');
  writeFileSync(join(dir, 'lib', '__init__.py'), '');
  writeFileSync(join(dir, 'lib', 'config.py'), 'A = 1\n');
  assert.throws(() => trafficFiles(dir), (err) => err instanceof TopologyError && /no storefront\.py/.test(err.message));
  writeFileSync(join(dir, 'storefront.py'), 'from lib import config\n');
  assert.deepEqual(trafficFiles(dir), { locustfiles: { 'storefront.py': 'from lib import config\n' }, lib: { '__init__.py': '', 'config.py': 'A = 1\n' } });
  writeFileSync(join(dir, 'lib', 'big.py'), 'x'.repeat(1024 * 1024));
  assert.throws(() => trafficFiles(dir), /the lib are \d+ bytes, over a ConfigMap's 1 MiB/);
  rmSync(dir, { recursive: true });
});

test('Prometheus on Kubernetes: the load job discovers the workers, the rest of the template as written', () => {
  const yml = [
    'scrape_configs:',
    '  - job_name: allocator',
    '    static_configs:',
    "      - targets: ['allocator:8080']",
    '',
    '  # the load',
    '  - job_name: load',
    '    scrape_interval: 5s',
    '    static_configs:',
    "    - targets: ['locust-worker:9646']",
    '    # kept',
    '    scrape_timeout: 5s',
    '',
    '# trailing comment',
    '',
  ].join('\n');
  const out = withLoadDiscovery(yml, 'locust-worker.lab.svc', 9646);
  const cfg = parse(out);
  assert.deepEqual(cfg.scrape_configs[1], {
    job_name: 'load', scrape_interval: '5s', scrape_timeout: '5s',
    dns_sd_configs: [{ names: ['locust-worker.lab.svc'], type: 'A', port: 9646 }],
  });
  assert.deepEqual(cfg.scrape_configs[0], { job_name: 'allocator', static_configs: [{ targets: ['allocator:8080'] }] });
  assert.match(out, /# the load\n {2}- job_name: load\n/);
  assert.match(out, /\n {4}# kept\n {4}scrape_timeout: 5s\n\n# trailing comment\n$/);
  assert.throws(() => withLoadDiscovery('scrape_configs:\n  - job_name: allocator\n', 'x', 1), /no scrape job `load`/);
  // the committed template has the job, and the rendered config uses the discovery
  const rendered = parseAllDocuments(renderK8s(model(), labEnv)['40-observability.yaml']).map((d) => d.toJS())
    .find((d) => d.kind === 'ConfigMap' && d.metadata.name === 'prometheus-config').data['prometheus.yml'];
  const load = parse(rendered).scrape_configs.find((j) => j.job_name === 'load');
  assert.deepEqual(load.dns_sd_configs, [{ names: [`locust-worker.${labEnv.K8S_NAMESPACE}.svc`], type: 'A', port: Number(labEnv.LOAD_METRICS_PORT) }]);
  assert.equal(load.static_configs, undefined);
});
