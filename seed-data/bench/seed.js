// make bench-seed: the seeder against three baselines, same documents, same cluster, same run.
//   naive    what a first loader written with the official client looks like (naive-loader.js)
//   helper   the official client's own bulk helper, tuned: 5 MB flushes, the seeder's concurrency
//   ceiling  the documents pre-generated to NDJSON files and sent by plain HTTP: the client
//            costs nothing, so this is as fast as the cluster takes them (ceiling.js)
// Each load runs in a process of its own into fresh indices (an allocator of its own, own index
// prefix, tenants created through it first) and is verified by count. Prints docs/s of each,
// to the end of the load and to green (replica rebuild counted), the seeder's ratio to each
// (targets: >= 1.5x naive, >= 1.0x helper, >= 0.85x ceiling), and the seeder's share of the
// CPU used while it seeds, against the Elasticsearch JVMs (target <= 15%).
//
//   BENCH_SCALE   share of the ci profile's 50,000 products (default 1)
//   BENCH_SEED    seed (default 1)
//   BENCH_ROUNDS  rounds of every variant (order rotating); the best of each is compared (default 2)
//   BENCH_VARIANTS  which to run (default naive,helper,ceiling,seeder)
//   BENCH_SEEDER_ARGS  extra seeder options, e.g. '--concurrency 4 --bulk-bytes 2mb'; the
//                 helper and the ceiling use the same request size and concurrency
//   ES_URL, ALLOCATOR_URL as everywhere; without ALLOCATOR_URL an allocator of our own runs.
//   BENCH_SAVE    a file to keep the result in too: seed-data/bench/results/bench-seed.json is
//                 the committed run whose figures `make render` writes into docs/benchmarks.md
// The result is always kept in $LAB_DIR/results/<time>-bench-seed/bench-seed.json.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AllocatorClient as AllocatorApi } from '@tenantlab/contract/allocator-client';
import { benchEnvironment, saveBenchResult } from '@tenantlab/contract/bench-result';
import { labRoot } from '@tenantlab/contract/lab-env-file';
import { loadConfig } from '../src/config.js';
import { buildContext, parseOptions } from '../src/cli/options.js';
import { catalogItems } from '@tenantlab/dataset/catalog';
import { generateTenants, tenantSpec } from '@tenantlab/dataset/tenants';
import { loadProfile } from '@tenantlab/dataset/profiles';
import { compareCounts, countTenants } from '../src/verify/counts.js';
import { clusterUp, es, esUrl, startAllocator, uid } from '../test/integration/harness.js';
import { childrenCpu, esCpu, esPids } from './cpu.js';

const scale = Number(process.env.BENCH_SCALE ?? 1);
const seed = Number(process.env.BENCH_SEED ?? 1);
const rounds = Number(process.env.BENCH_ROUNDS ?? 2);
const VARIANTS = ['naive', 'helper', 'ceiling', 'seeder'];
const wanted = (process.env.BENCH_VARIANTS ?? VARIANTS.join(',')).split(',').map((v) => v.trim()).filter(Boolean);
const seederArgs = (process.env.BENCH_SEEDER_ARGS ?? '').split(' ').filter(Boolean);
const profile = loadProfile('ci');
const config = loadConfig();
const bin = new URL('../bin/tenantlab-seed', import.meta.url).pathname;
const variantJs = new URL('./variant.js', import.meta.url).pathname;
const pct = (x) => `${(100 * x).toFixed(1)}%`;
// what the seeder's docs/s should be against each baseline, and its share of the CPU at most
const TARGETS = { naive: 1.5, helper: 1.0, ceiling: 0.85, cpu_share: 0.15 };
const say = (s) => console.log(s);
// Load settings the baselines record stay out of the lab's own state directory.
const stateDir = mkdtempSync(join(tmpdir(), 'seed-bench-'));

async function withAllocator(fn) {
  const allocator = await startAllocator();
  try {
    return await fn(allocator);
  } finally {
    await allocator.stop();
  }
}

/** Lets the previous phase's background work (deletes, merges, recoveries) die down. */
async function settle() {
  await es.cluster.health({ wait_for_status: 'green', wait_for_no_relocating_shards: true, timeout: '120s' }, { requestTimeout: 130000 });
  await new Promise((r) => setTimeout(r, 3000));
}

async function timeToGreen() {
  const t0 = Date.now();
  await es.cluster.health({ wait_for_status: 'green', timeout: '300s' }, { requestTimeout: 310000 });
  return (Date.now() - t0) / 1000;
}

function run(args, env = {}) {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, args, { env: { ...process.env, ES_URL: esUrl, SEED_PROGRESS: 'none', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    p.stdout.on('data', (d) => (out += d));
    p.stderr.on('data', (d) => (err += d));
    p.on('exit', (code) => (code === 0 ? resolve({ out, err }) : reject(new Error(`${args[0].split('/').at(-1)} ${args[1]} failed (${code}): ${err.trim().split('\n').at(-1)}`))));
  });
}

async function main() {
  const environment = benchEnvironment(labRoot);
  for (const v of wanted) if (!VARIANTS.includes(v)) throw new Error(`BENCH_VARIANTS: unknown variant '${v}' (${VARIANTS.join(', ')})`);
  if (!(await clusterUp())) throw new Error(`no cluster at ${esUrl}: start the lab (make up)`);
  // The seeder's own request size and concurrency (defaults, SEED_* variables, BENCH_SEEDER_ARGS)
  const { bulk } = buildContext(parseOptions(['seed', '-p', 'ci', ...seederArgs]).values);
  const pids = await esPids(es);
  const total = Math.round(profile.products * scale);
  say(`bench-seed: profile ci x${scale} = ${total} documents in ${profile.stores} tenants (seed ${seed}), cluster ${esUrl}, ${pids.length} nodes; requests ${Math.round(bulk.flushBytes / 1024)} KB x ${bulk.concurrency} in flight for helper, ceiling and seeder`);

  const runOne = (name) => withAllocator(async (allocator) => {
    const prefix = `sdb${name[0]}${uid()}`;
    const tenants = generateTenants({ seed, profile, scale, prefix });
    const api = new AllocatorApi(allocator.url);
    for (const t of tenants) await api.createTenant(tenantSpec(t));
    await settle();
    const es0 = await esCpu(es, pids);
    const me0 = childrenCpu();
    let r;
    if (name === 'seeder') {
      const args = [bin, 'seed', '-p', 'ci', '--seed', String(seed), '--scale', String(scale), '--tenant-prefix', prefix, '--allocator', allocator.url, '--wait-green', '0', ...seederArgs];
      const { out } = await run(args);
      const m = /seed: (\d+) documents in ([\d.]+)s.*verified (\d+) documents/.exec(out);
      // a seeder that exits 0 without its closing line measured nothing: no figure from it
      if (!m) throw new Error(`seeder: exited 0 without its "seed: N documents in S s ... verified N documents" line (it printed: ${out.trim().split('\n').at(-1) || 'nothing'})`);
      r = { docs: Number(m[1]), seconds: Number(m[2]), verified: Number(m[3]) };
    } else {
      const cfg = { esUrl, allocatorUrl: allocator.url, seed, scale, prefix, flushBytes: bulk.flushBytes, concurrency: bulk.concurrency, stateDir };
      const last = (await run([variantJs, name, JSON.stringify(cfg)])).out.trim().split('\n').at(-1);
      try {
        r = JSON.parse(last);
      } catch {
        throw new Error(`${name}: bench/variant.js exited 0 without its JSON line (it printed: ${last || 'nothing'})`);
      }
    }
    // The whole child's CPU (the seeder's includes its start and its verification)
    const processCpu = childrenCpu() - me0;
    const esUsed = (await esCpu(es, pids)).seconds - es0.seconds;
    const green = await timeToGreen();
    // Checked here too, the same way for every variant: nothing lost
    const bad = compareCounts(tenants, await countTenants(es, tenants.map((t) => t.id)));
    if (bad.length || r.verified !== total) throw new Error(`${name}: ${bad.length} tenants do not match the manifest after the load (verified ${r.verified} of ${total})`);
    return { name, ...r, rate: r.docs / r.seconds, green, greenRate: r.docs / (r.seconds + green), processCpu, esCpu: esUsed, cpuSource: es0.source };
  });

  // Rounds with the order rotating: the lab shares its 2 cores with whatever else runs, and
  // the best round of each variant is the one least disturbed by it.
  const runs = Object.fromEntries(wanted.map((v) => [v, []]));
  for (let round = 1; round <= rounds; round++) {
    for (let k = 0; k < wanted.length; k++) {
      const name = wanted[(k + round - 1) % wanted.length];
      const r = await runOne(name);
      runs[name].push(r);
      say(`  round ${round}: ${name.padEnd(7)} ${r.docs} docs in ${r.seconds.toFixed(1)}s = ${Math.round(r.rate)} docs/s, then green in ${r.green.toFixed(1)}s = ${Math.round(r.greenRate)} docs/s to green (CPU client ${r.processCpu.toFixed(2)}s, Elasticsearch ${r.esCpu.toFixed(2)}s)`);
    }
  }
  const best = (name, key) => runs[name].reduce((a, b) => (b[key] > a[key] ? b : a));

  // The generator alone: the share of the seeder's CPU that is making documents
  const c0 = process.cpuUsage();
  let bytes = 0;
  for (const it of catalogItems(seed, generateTenants({ seed, profile, scale, prefix: 'cpu' }))) bytes += it.source.length;
  const c = process.cpuUsage(c0);
  const genCpu = (c.user + c.system) / 1e6;

  const LABELS = {
    naive: 'naive loader (1000-doc bulks, one at a time, one node, refresh 1s, replicas kept)',
    helper: `client.helpers.bulk (${Math.round(bulk.flushBytes / 1024)} KB flushes, ${bulk.concurrency} in flight, data nodes, load settings as the seeder)`,
    ceiling: `ceiling: pre-generated NDJSON, plain HTTP (${Math.round(bulk.flushBytes / 1024)} KB, ${bulk.concurrency} in flight, data nodes, load settings as the seeder)`,
    seeder: 'tenantlab-seed (5 MB bulks, concurrent, all data nodes, refresh -1 and 0 replicas during the load)',
  };
  say('');
  for (const v of wanted) say(`${v.padEnd(8)} ${LABELS[v]}`);
  say('');
  const head = ['variant', 'docs/s (load)', 'load s', 'green after s', 'docs/s to green', 'client CPU s', 'seeder x (load)', 'seeder x (to green)'];
  const rows = [head];
  const seeder = runs.seeder ? { load: best('seeder', 'rate'), green: best('seeder', 'greenRate') } : null;
  for (const v of wanted) {
    const b = best(v, 'rate');
    const g = best(v, 'greenRate');
    const ratio = (x) => (seeder && v !== 'seeder' ? `${x.toFixed(2)}x` : '');
    rows.push([v, String(Math.round(b.rate)), b.seconds.toFixed(1), b.green.toFixed(1), String(Math.round(g.greenRate)), (v === 'seeder' || v === 'naive' ? b.processCpu : b.cpu).toFixed(2), ratio(seeder ? seeder.load.rate / b.rate : 0), ratio(seeder ? seeder.green.greenRate / g.greenRate : 0)]);
  }
  const widths = head.map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  rows.forEach((r, k) => {
    say(r.map((cell, i) => (i ? cell.padStart(widths[i]) : cell.padEnd(widths[i]))).join('  '));
    if (!k) say(widths.map((w) => '-'.repeat(w)).join('  '));
  });
  say('(best round of each; "to green": docs / (load + replica rebuild after it); client CPU: the whole process for naive and seeder, the load alone for helper and ceiling)');
  say('');
  let cpu = null;
  if (seeder) {
    for (const v of wanted.filter((x) => x !== 'seeder')) {
      const load = seeder.load.rate / best(v, 'rate').rate;
      const green = seeder.green.greenRate / best(v, 'greenRate').greenRate;
      const t = TARGETS[v];
      say(`docs/s ratio vs ${v}: ${load.toFixed(2)}x to the end of the load, ${green.toFixed(2)}x to green (target >= ${t}x: ${load >= t ? 'met' : 'MISSED'} / ${green >= t ? 'met' : 'MISSED'})`);
    }
    // CPU share: over every seeder round, so one quiet round does not flatter the figure.
    const seedCpu = runs.seeder.reduce((a, r) => a + r.processCpu, 0) / runs.seeder.length;
    const esCpuAvg = runs.seeder.reduce((a, r) => a + r.esCpu, 0) / runs.seeder.length;
    const share = seedCpu / (seedCpu + esCpuAvg);
    const genShare = genCpu / (seedCpu + esCpuAvg);
    say(`generator CPU share: ${pct(share)} of the CPU used during seeding (per round: seeder process ${seedCpu.toFixed(2)}s, Elasticsearch JVMs ${esCpuAvg.toFixed(2)}s, from ${runs.seeder[0].cpuSource}) (target <= 15%: ${share <= TARGETS.cpu_share ? 'met' : 'MISSED'}); generating the documents alone: ${genCpu.toFixed(2)}s = ${pct(genShare)}`);
    cpu = { seeder_s: seedCpu, elasticsearch_s: esCpuAvg, share, generator_s: genCpu, generator_share: genShare, source: runs.seeder[0].cpuSource };
  }
  const round3 = (x) => Math.round(x * 1000) / 1000;
  const result = {
    bench: 'bench-seed',
    ...environment,
    lab: { data_nodes: pids.length, shape: config.env.SHAPE ?? null, es_heap: config.env.ES_HEAP ?? null },
    profile: 'ci', scale, seed, documents: total, rounds,
    request: { bytes: bulk.flushBytes, concurrency: bulk.concurrency },
    targets: TARGETS,
    variants: Object.fromEntries(wanted.map((v) => [v, {
      label: LABELS[v],
      best_rate: round3(best(v, 'rate').rate),
      best_green_rate: round3(best(v, 'greenRate').greenRate),
      rounds: runs[v].map((r) => ({ docs: r.docs, seconds: round3(r.seconds), green_s: round3(r.green), rate: round3(r.rate), green_rate: round3(r.greenRate), client_cpu_s: round3(v === 'seeder' || v === 'naive' ? r.processCpu : r.cpu), elasticsearch_cpu_s: round3(r.esCpu) })),
    }])),
    cpu: cpu && Object.fromEntries(Object.entries(cpu).map(([k, x]) => [k, typeof x === 'number' ? round3(x) : x])),
  };
  const [where, saved] = saveBenchResult('bench-seed', result, { labDir: config.labDir });
  say(`result: ${where}${saved ? ` (and ${saved})` : ''}`);
}

main()
  .then(() => es.close())
  .catch((err) => {
    console.error(`error: ${err.message}`);
    process.exitCode = 1;
    return es.close().catch(() => {});
  })
  .finally(() => rmSync(stateDir, { recursive: true, force: true }));
