// THE node config: every Elasticsearch node's settings, JVM options and limits, computed once
// from the topology model (topology.js), its sizes (shape.js) and lab.env's values. Each runtime
// is a variant of the one function below, not a copy of it:
//   native   literal values; the node listens on LAB_BIND at its own ports, finds the master at
//            LAB_BIND:<its transport port>, keeps its files under the lab's folders (parameters);
//            its sizes are the shape resolved on this machine; the JVM runs the distribution's
//            launcher (the full option list). runtimes/native/lib/nodes.sh reads it through
//            bin/node-config.
//   compose  values as ${KEY} references to lab.env (Compose interpolates them, so the
//            environment still wins) and sizes as ${<KEY>_*_APPLIED} references to the run-time
//            values appliedEnv() gives (bin/node-config env); inside the compose network the node
//            listens on every interface at the image's default ports, finds the master by its
//            service name, and keeps its files where its image does. runtimes/compose/render.mjs
//            renders it into nodes.generated.yml.
//   k8s      literal values; ECK names the cluster and the node, places it on the network and
//            on disk; sizes as declared (a pod gets a quota, no CPU list, and no machine is
//            known); no mmap (no vm.max_map_count to raise). k8s/render.mjs renders it.
// The JVM options come in two flavours: `launcher`, the whole list the lab's own launcher
// needs (native, and the local compose image: runtimes/compose/images/elasticsearch), and
// `heap`, the -Xms/-Xmx that the official image's and ECK's launchers take (they add the rest).
// No Node APIs here: a plain ES module any JavaScript runtime loads.
import { describeShape } from './shape.js';
import { formatCpuList, sizeBytes, TopologyError } from './topology.js';

export const RUNTIMES = Object.freeze(['native', 'compose', 'k8s']);

/** The class the lab's launcher runs: one node in one JVM, its settings as key=value arguments. */
export const LAUNCHER_MAIN = 'org.tenantlab.nativeruntime.LabNode';

/** Where the images (official and local) keep Elasticsearch, its data, config and temp files. */
export const IMAGE_HOME = '/usr/share/elasticsearch';

// The settings ECK writes itself into every node's config (a value of ours would fight it)
const ECK_OWNS = /^(cluster\.name|node\.name|path\..*|network\.host|http\.port|transport\.port|discovery\.seed_hosts|cluster\.initial_master_nodes)$/;

/** es-data-1's HEAP -> ES_DATA_1_HEAP_APPLIED: the run-time size keys appliedEnv() sets. */
export const appliedKey = (key, what) => `${key}_${what}_APPLIED`;
const APPLIED = ['CPUSET', 'CPUS', 'CPU_SHARES', 'MEM', 'HEAP', 'PROCESSORS', 'JVM_OPTIONS'];

/**
 * A CPU weight (cgroup v2's cpu.weight scale: 100 = one ordinary process) -> cgroup v1's
 * cpu.shares and Docker's cpu_shares (1024 = one ordinary process), as the kernel maps them
 */
export const cpuShares = (weight) => Math.max(2, Math.min(262144, Math.round((weight * 1024) / 100)));

/** '512m' -> 256: half the heap in MiB, the direct-memory cap (256 for what is no size) */
export function halfHeapMb(heap) {
  const bytes = sizeBytes(heap);
  return bytes === null ? 256 : Math.floor(bytes / 2 / 1024 ** 2);
}

/**
 * The JVM options of a node. flavour 'heap': -Xms/-Xmx only. flavour 'launcher': the flags the
 * distribution's jvm.options and launcher would add, plus what running the server jars off the
 * module path needs (see shared notes: native-elasticsearch.md), with the lab's folder (labDir),
 * the distribution (dist) and the node's temp folder (tmp) as parameters.
 */
export function jvmOptions(heap, flavour, { labDir, dist, tmp } = {}) {
  if (flavour === 'heap') return [`-Xms${heap}`, `-Xmx${heap}`];
  if (flavour !== 'launcher') throw new Error(`jvmOptions: unknown flavour '${flavour}'`);
  return [
    // `ps` shows which lab a JVM belongs to
    `-Dtenantlab.lab=${labDir}`,
    `-Xms${heap}`,
    `-Xmx${heap}`,
    // As the distribution's launcher does: direct (netty) buffers get at most half the heap
    `-XX:MaxDirectMemorySize=${halfHeapMb(heap)}m`,
    '-XX:+UseG1GC',
    '-Xss1m',
    '-XX:-OmitStackTraceInFastThrow',
    `-Djava.io.tmpdir=${tmp}`,
    // Plain IPv4 sockets: bound to 127.0.0.1, not to the IPv6-mapped ::ffff:127.0.0.1
    '-Djava.net.preferIPv4Stack=true',
    '-Dfile.encoding=UTF-8',
    '-Djava.awt.headless=true',
    '-Dlog4j.shutdownHookEnabled=false',
    '-Dlog4j2.disable.jmx=true',
    '-Dio.netty.noUnsafe=true',
    '-Dio.netty.noKeySetOptimization=true',
    '-Dio.netty.recycler.maxCapacityPerThread=0',
    `-Des.nativelibs.path=${dist}/nativelibs`,
    '-Dorg.elasticsearch.nativeaccess.enableVectorLibrary=false',
    '--add-modules=jdk.incubator.vector',
    '--enable-native-access=org.elasticsearch.nativeaccess,org.elasticsearch.foreign,org.apache.lucene.core,ALL-UNNAMED',
    `--module-path=${dist}/lib`,
    '--add-modules=ALL-MODULE-PATH',
    '-cp',
    `${dist}/launcher/*`,
  ];
}

// A node's sizes in the runtime's terms: { heap, processors, cpuset, cpus, cpuWeight, memBytes }, null where
// none. resolved: a node of resolveShape() (native); declared: the topology's own (k8s: no
// machine, so no CPU list and no processors; none at all under SHAPE=off)
function resolvedSizes(n) {
  return { heap: n.heap, processors: n.processors, cpuset: n.cpuset === null ? null : formatCpuList(n.cpuset), cpus: n.cpus, cpuWeight: n.cpuWeight, memBytes: n.memBytes };
}
function declaredSizes(node, { model }) {
  const off = model.shape === 'off';
  return { heap: node.size.heap, processors: null, cpuset: null, cpus: off ? null : node.size.cpus, cpuWeight: off ? null : node.size.cpuWeight, memBytes: off ? null : node.size.memBytes };
}
// compose: references to the values appliedEnv() exports at run time; unset (a bare `docker
// compose`), a node has no limit and ES_HEAP, as under SHAPE=off
function appliedSizes(node) {
  const ref = (what, fallback) => `\${${appliedKey(node.key, what)}:-${fallback}}`;
  // cpu_shares 0: the engine's default (1024, one ordinary container)
  return { heap: ref('HEAP', '${ES_HEAP}'), processors: ref('PROCESSORS', ''), cpuset: ref('CPUSET', ''), cpus: ref('CPUS', '0'), cpuWeight: ref('CPU_SHARES', '0'), memBytes: ref('MEM', '0') };
}

// What differs between the runtimes, and only that: how a lab.env value appears (ref: a
// ${KEY} reference Compose interpolates, else the value), the node's sizes, where it listens,
// finds the master and keeps its files (place), its JVM options, what the platform sets itself
// (owns), settings of the runtime's own (extra, each with why), and which settings may be empty
// at run time (optional: left out then)
const VARIANTS = {
  native: {
    ref: false,
    sizes: (node, { resolved }) => resolvedSizes(resolved.get(node.name)),
    place: (node, { env, dirs, master }) => ({
      'path.home': dirs.dist,
      'path.data': `${dirs.data}/${node.name}`,
      'path.logs': `${dirs.logs}/${node.name}`,
      'network.host': env.LAB_BIND ?? '',
      'http.port': node.httpPort,
      'transport.port': node.transportPort,
      'discovery.seed_hosts': `${env.LAB_BIND ?? ''}:${master.transportPort}`,
    }),
    jvm: (heap, node, { dirs }) => jvmOptions(heap, 'launcher', { labDir: dirs.lab, dist: dirs.dist, tmp: `${dirs.lab}/tmp/${node.name}` }),
  },
  compose: {
    ref: true,
    sizes: appliedSizes,
    // Inside the compose network: other nodes reach this one by its service name, at the image's
    // default ports (only the HTTP port is published to the host, on LAB_BIND); the image keeps
    // the files. The master is the only master-eligible node, so it is the only seed a node needs
    place: (node, { v, model }) => ({ 'network.host': '0.0.0.0', 'discovery.seed_hosts': v('LAB_MASTER_NODE', model.master) }),
    jvm: (heap) => jvmOptions(heap, 'heap'),
    optional: ['node.processors'],
  },
  k8s: {
    ref: false,
    sizes: declaredSizes,
    place: () => ({}),
    jvm: (heap) => jvmOptions(heap, 'heap'),
    owns: ECK_OWNS,
    extra: { 'node.store.allow_mmap': [false, 'no vm.max_map_count to raise on the Kubernetes nodes (no privileged init container)'] },
  },
};

/**
 * ES_RECOVERY_MAX_BYTES_PER_SEC: how fast a node sends or receives shard copies (replicas
 * built, recoveries after a restart). Elasticsearch's 40mb protects a real network; a lab's
 * copies cross loopback, and `make up` waits for the seeded indices' replicas. A byte rate
 * (e.g. 500mb); missing or empty: Elasticsearch's own 40mb.
 */
function recoveryRate(env, file) {
  const value = String(env.ES_RECOVERY_MAX_BYTES_PER_SEC ?? '').trim() || '40mb';
  if (!/^[0-9]+(b|kb|mb|gb)$/i.test(value)) throw new TopologyError(file, `ES_RECOVERY_MAX_BYTES_PER_SEC=${value}: want a byte rate per second like 500mb or 40mb (Elasticsearch's indices.recovery.max_bytes_per_sec)`);
  return value;
}

/**
 * THE function: every node's config for one runtime.
 *   model     topology(env)
 *   env       lab.env's values (loadLabEnv: merged with the environment)
 *   runtime   'native' | 'compose' | 'k8s' (VARIANTS)
 *   options   native: { resolved: resolveShape(model, machine), dirs: { lab, dist, data, logs } }
 *             (a node's data in data/NAME, logs in logs/NAME, temp files in lab/tmp/NAME)
 * -> [{ name, key, group, roles, settings: { key: value } (in order), notes: { key: why },
 *      optional: [keys left out when empty at run time], jvm: [options], heap,
 *      limits: { cpuset, cpus, cpuWeight, memBytes } }]
 * A value is a string, a number (ports, the write queue) or a list (node.roles; for compose a
 * reference). Limits: cpuset null = every CPU, cpus null = no quota, cpuWeight null = one ordinary
 * process's (cgroup v2 cpu.weight scale; compose: cpu_shares), memBytes null = no limit.
 */
export function nodeConfigs(model, env, runtime, { resolved, dirs, file = 'lab.env' } = {}) {
  const variant = Object.hasOwn(VARIANTS, runtime) ? VARIANTS[runtime] : null;
  if (!variant) throw new Error(`nodeConfigs: unknown runtime '${runtime}' (${RUNTIMES.join(', ')})`);
  if (runtime === 'native' && (!resolved || !dirs)) throw new Error('nodeConfigs: native needs the resolved shape and the lab\'s dirs');
  // a lab.env value: itself, or a reference Compose interpolates
  const v = (key, value) => (variant.ref ? `\${${key}}` : value ?? '');
  const number = (text) => (/^-?[0-9]+$/.test(String(text)) ? Number(text) : text);
  const ctx = {
    env, dirs, model, v,
    master: model.nodes.find((n) => n.name === model.master),
    resolved: new Map((resolved?.nodes ?? []).map((n) => [n.name, n])),
  };

  return model.nodes.map((node) => {
    const sizes = variant.sizes(node, ctx);
    if (!variant.ref && !sizes.heap) throw new TopologyError(file, `ES_HEAP is missing: every node's heap (e.g. ES_HEAP=512m), unless ${node.key}_HEAP gives ${node.name} its own`);
    const s = {};
    s['cluster.name'] = v('CLUSTER_NAME', env.CLUSTER_NAME);
    s['node.name'] = node.name;
    s['node.roles'] = v(`${node.key}_ROLES`, node.roles);
    // Compose interpolates values only, never keys: the attribute's name is a reference too
    if (node.group !== null) s[`node.attr.${v('LAB_GROUP_ATTR', model.groupAttr)}`] = v(`${node.key}_GROUP`, node.group);
    Object.assign(s, variant.place(node, ctx));
    s['cluster.initial_master_nodes'] = v('LAB_MASTER_NODE', model.master);
    s['cluster.routing.allocation.disk.watermark.low'] = v('ES_DISK_WATERMARK_LOW', env.ES_DISK_WATERMARK_LOW);
    s['cluster.routing.allocation.disk.watermark.high'] = v('ES_DISK_WATERMARK_HIGH', env.ES_DISK_WATERMARK_HIGH);
    s['cluster.routing.allocation.disk.watermark.flood_stage'] = v('ES_DISK_WATERMARK_FLOOD', env.ES_DISK_WATERMARK_FLOOD);
    s['thread_pool.write.queue_size'] = v('ES_WRITE_QUEUE', number(env.ES_WRITE_QUEUE || '10000'));
    s['indices.recovery.max_bytes_per_sec'] = v('ES_RECOVERY_MAX_BYTES_PER_SEC', recoveryRate(env, file));
    // A shaped node sizes its thread pools from its share of the machine, as a small machine
    // would (shape.js: the quota, else its CPU count); the JVM alone would see every core under
    // taskset's affinity on some JDKs, and rounds a fractional quota up. SHAPE=off: none set
    if (sizes.processors !== null) s['node.processors'] = sizes.processors;
    const notes = {};
    for (const [k, [value, why]] of Object.entries(variant.extra ?? {})) {
      s[k] = value;
      notes[k] = why;
    }
    return {
      name: node.name,
      key: node.key,
      group: node.group,
      roles: node.roles,
      settings: variant.owns ? Object.fromEntries(Object.entries(s).filter(([k]) => !variant.owns.test(k))) : s,
      // why a setting is there, for a generated file's reader: { key: text }
      notes,
      optional: variant.optional ?? [],
      jvm: variant.jvm(sizes.heap, node, ctx),
      heap: sizes.heap,
      limits: { cpuset: sizes.cpuset, cpus: sizes.cpus, cpuWeight: sizes.cpuWeight, memBytes: sizes.memBytes },
    };
  });
}

/** The native runtime's AOT training node (runtimes/native/lib/aot-cache.sh) */
export const AOT_TRAINING_NODE = 'aot-training';

/**
 * The native runtime's AOT training node: one node started once so that its JVM records the
 * classes a node loads while it starts (runtimes/native/lib/aot-cache.sh). It runs with the
 * master's JVM options (a cache serves JVMs of the same module path and options only), alone in a
 * cluster of its own (single-node discovery: it never joins the lab's), on LAB_BIND at the first
 * free ports of ranges no lab node uses, its files under the lab's tmp/aot-training, and no
 * limits (every CPU: the training is over sooner). configs: the native nodeConfigs() it goes
 * with (the master's JVM options come from there). Same shape as a nodeConfigs() entry.
 */
export function aotTrainingConfig(configs, model, env, { dirs }) {
  const master = configs.find((c) => c.name === model.master);
  const dir = `${dirs.lab}/tmp/${AOT_TRAINING_NODE}`;
  return {
    name: AOT_TRAINING_NODE,
    key: 'AOT_TRAINING',
    group: null,
    roles: master.roles,
    settings: {
      'cluster.name': `${env.CLUSTER_NAME ?? 'tenantlab'}-${AOT_TRAINING_NODE}`,
      'node.name': AOT_TRAINING_NODE,
      'path.home': dirs.dist,
      'path.data': `${dir}/data`,
      'path.logs': `${dir}/logs`,
      'network.host': env.LAB_BIND ?? '',
      'http.port': '39200-39299',
      'transport.port': '39300-39399',
      'discovery.type': 'single-node',
      'node.processors': 1,
    },
    notes: {},
    optional: [],
    jvm: jvmOptions(master.heap, 'launcher', { labDir: dirs.lab, dist: dirs.dist, tmp: `${dir}/tmp` }),
    heap: master.heap,
    limits: { cpuset: null, cpus: null, cpuWeight: null, memBytes: null },
  };
}

/**
 * The run-time values the compose variant's references name, for a shape resolved on the
 * engine's CPUs: per node <KEY>_CPUSET_APPLIED (empty: every CPU), <KEY>_CPUS_APPLIED (0: no
 * quota, as Compose's `cpus`), <KEY>_MEM_APPLIED (0: no limit, as Compose's `mem_limit`),
 * <KEY>_HEAP_APPLIED, <KEY>_PROCESSORS_APPLIED (node.processors; empty: not set) and
 * <KEY>_JVM_OPTIONS_APPLIED (the launcher's options inside the local image, space-separated:
 * its entrypoint runs them), and SHAPE_APPLIED, the one-line description (describeShape).
 */
export function appliedEnv(resolved) {
  const env = { SHAPE_APPLIED: describeShape(resolved) };
  for (const n of resolved.nodes) {
    const s = resolvedSizes(n);
    const value = {
      CPUSET: s.cpuset ?? '',
      CPUS: s.cpus === null ? '0' : String(s.cpus),
      CPU_SHARES: s.cpuWeight === null ? '0' : String(cpuShares(s.cpuWeight)),
      MEM: s.memBytes === null ? '0' : String(s.memBytes),
      HEAP: s.heap ?? '',
      PROCESSORS: s.processors === null ? '' : String(s.processors),
      JVM_OPTIONS: s.heap ? jvmOptions(s.heap, 'launcher', { labDir: IMAGE_HOME, dist: IMAGE_HOME, tmp: `${IMAGE_HOME}/tmp` }).join(' ') : '',
    };
    for (const what of APPLIED) env[appliedKey(n.key, what)] = value[what];
  }
  return env;
}

/**
 * The weights of a native lab's cgroups, on cgroup v2's scale (100 = one ordinary process), the
 * one place they are summed: the kernel weighs a group against its siblings only, so a node's
 * weight changes nothing against the processes outside the lab unless the lab's group
 * (tenantlab/<lab>) carries the sum of what is in it. -> { lab, load }: `lab` the lab's group,
 * the sum of its nodes' weights (100 for an unweighted node) and the load engine's
 * (loadCpuWeight, LOAD_CPU_WEIGHT), or one process's (100) when nothing in it is weighted, as
 * before weights existed; `load` the load engine's group (tenantlab/<lab>/load-engine), null
 * when it runs as an ordinary process.
 */
export function cgroupWeights(configs, loadCpuWeight = null) {
  const weighted = loadCpuWeight !== null || configs.some((c) => c.limits.cpuWeight !== null);
  // cgroup v2 takes at most 10000
  const lab = weighted ? Math.min(10000, configs.reduce((sum, c) => sum + (c.limits.cpuWeight ?? 100), loadCpuWeight ?? 0)) : 100;
  return { lab, load: loadCpuWeight };
}

/** A setting's value as a launcher argument or a -E flag takes it: a list comma-joined */
export const settingText = (value) => (Array.isArray(value) ? value.join(',') : String(value));

/**
 * Native's config as lines for bash, tab-separated, no quoting and no eval needed (no value
 * holds a tab or a newline: lab.env's lines cannot):
 *   *      shape    the shape's one-line description
 *   *      lab_cpu_weight, lab_cpu_shares    the lab's group's weight (cgroupWeights), on v2's
 *                   cpu.weight and v1's cpu.shares scales
 *   *      load_cpu_weight, load_cpu_shares  the load engine's group's (0: no group of its own)
 *   NODE   jvm      a JVM option (one line each, in order)
 *   NODE   main     the launcher's class
 *   NODE   setting  key=value (one line each, in order)
 *   NODE   cpuset   the CPUs it may run on (empty: every CPU)
 *   NODE   cpus     its CPU quota in cores (0: none)
 *   NODE   cpu_weight, cpu_shares  its weight on both scales (0: one ordinary process's)
 *   NODE   mem      its memory limit in bytes (0: none)
 * The java command line of NODE is its jvm, main and setting lines, in that order. `weights`:
 * cgroupWeights() of the lab's nodes (default: of `configs`, with no load engine weight).
 */
export function shellLines(configs, describe, weights = cgroupWeights(configs)) {
  const out = [['*', 'shape', describe],
    ['*', 'lab_cpu_weight', String(weights.lab)], ['*', 'lab_cpu_shares', String(cpuShares(weights.lab))],
    ['*', 'load_cpu_weight', weights.load === null ? '0' : String(weights.load)], ['*', 'load_cpu_shares', weights.load === null ? '0' : String(cpuShares(weights.load))]];
  for (const c of configs) {
    for (const o of c.jvm) out.push([c.name, 'jvm', o]);
    out.push([c.name, 'main', LAUNCHER_MAIN]);
    for (const [k, value] of Object.entries(c.settings)) out.push([c.name, 'setting', `${k}=${settingText(value)}`]);
    out.push([c.name, 'cpuset', c.limits.cpuset ?? '']);
    out.push([c.name, 'cpus', c.limits.cpus === null ? '0' : String(c.limits.cpus)]);
    out.push([c.name, 'cpu_weight', c.limits.cpuWeight === null ? '0' : String(c.limits.cpuWeight)]);
    out.push([c.name, 'cpu_shares', c.limits.cpuWeight === null ? '0' : String(cpuShares(c.limits.cpuWeight))]);
    out.push([c.name, 'mem', c.limits.memBytes === null ? '0' : String(c.limits.memBytes)]);
  }
  for (const row of out) {
    if (row.some((f) => /[\t\n]/.test(String(f)))) throw new Error(`node-config: a tab or newline in '${row.join(' ')}'`);
  }
  return out.map((row) => `${row.join('\t')}\n`).join('');
}
