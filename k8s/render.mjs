#!/usr/bin/env node
// Renders k8s/generated/ from lab.env's topology (packages/contract/src/topology.js): the lab on
// Kubernetes through ECK (Elastic Cloud on Kubernetes), installed by the user. One Elasticsearch
// resource with a nodeSet per index group, Kibana, the allocator, the elasticsearch_exporter with
// Prometheus and its scrape config, and the storefront load as Locust distributed (a master and
// K8S_LOAD_WORKERS workers, the locustfiles of traffic/ in ConfigMaps). The files are committed,
// like runtimes/compose/nodes.generated.yml: a user reads what is applied; `make render CHECK=1`,
// `make k8s CHECK=1` and tests/static/k8s.bats fail while they are stale (traffic/'s Python files
// are rendered into the ConfigMaps, so an edit there makes them stale too). k8s/README.md says how
// to apply them.
//
//   node k8s/render.mjs           write the files (only those whose text changes; a file no
//                                 longer rendered is removed)
//   node k8s/render.mjs --check   exit 1 naming each file that differs from a fresh render
//
// Each nodeSet's config, JVM options and resources are the k8s variant of the one node-config
// source (packages/contract/src/node-config.js), as the native and compose runtimes' are; the YAML
// is the `yaml` package's (the workspace's, YAML 1.1 as Kubernetes reads it), the write and
// --check packages/contract/src/render-files.js'.
//
// A broken topology, or one Kubernetes cannot express (one index group's nodes of different
// sizes: a nodeSet has one pod template), is one line on stderr, exit 2, and nothing written.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { labEnvFile, LabEnvError, loadLabEnv } from '../packages/contract/src/lab-env-file.js';
import { nodeConfigs } from '../packages/contract/src/node-config.js';
import { checkArg, RenderError, renderFiles, runMain } from '../packages/contract/src/render-files.js';
import { topology, TopologyError } from '../packages/contract/src/topology.js';

const k8sDir = dirname(fileURLToPath(import.meta.url));
const root = dirname(k8sDir);
export const OUTPUT_DIR = join(k8sDir, 'generated');

// ---- YAML: the `yaml` package, with comments attached to keys ---------------------------------

// The workspace's `yaml` package: when the workspace is not installed, one line saying so
const yaml = await import('yaml').catch(() => null);
function yamlPackage() {
  if (yaml === null) throw new RenderError('error: k8s/render.mjs: the `yaml` package is missing: install the workspace\'s Node.js packages (scripts/install/npm-deps.sh)');
  return yaml;
}

const NOTES = Symbol('notes');
/** obj with comments to write above some of its keys: note({ a: 1 }, { a: 'why a' }) */
export const note = (obj, notes) => Object.assign(obj, { [NOTES]: notes });

// Comment text wrapped at 100 columns (with the indent it is written at), as the yaml package's
// comment lines: each line of the result is written as `#` + the line
function commentText(text, indent) {
  const width = Math.max(40, 100 - indent - 2);
  return text.split('\n').flatMap((line) => {
    if (line === '') return [''];
    const out = [];
    let cur = '';
    for (const word of line.split(' ')) {
      if (cur !== '' && cur.length + 1 + word.length > width) {
        out.push(cur);
        cur = word;
      } else cur = cur === '' ? word : `${cur} ${word}`;
    }
    out.push(cur);
    return out.map((l) => ` ${l}`);
  }).join('\n');
}

// The notes of value (and of every object in it) onto node, the yaml package's node of it: a
// key's note above the key; the first key's note of a list item above its `- `
function attachNotes(value, node, indent, inSeq = false) {
  if (Array.isArray(value)) {
    value.forEach((item, i) => attachNotes(item, node.items[i], indent + 2, true));
    return;
  }
  if (value === null || typeof value !== 'object' || !yamlPackage().isMap(node)) return;
  const notes = value[NOTES] ?? {};
  node.items.forEach((pair, i) => {
    const text = notes[pair.key.value];
    if (text) {
      if (inSeq && i === 0) node.commentBefore = commentText(text, indent - 2);
      else pair.key.commentBefore = commentText(text, indent);
    }
    attachNotes(value[pair.key.value], pair.value, indent + 2);
  });
}

// YAML 1.1 (what Kubernetes' own parser reads): yes, on, 1:20 stay quoted strings. No folding of
// long lines; multi-line text as literal blocks.
const YAML_OPTIONS = { version: '1.1' };
const TO_STRING = { lineWidth: 0, blockQuote: 'literal' };

/** Documents (objects, with their notes) -> one YAML stream, `header` (comment text) on top. */
export function yamlStream(docs, header) {
  const parts = docs.map((value) => {
    const doc = new (yamlPackage().Document)(value, YAML_OPTIONS);
    attachNotes(value, doc.contents, 0);
    return doc.toString(TO_STRING);
  });
  return `${commentText(header, 0).split('\n').map((l) => `#${l}`).join('\n')}\n---\n${parts.join('---\n')}`;
}

// ---- From lab.env to resources -----------------------------------------------------------------

// A Kubernetes object name (RFC 1123 label), and a quantity of bytes (10Gi, 500M)
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const QUANTITY = /^[0-9]+(\.[0-9]+)?(Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E)?$/;
const IMAGE = /^[a-z0-9][a-z0-9._/-]*(:[0-9]+)?[a-z0-9._/-]*(:[A-Za-z0-9_][A-Za-z0-9_.-]*)?$/;

/** bytes -> the largest exact binary quantity: 1610612736 -> 1536Mi (lab.env's 1536m is MiB, a
 * Kubernetes "1536m" would be 1.536 bytes) */
export function quantity(bytes) {
  for (const [unit, size] of [['Ti', 1024 ** 4], ['Gi', 1024 ** 3], ['Mi', 1024 ** 2], ['Ki', 1024]]) {
    if (bytes % size === 0) return `${bytes / size}${unit}`;
  }
  return String(bytes);
}

/**
 * lab.env's model and values -> the settings the resources need, each checked: one line naming
 * the key on the first problem (TopologyError, as the topology's own errors).
 */
export function k8sSettings(env, { file = 'lab.env' } = {}) {
  const fail = (message) => {
    throw new TopologyError(file, message);
  };
  const need = (key, re, hint) => {
    const v = env[key] === undefined ? '' : String(env[key]);
    if (v === '') fail(`${key} is missing: ${hint}`);
    if (re && !re.test(v)) fail(`${key}=${v}: ${hint}`);
    return v;
  };
  const port = (key) => Number(need(key, /^[1-9][0-9]{0,4}$/, 'want a port number (1-65535)'));
  // what node-config.js puts in every nodeSet's config, checked as ECK takes it
  need('ES_WRITE_QUEUE', /^-?[0-9]+$/, 'want a number of queued writes, e.g. 10000');
  need('ES_RECOVERY_MAX_BYTES_PER_SEC', /^[0-9]+(b|kb|mb|gb)$/i, 'want a byte rate per second, e.g. 500mb');
  for (const w of ['LOW', 'HIGH', 'FLOOD']) need(`ES_DISK_WATERMARK_${w}`, null, 'a disk watermark, e.g. 2gb');
  return {
    cluster: need('CLUSTER_NAME', DNS_LABEL, 'the Elasticsearch resource is named after it: lower-case letters, digits and -, e.g. CLUSTER_NAME=tenantlab'),
    namespace: need('K8S_NAMESPACE', DNS_LABEL, 'the namespace of every resource: lower-case letters, digits and -, e.g. K8S_NAMESPACE=tenantlab'),
    esVersion: need('ES_VERSION', /^[0-9]+\.[0-9]+\.[0-9]+$/, 'want a version like 9.5.3'),
    kibanaVersion: need('KIBANA_VERSION', /^[0-9]+\.[0-9]+\.[0-9]+$/, 'want a version like 9.5.3'),
    dataVolume: need('K8S_DATA_VOLUME', QUANTITY, 'want a Kubernetes quantity for each node\'s data volume, e.g. 10Gi'),
    allocatorImage: need('K8S_ALLOCATOR_IMAGE', IMAGE, 'want an image reference with a tag, e.g. tenantlab/allocator:0.1.0'),
    locustImage: need('K8S_LOCUST_IMAGE', IMAGE, 'want an image reference with a tag, e.g. tenantlab/locust:2.47.0'),
    exporterImage: `${need('K8S_ES_EXPORTER_IMAGE', IMAGE, 'want an image name, e.g. quay.io/prometheuscommunity/elasticsearch-exporter')}:v${need('ES_EXPORTER_VERSION', /^[0-9.]+$/, 'want a version like 1.11.0')}`,
    prometheusImage: `${need('PROMETHEUS_IMAGE', IMAGE, 'want an image name, e.g. prom/prometheus')}:${need('PROMETHEUS_VERSION', /^v[0-9.]+$/, 'want a tag like v2.42.0')}`,
    prometheusRetention: need('PROMETHEUS_RETENTION', /^[0-9]+[smhdwy]$/, 'want a duration like 2d'),
    scrapeInterval: need('PROMETHEUS_SCRAPE_INTERVAL', /^[0-9]+[smh]$/, 'want a duration like 10s'),
    allocatorPort: port('ALLOCATOR_PORT'),
    exporterPort: port('ES_EXPORTER_PORT'),
    prometheusPort: port('PROMETHEUS_PORT'),
    loadMetricsPort: port('LOAD_METRICS_PORT'),
    indexPrefix: need('ALLOCATOR_INDEX_PREFIX', /^[a-z0-9][a-z0-9_-]*$/, 'want an index name prefix, e.g. tenantlab-'),
    loadWorkers: Number(need('K8S_LOAD_WORKERS', /^[1-9][0-9]*$/, 'want the number of Locust worker pods, e.g. 2')),
    loadRate: need('K8S_LOAD_RATE', /^([0-9]+\.?[0-9]*|\.[0-9]+)$/, 'want the storefront\'s page views per second over all workers, e.g. 20'),
    loadDuration: need('K8S_LOAD_DURATION', /^([0-9]+h)?([0-9]+m)?([0-9]+s)?$/, 'want a duration like 30s, 5m, 1h'),
  };
}

/**
 * The model and lab.env's values -> ECK nodeSets: one per index group (count = its data nodes)
 * and one per node without a group (the master), named after the group or the node, each with the
 * config of its nodes (node-config.js, its k8s variant: settings, JVM options, limits). A group's
 * nodes must agree on roles and size (one pod template per nodeSet): otherwise one line naming
 * the keys that differ.
 */
export function nodeSets(model, env, { file = 'lab.env' } = {}) {
  const fail = (message) => {
    throw new TopologyError(file, message);
  };
  const configs = nodeConfigs(model, env, 'k8s', { file });
  // what one pod template fixes: [lab.env key suffix, its value in the config, as lab.env spells it]
  const sizes = [
    ['CPUS', (c) => c.limits.cpus, (n) => n.size.cpus],
    ['MEM', (c) => c.limits.memBytes, (n) => n.size.mem],
    ['HEAP', (c) => c.heap, (n) => n.size.heap],
  ];
  const sets = [];
  const byName = new Map();
  model.nodes.forEach((node, i) => {
    const config = configs[i];
    const setName = node.group ?? node.name;
    if (!DNS_LABEL.test(setName)) {
      fail(`${node.group !== null ? `${node.key}_GROUP=${setName}` : `LAB_NODES: ${setName}`} cannot name a Kubernetes nodeSet (lower-case letters, digits and -, no '_')`);
    }
    const existing = byName.get(setName);
    if (existing === undefined) {
      const set = { name: setName, group: node.group, nodes: [node], roles: node.roles, config };
      byName.set(setName, set);
      sets.push(set);
      return;
    }
    if (existing.group === null || node.group === null) {
      fail(`${node.group !== null ? `${node.key}_GROUP=${node.group}` : `LAB_NODES: ${node.name}`} is also the name of ${existing.nodes[0].name}'s nodeSet: rename the group or the node`);
    }
    const first = existing.nodes[0];
    if (node.roles.join(',') !== existing.roles.join(',')) {
      fail(`${first.key}_ROLES=${existing.roles.join(',')} and ${node.key}_ROLES=${node.roles.join(',')} differ: ${node.group}'s nodes are one Kubernetes nodeSet, with one set of roles`);
    }
    for (const [suffix, of, spelt] of sizes) {
      if (of(existing.config) !== of(config)) {
        fail(`${first.key}_${suffix}=${spelt(first) ?? ''} and ${node.key}_${suffix}=${spelt(node) ?? ''} differ: ${node.group}'s nodes are one Kubernetes nodeSet, with one pod template: give every node of ${node.group} the same size`);
      }
    }
    existing.nodes.push(node);
  });
  return sets;
}

const labels = (name, s) => ({ 'app.kubernetes.io/name': name, 'app.kubernetes.io/part-of': s.cluster });
const meta = (name, s, extra = {}) => ({ name, namespace: s.namespace, labels: labels(name, s), ...extra });

// ECK's secrets for an Elasticsearch resource named after the cluster
const elasticUserSecret = (s) => `${s.cluster}-es-elastic-user`;
const httpCaSecret = (s) => `${s.cluster}-es-http-certs-public`;
const esUrl = (s) => `https://${s.cluster}-es-http:9200`;
const CA_DIR = '/etc/tenantlab/es-http-ca';

/** The connection variables every part of the lab reads (RUNTIME=external): ECK's elastic user
 * from its secret, its HTTP CA as a file; never a literal password. */
function connectionEnv(s) {
  return [
    { name: 'ES_USERNAME', value: 'elastic' },
    { name: 'ES_PASSWORD', valueFrom: { secretKeyRef: { name: elasticUserSecret(s), key: 'elastic' } } },
    { name: 'ES_CA_CERT', value: `${CA_DIR}/ca.crt` },
    { name: 'ES_TLS_VERIFY', value: 'true' },
  ];
}
const caVolume = (s) => ({ name: 'es-http-ca', secret: { secretName: httpCaSecret(s), items: [{ key: 'ca.crt', path: 'ca.crt' }] } });
const caMount = { name: 'es-http-ca', mountPath: CA_DIR, readOnly: true };

function elasticsearch(model, s, sets) {
  return note({
    apiVersion: 'elasticsearch.k8s.elastic.co/v1',
    kind: 'Elasticsearch',
    metadata: meta(s.cluster, s),
    spec: note({
      version: s.esVersion,
      http: {
        tls: {
          selfSignedCertificate: {
            subjectAltNames: [{ dns: 'localhost' }, { ip: '127.0.0.1' }],
          },
        },
      },
      nodeSets: sets.map((set) => {
        const { limits } = set.config;
        const container = note({
          name: 'elasticsearch',
          // the heap, as the official image's launcher takes it (it adds the rest)
          env: [{ name: 'ES_JAVA_OPTS', value: set.config.jvm.join(' ') }],
        }, {
          env: limits.cpus === null && limits.memBytes === null
            ? `no ${set.nodes[0].key}_CPUS or _MEM${model.shape === 'off' ? ' applied (SHAPE=off)' : ''}: ECK's default resources (2Gi of memory)`
            : undefined,
        });
        const res = {};
        if (limits.cpus !== null) res.cpu = String(limits.cpus);
        if (limits.memBytes !== null) res.memory = quantity(limits.memBytes);
        if (Object.keys(res).length > 0) {
          container.resources = { requests: { ...res }, limits: { ...res } };
          container[NOTES].resources = `${set.nodes[0].key}_CPUS / ${set.nodes[0].key}_MEM: requests = limits, as Compose's cpus/mem_limit; unset ones keep ECK's defaults`;
        }
        const names = set.nodes.map((n) => n.name).join(', ');
        return note({
          name: set.name,
          count: set.nodes.length,
          // the nodes' settings (node-config.js): ECK names the cluster and the nodes and places
          // them on the network and on disk itself
          config: note({ ...set.config.settings }, set.config.notes),
          podTemplate: { spec: { containers: [container] } },
          volumeClaimTemplates: [{
            metadata: { name: 'elasticsearch-data' },
            spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: s.dataVolume } } },
          }],
        }, {
          name: set.group !== null
            ? `index group ${set.group}: ${names} (${set.roles.join(',')})${set.nodes.some((n) => n.size.cpuset !== null) ? `; ${set.nodes.filter((n) => n.size.cpuset !== null).map((n) => `${n.key}_CPUSET`).join(', ')} has no Kubernetes equivalent and is left out` : ''}`
            : `${names} (${set.roles.join(',') || 'coordinating only'})`,
        });
      }),
    }, {
      http: 'ECK\'s self-signed HTTP certificate, also valid for a `kubectl port-forward` to localhost (RUNTIME=external)',
    }),
  }, {
    apiVersion: `${s.cluster}: ${model.nodes.length} nodes, index groups ${Object.entries(model.groups).map(([g, n]) => `${g} (${n.length})`).join(', ')}`,
  });
}

function kibana(s) {
  return {
    apiVersion: 'kibana.k8s.elastic.co/v1',
    kind: 'Kibana',
    metadata: meta(s.cluster, s),
    spec: { version: s.kibanaVersion, count: 1, elasticsearchRef: { name: s.cluster } },
  };
}

function service(name, port, s) {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: meta(name, s),
    spec: {
      selector: labels(name, s),
      ports: [{ name: 'http', port, targetPort: 'http' }],
    },
  };
}

function deployment(name, s, podSpec, notes = {}) {
  return note({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: meta(name, s),
    spec: {
      replicas: 1,
      selector: { matchLabels: labels(name, s) },
      template: { metadata: { labels: labels(name, s) }, spec: podSpec },
    },
  }, notes);
}

const httpProbe = (path) => ({ httpGet: { path, port: 'http' }, periodSeconds: 10, timeoutSeconds: 5 });

const allocatorProbe = (path, s) => {
  const probe = httpProbe(path);
  return { ...probe, httpGet: { ...probe.httpGet, httpHeaders: [{ name: 'Host', value: `allocator:${s.allocatorPort}` }] } };
};

function allocator(model, s) {
  const container = {
    name: 'allocator',
    image: s.allocatorImage,
    ports: [{ name: 'http', containerPort: s.allocatorPort }],
    env: [
      // the connection of RUNTIME=external (packages/contract/src/connection.js): this cluster is
      // none of the lab's runtimes' own nodes
      { name: 'RUNTIME', value: 'external' },
      { name: 'ES_URL', value: esUrl(s) },
      { name: 'ALLOCATOR_ES_URL', value: esUrl(s) },
      { name: 'ALLOCATOR_PORT', value: String(s.allocatorPort) },
      { name: 'ALLOCATOR_LISTEN_HOST', value: '0.0.0.0' },
      // the Service's name: the Locust workers and Prometheus reach it as allocator:PORT (any
      // other Host is refused: allocator/src/http/origin-guard.js)
      { name: 'ALLOCATOR_ALLOWED_HOSTS', value: 'allocator' },
      // the load's p95 per group beside the probe, while the Locust workers run (job `load`)
      { name: 'ALLOCATOR_PROMETHEUS_URL', value: `http://prometheus:${s.prometheusPort}` },
      { name: 'ALLOCATOR_INDEX_PREFIX', value: s.indexPrefix },
      { name: 'LAB_GROUP_ATTR', value: model.groupAttr },
      ...connectionEnv(s),
    ],
    volumeMounts: [caMount],
    // the kubelet's Host would be the pod's IP, which the allocator refuses: say its own name
    readinessProbe: allocatorProbe('/readyz', s),
    livenessProbe: { ...allocatorProbe('/healthz', s), failureThreshold: 6 },
  };
  return [
    deployment('allocator', s, {
      // the image's user `node` (allocator/Dockerfile), by number: runAsNonRoot cannot check a name
      securityContext: { runAsNonRoot: true, runAsUser: 1000 },
      containers: [container],
      volumes: [caVolume(s)],
    }, { apiVersion: 'The tenant allocator (allocator/Dockerfile, built and pushed as K8S_ALLOCATOR_IMAGE): one replica, since moves and rebalances are run by one allocator' }),
    service('allocator', s.allocatorPort, s),
  ];
}

/** prometheus/prometheus.yml.tmpl with the in-cluster targets, as prometheus/render.sh fills it in */
export function prometheusConfig(template, values) {
  const body = template.replace(/^(#[^\n]*\n|\n)*/, '');
  return body.replace(/@([A-Z][A-Z0-9_]*)@/g, (m, name) => {
    if (values[name] === undefined) throw new Error(`prometheus/prometheus.yml.tmpl: no value for @${name}@`);
    return values[name];
  });
}

// The Locust workers' headless Service: one DNS A record per worker pod
const WORKERS = 'locust-worker';
const workersDns = (s) => `${WORKERS}.${s.namespace}.svc`;

/**
 * The rendered config with the `load` job's static_configs replaced by DNS discovery of the
 * workers' headless Service: on Kubernetes the load is K8S_LOAD_WORKERS pods, each with its own
 * /metrics, where the other runtimes have one process at one address. A static target naming the
 * Service would reach one pod per scrape, a different one each time, mixing their counters. A
 * line edit, so the template's text (comments, scrape_interval) stays as written. Throws when the
 * template has no `load` job with static_configs (prometheus/prometheus.yml.tmpl).
 */
export function withLoadDiscovery(promYml, names, port) {
  const lines = promYml.split('\n');
  const indent = (l) => l.length - l.trimStart().length;
  const content = (l) => l.trim() !== '' && !l.trimStart().startsWith('#');
  const job = lines.findIndex((l) => /^\s*- job_name: *['"]?load['"]? *(#.*)?$/.test(l));
  if (job === -1) throw new Error('prometheus/prometheus.yml.tmpl: no scrape job `load` (the running load\'s /metrics)');
  const item = indent(lines[job]);
  let end = job + 1;
  while (end < lines.length && !(content(lines[end]) && indent(lines[end]) <= item)) end += 1;
  const key = item + 2;
  const at = lines.findIndex((l, i) => i > job && i < end && indent(l) === key && /^\s*static_configs: *$/.test(l));
  if (at === -1) throw new Error('prometheus/prometheus.yml.tmpl: the `load` job has no static_configs to replace');
  let stop = at + 1;
  while (stop < end && (!content(lines[stop]) || indent(lines[stop]) > key || (indent(lines[stop]) === key && lines[stop].trimStart().startsWith('- ')))) stop += 1;
  // blank or comment lines before the job's next key stay where they are
  while (stop > at + 1 && !content(lines[stop - 1])) stop -= 1;
  const pad = ' '.repeat(key);
  lines.splice(at, stop - at,
    `${pad}# Kubernetes (k8s/render.mjs): every Locust worker pod, the A records of a headless Service`,
    `${pad}dns_sd_configs:`,
    `${pad}  - names: ['${names}']`,
    `${pad}    type: A`,
    `${pad}    port: ${port}`);
  return lines.join('\n');
}

function observability(s, promDir) {
  const template = readFileSync(join(promDir, 'prometheus.yml.tmpl'), 'utf8');
  const rulesDir = '/etc/prometheus/rules';
  const promYml = withLoadDiscovery(prometheusConfig(template, {
    SCRAPE_INTERVAL: s.scrapeInterval,
    RULES_DIR: rulesDir,
    PROMETHEUS_TARGET: `localhost:${s.prometheusPort}`,
    ES_EXPORTER_TARGET: `es-exporter:${s.exporterPort}`,
    ALLOCATOR_TARGET: `allocator:${s.allocatorPort}`,
    // replaced by the workers' discovery just below
    LOAD_TARGET: `${WORKERS}:${s.loadMetricsPort}`,
  }), workersDns(s), s.loadMetricsPort);
  const rules = {};
  for (const f of readdirSync(join(promDir, 'rules')).filter((x) => x.endsWith('.yml')).sort()) {
    rules[f] = readFileSync(join(promDir, 'rules', f), 'utf8');
  }
  const exporter = {
    name: 'es-exporter',
    image: s.exporterImage,
    args: [
      `--es.uri=${esUrl(s)}`,
      `--es.ca=${CA_DIR}/ca.crt`,
      '--es.all',
      '--es.indices',
      '--es.shards',
      '--es.aliases',
      '--collector.clustersettings',
      '--es.timeout=8s',
      `--web.listen-address=:${s.exporterPort}`,
      '--log.level=warn',
    ],
    env: connectionEnv(s).filter((e) => ['ES_USERNAME', 'ES_PASSWORD'].includes(e.name)),
    ports: [{ name: 'http', containerPort: s.exporterPort }],
    volumeMounts: [caMount],
    readinessProbe: httpProbe('/'),
  };
  const prometheus = {
    name: 'prometheus',
    image: s.prometheusImage,
    args: [
      '--config.file=/etc/prometheus/prometheus.yml',
      '--storage.tsdb.path=/prometheus',
      `--storage.tsdb.retention.time=${s.prometheusRetention}`,
      `--web.listen-address=:${s.prometheusPort}`,
      '--log.level=warn',
    ],
    ports: [{ name: 'http', containerPort: s.prometheusPort }],
    volumeMounts: [
      { name: 'config', mountPath: '/etc/prometheus/prometheus.yml', subPath: 'prometheus.yml', readOnly: true },
      { name: 'rules', mountPath: rulesDir, readOnly: true },
      { name: 'data', mountPath: '/prometheus' },
    ],
    readinessProbe: httpProbe('/-/ready'),
  };
  return [
    deployment('es-exporter', s, { containers: [exporter], volumes: [caVolume(s)] }, {
      apiVersion: `elasticsearch_exporter (ES_EXPORTER_VERSION), as the lab's compose service: ECK's elastic user from ${elasticUserSecret(s)} (environment), its HTTP CA from ${httpCaSecret(s)} (file)`,
    }),
    service('es-exporter', s.exporterPort, s),
    note({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: meta('prometheus-config', s),
      data: { 'prometheus.yml': promYml },
    }, { apiVersion: 'Prometheus scrapes the exporter, the allocator and the Locust workers: prometheus/prometheus.yml.tmpl, the one template of every runtime, with the Services as targets (the workers: every pod of their headless Service)' }),
    note({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: meta('prometheus-rules', s),
      data: rules,
    }, { apiVersion: 'The recording and alert rules of prometheus/rules/, as in both runtimes' }),
    deployment('prometheus', s, {
      containers: [prometheus],
      volumes: [
        { name: 'config', configMap: { name: 'prometheus-config' } },
        { name: 'rules', configMap: { name: 'prometheus-rules' } },
        { name: 'data', emptyDir: {} },
      ],
    }, { apiVersion: 'Prometheus (PROMETHEUS_IMAGE:PROMETHEUS_VERSION), a lab\'s: samples kept PROMETHEUS_RETENTION in an emptyDir' }),
    service('prometheus', s.prometheusPort, s),
  ];
}

// A ConfigMap holds at most 1 MiB (the API server refuses more)
const CONFIGMAP_MAX = 1024 * 1024;

/** traffic/'s Python files as ConfigMap data: the locustfiles (traffic/*.py) and their library
 * (traffic/lib/*.py), { name: text } each, in name order. The storefront's locustfile must be there. */
export function trafficFiles(dir) {
  const py = (d) => (existsSync(d) ? readdirSync(d).filter((f) => f.endsWith('.py')).sort() : []);
  const read = (d) => Object.fromEntries(py(d).map((f) => [f, readFileSync(join(d, f), 'utf8')]));
  const files = { locustfiles: read(dir), lib: read(join(dir, 'lib')) };
  const shown = relative(root, dir) || dir;
  if (!files.locustfiles['storefront.py']) throw new TopologyError(shown, 'no storefront.py: the Kubernetes load runs it (k8s/generated/load/)');
  for (const [what, data] of Object.entries(files)) {
    const size = Object.entries(data).reduce((n, [k, v]) => n + k.length + Buffer.byteLength(v), 0);
    if (size > CONFIGMAP_MAX) throw new TopologyError(shown, `the ${what} are ${size} bytes, over a ConfigMap's 1 MiB`);
  }
  return files;
}

const TRAFFIC_DIR = '/traffic';

/**
 * The storefront load as Locust distributed: traffic/'s locustfiles and library in two ConfigMaps,
 * a master (web UI, the workers' rendezvous) and K8S_LOAD_WORKERS workers running the same
 * locustfile, each serving /metrics for Prometheus' job `load` through a headless Service.
 */
function load(s, traffic) {
  const master = 'locust-master';
  const uiPort = 8089;
  const masterPort = 5557;
  const configMap = (name, data, why) => note({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: meta(name, s),
    data,
  }, { apiVersion: why });
  // As traffic/run.sh runs Locust for RUNTIME=external: the cluster's URL, ES_EXTERNAL=1, ECK's
  // elastic user (ES_USERNAME/ES_PASSWORD, a Basic header) and its HTTP CA as a file
  const env = [
    { name: 'ES_URL', value: esUrl(s) },
    { name: 'ES_EXTERNAL', value: '1' },
    ...connectionEnv(s),
    { name: 'ALLOCATOR_URL', value: `http://allocator:${s.allocatorPort}` },
    { name: 'RUN_ID', value: 'storefront' },
    { name: 'RATE', value: s.loadRate },
    { name: 'DURATION', value: s.loadDuration },
    // the ConfigMaps are read-only
    { name: 'PYTHONDONTWRITEBYTECODE', value: '1' },
  ];
  // One volume for both ConfigMaps: a ConfigMap has no folders, and a second volume mounted
  // inside the first one's read-only mount could not create its mount point; projected, the
  // library lands in /traffic/lib, where the locustfiles import it from (`from lib import ...`)
  const trafficVolume = {
    name: 'traffic',
    projected: {
      sources: [
        { configMap: { name: 'locustfiles' } },
        { configMap: { name: 'locust-lib', items: Object.keys(traffic.lib).map((key) => ({ key, path: `lib/${key}` })) } },
      ],
    },
  };
  const trafficMount = { name: 'traffic', mountPath: TRAFFIC_DIR, readOnly: true };
  const locustfile = `${TRAFFIC_DIR}/storefront.py`;
  const masterContainer = note({
    name: 'locust',
    image: s.locustImage,
    args: ['-f', locustfile, '--master', '--autostart', `--expect-workers=${s.loadWorkers}`, `--web-port=${uiPort}`, `--master-bind-port=${masterPort}`],
    ports: [{ name: 'http', containerPort: uiPort }, { name: 'master', containerPort: masterPort }],
    env: [...env, { name: 'LOAD_METRICS_PORT', value: '0' }],
    volumeMounts: [trafficMount, caMount],
    readinessProbe: httpProbe('/'),
  }, {
    args: 'The storefront\'s LoadTestShape starts once K8S_LOAD_WORKERS workers have connected (--autostart: the web UI stays up, so the run ends without the pod ending, and the Deployment does not start it again)',
    env: 'The requests, and their /metrics, are the workers\'; the master serves none (LOAD_METRICS_PORT=0)',
  });
  const workerContainer = note({
    name: 'locust',
    image: s.locustImage,
    args: ['-f', locustfile, '--worker', `--master-host=${master}`, `--master-port=${masterPort}`],
    ports: [{ name: 'metrics', containerPort: s.loadMetricsPort }],
    env: [
      ...env,
      { name: 'LOAD_RATE_SHARE', value: String(1 / s.loadWorkers) },
      { name: 'LOAD_METRICS_HOST', value: '0.0.0.0' },
      { name: 'LOAD_METRICS_PORT', value: String(s.loadMetricsPort) },
    ],
    volumeMounts: [trafficMount, caMount],
  }, {
    env: 'RATE is the total over the workers: each dispatches RATE x LOAD_RATE_SHARE (1/K8S_LOAD_WORKERS)',
  });
  const volumes = [trafficVolume, caVolume(s)];
  const masterDeployment = deployment(master, s, { containers: [masterContainer], volumes }, {
    apiVersion: `The Locust master (K8S_LOCUST_IMAGE): web UI on ${uiPort} (kubectl port-forward service/${master} ${uiPort}), the workers connect on ${masterPort}`,
  });
  const workerDeployment = deployment(WORKERS, s, { containers: [workerContainer], volumes }, {
    apiVersion: 'The Locust workers: they send the requests, each serving its /metrics for Prometheus\' job `load`',
  });
  workerDeployment.spec.replicas = s.loadWorkers;
  return [
    configMap('locustfiles', traffic.locustfiles, 'traffic/*.py, the locustfiles, at /traffic'),
    configMap('locust-lib', traffic.lib, 'traffic/lib/*.py, the locustfiles\' library, at /traffic/lib'),
    masterDeployment,
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: meta(master, s),
      spec: {
        selector: labels(master, s),
        ports: [
          { name: 'http', port: uiPort, targetPort: 'http' },
          { name: 'master', port: masterPort, targetPort: 'master' },
        ],
      },
    },
    workerDeployment,
    note({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: meta(WORKERS, s),
      spec: {
        clusterIP: 'None',
        selector: labels(WORKERS, s),
        ports: [{ name: 'metrics', port: s.loadMetricsPort, targetPort: 'metrics' }],
      },
    }, { apiVersion: `Headless: ${workersDns(s)} resolves to every worker pod, each a target of Prometheus' job \`load\`` }),
  ];
}

const HEADER = (what) => `GENERATED by k8s/render.mjs from lab.env (topology, versions, K8S_* keys): do not edit. \`make k8s\` rewrites and validates it; \`make render CHECK=1\` and tests/static/k8s.bats fail while it is stale. ${what}`;

/**
 * The model, lab.env's values and prometheus/ -> { 'file.yaml': text } for k8s/generated/.
 * Throws TopologyError (one line naming the key) on what Kubernetes cannot run.
 */
export function renderK8s(model, env, { file = 'lab.env', promDir = join(root, 'prometheus'), trafficDir = join(root, 'traffic') } = {}) {
  const s = k8sSettings(env, { file });
  const sets = nodeSets(model, env, { file });
  const traffic = trafficFiles(trafficDir);
  // neither a CPU list nor a weight: a pod gets a quota, and its requests.cpu is its weight
  const leftOut = model.nodes.flatMap((n) => [n.size.cpuset !== null ? `${n.key}_CPUSET` : null, n.size.cpuWeight !== null ? `${n.key}_CPU_WEIGHT` : null]).filter(Boolean);
  return {
    '00-namespace.yaml': yamlStream([{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: s.namespace, labels: { 'app.kubernetes.io/part-of': s.cluster } } }],
      HEADER('The namespace of every resource (K8S_NAMESPACE).')),
    '10-elasticsearch.yaml': yamlStream([elasticsearch(model, s, sets)], HEADER(`The cluster for ECK ${env.ECK_VERSION ?? ''}: a nodeSet per index group, node.attr.${model.groupAttr} on its nodes (the allocator pins indices to a group with index.routing.allocation.require), and one per node without a group (the master). A nodeSet has one pod template: its nodes' <KEY>_CPUS and <KEY>_MEM become the container's requests and limits (none under SHAPE=off), <KEY>_HEAP (or ES_HEAP) its -Xms/-Xmx. <KEY>_CPUSET, <KEY>_CPU_WEIGHT and SHAPE=groups' CPU slices have no Kubernetes equivalent (a pod gets a CPU quota, never a list of CPUs, and its requests.cpu is its weight)${leftOut.length ? `; left out: ${leftOut.join(', ')}` : ''}. On Kubernetes a group is isolated by Kubernetes nodes of its own: a nodeSelector or affinity in its nodeSet's podTemplate.`)),
    '20-kibana.yaml': yamlStream([kibana(s)], HEADER('Kibana for the cluster, through ECK (elasticsearchRef).')),
    '30-allocator.yaml': yamlStream(allocator(model, s), HEADER(`The tenant allocator and its Service (ALLOCATOR_PORT). It reaches the cluster at ${esUrl(s)} as ECK's elastic user: ES_PASSWORD from the secret ${elasticUserSecret(s)}, ES_CA_CERT the HTTP CA of ${httpCaSecret(s)} mounted as a file.`)),
    '40-observability.yaml': yamlStream(observability(s, promDir), HEADER('The elasticsearch_exporter, Prometheus with its scrape config and rules, and their Services.')),
    'load/storefront.yaml': yamlStream(load(s, traffic), HEADER(`The storefront load (traffic/storefront.py), Locust distributed: the locustfiles and their library (traffic/*.py, traffic/lib/*.py) as ConfigMaps, a master and K8S_LOAD_WORKERS workers (K8S_LOCUST_IMAGE), K8S_LOAD_RATE page views/s in all for K8S_LOAD_DURATION. In its own folder: \`kubectl apply -f k8s/generated/\` does not start it; \`kubectl apply -f k8s/generated/load/\` does, once the lab has tenants.`)),
  };
}

function main(args) {
  const check = checkArg(args, 'k8s/render.mjs [--check]');
  const file = labEnvFile(process.env);
  if (!existsSync(file)) throw new TopologyError(file, 'no such file (LAB_ENV_FILE)');
  const env = loadLabEnv({ file });
  const model = topology(env, { file });
  const files = Object.entries(renderK8s(model, env, { file })).map(([f, content]) => ({ path: join(OUTPUT_DIR, f), content }));
  const dir = relative(root, OUTPUT_DIR);
  return renderFiles(files, { root, check, source: 'lab.env', owns: [{ dir, ext: '.yaml' }], label: `${dir}/ (${files.length} files)` });
}

runMain(import.meta.url, main, [LabEnvError, TopologyError]);
