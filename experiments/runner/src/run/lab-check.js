// Is this lab fit to measure? Refuse rather than report skewed figures: the cluster answers and
// is green, nothing relocates or initializes, no task is pending, nothing else searches or
// indexes (sampled over a few seconds), every variant fits its index group, and the disk holds
// the dataset. Each refusal is one line saying what to do.
import { RunError } from '../errors.js';
import { esReason } from '@tenantlab/contract/errors';
import { nodeKey } from '@tenantlab/contract/topology';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export async function requireUp(client, esUrl) {
  try {
    return await client.cluster.health({ timeout: '5s' }, { requestTimeout: 10000, maxRetries: 0 });
  } catch (err) {
    throw new RunError(`the lab is not up: Elasticsearch does not answer at ${esUrl} (${esReason(err)}); start it with 'make up', or run with LAB=own`);
  }
}

async function opCounts(client) {
  const body = await client.transport.request({ method: 'GET', path: '/_nodes/stats/indices/search,indexing', querystring: { filter_path: 'nodes.*.indices.search.query_total,nodes.*.indices.indexing.index_total' } });
  let search = 0, indexing = 0;
  for (const n of Object.values(body.nodes ?? {})) {
    search += n.indices?.search?.query_total ?? 0;
    indexing += n.indices?.indexing?.index_total ?? 0;
  }
  return { search, indexing };
}

/**
 * Refuses a lab that is busy (not green, moving shards, pending tasks, other load). A lab that is
 * settling (a node just restarted) gets 30 s to finish first. The lab's own background is
 * allowed: the allocator's observer sends one aggregation every few seconds (a few shard-level
 * queries per second); a load test or a seed is hundreds.
 */
export async function requireQuiet(client, { sampleMs = 3000, maxOpsPerS = 25, settleTimeout = '30s' } = {}) {
  const h = await client.cluster.health({ wait_for_status: 'green', wait_for_no_relocating_shards: true, wait_for_no_initializing_shards: true, timeout: settleTimeout }, { requestTimeout: 40000 });
  if (h.status !== 'green') throw new RunError(`the lab is not quiet: the cluster is ${h.status}; wait for green (make status) before an experiment`);
  if (h.relocating_shards || h.initializing_shards) {
    throw new RunError(`the lab is not quiet: ${h.relocating_shards} shards relocating, ${h.initializing_shards} initializing; wait until they finish (a move or rebalance?)`);
  }
  await requireNoPendingTasks(client, h.number_of_pending_tasks, settleTimeout);
  const a = await opCounts(client);
  await sleep(sampleMs);
  const b = await opCounts(client);
  const rate = ((b.search - a.search) + (b.indexing - a.indexing)) / (sampleMs / 1000);
  if (rate > maxOpsPerS) {
    throw new RunError(`the lab is not quiet: ${Math.round(rate)} shard searches and document writes per second from something else (a load test, a seed?); stop it, or run with LAB=own for a lab of the experiment's own`);
  }
  return { status: h.status, other_ops_per_s: Math.round(rate * 10) / 10 };
}

/**
 * The master's queue drains: a lab that just started keeps queueing short tasks for a while after
 * it is green (Elasticsearch installs its built-in templates and pipelines, shards report
 * started), so a pending task is waited for, up to the settle timeout; only a queue that never
 * empties refuses, naming what it holds.
 */
async function requireNoPendingTasks(client, pending, settleTimeout) {
  const deadline = Date.now() + parseInt(settleTimeout, 10) * 1000;
  while (pending && Date.now() < deadline) {
    await sleep(1000);
    const h = await client.cluster.health({ wait_for_events: 'languid', timeout: '5s' }, { requestTimeout: 10000, ignore: [408] });
    pending = h.number_of_pending_tasks;
  }
  if (!pending) return;
  const tasks = await client.cluster.pendingTasks().then((b) => b.tasks ?? [], () => []);
  const what = [...new Set(tasks.map((t) => String(t.source).split(' ')[0]))].slice(0, 3).join(', ');
  throw new RunError(`the lab is not quiet: ${pending} cluster tasks pending for ${settleTimeout}${what ? ` (${what})` : ''}; try again when they are done`);
}

/**
 * A lab just (re)started: every shard started, nothing relocating or recovering, the master's
 * queue drained (wait_for_events languid), before the quiet check samples it.
 */
export async function settleAfterStart(client, timeout = '180s') {
  const health = await client.cluster.health({ wait_for_status: 'green', wait_for_no_relocating_shards: true, wait_for_no_initializing_shards: true, wait_for_events: 'languid', timeout }, { requestTimeout: 200000 });
  if (health.status !== 'green' || health.timed_out) throw new RunError(`the experiment's lab was not green and settled ${timeout} after it started (${health.status}, ${health.initializing_shards} initializing, ${health.relocating_shards} relocating)`, 1);
}

/** data nodes per index group (node attribute groupAttr), and in all */
export async function groupsOf(client, groupAttr) {
  const attrs = await client.cat.nodeattrs({ format: 'json', h: 'node,attr,value' });
  const nodes = await client.cat.nodes({ format: 'json', h: 'name,node.role' });
  const data = nodes.filter((n) => /[dhwcs]/.test(n['node.role'])).map((n) => n.name);
  const groups = { all: data.length };
  for (const a of attrs) if (a.attr === groupAttr && data.includes(a.node)) groups[a.value] = (groups[a.value] ?? 0) + 1;
  return groups;
}

/** Every variant fits the lab: its group exists and holds replicas + 1 data nodes. */
export function requireVariantsFit(variants, groups) {
  const named = Object.keys(groups).filter((g) => g !== 'all').sort();
  for (const v of variants) {
    if (v.group === 'spread') {
      // index i on the i-th group: as many groups as indices, each deep enough for the copies
      if (named.length < v.indices) throw new RunError(`variant ${v.name}: group spread puts each of its ${v.indices} indices on a group of its own; the lab has ${named.length} (${named.join(', ') || 'none'})`);
      const short = named.slice(0, v.indices).find((g) => groups[g] < v.replicas + 1);
      if (short) throw new RunError(`variant ${v.name}: ${v.replicas} replica(s) need ${v.replicas + 1} data nodes in group ${short}; the lab has ${groups[short]}`);
      continue;
    }
    const have = groups[v.group];
    if (have === undefined) {
      const known = Object.keys(groups).filter((g) => g !== 'all');
      throw new RunError(`variant ${v.name}: no index group '${v.group}' in this lab (it has ${known.join(', ') || 'none'}; or 'all')`);
    }
    if (v.replicas + 1 > have) {
      throw new RunError(`variant ${v.name}: ${v.replicas} replica(s) need ${v.replicas + 1} data nodes in group ${v.group}; the lab has ${have}`);
    }
  }
}

// A generated product is about 1.2 KB of source; indexed with its inverted index and doc values
// about twice that on disk before merging. Generous on purpose: this only refuses hopeless runs.
export const BYTES_PER_DOC_ON_DISK = 3000;

/**
 * Refuses a dataset the data nodes' disk cannot hold: every variant's copies (primary +
 * replicas) with a 20% margin, against the smallest free space of a data node (the nodes of one
 * machine share a disk, so that is what the whole dataset gets). Pure: the numbers in, a
 * RunError or the figures out.
 */
export function diskVerdict({ documents, variants, freeBytes }) {
  const copies = variants.reduce((a, v) => a + (1 + v.replicas), 0);
  const need = documents * BYTES_PER_DOC_ON_DISK * copies * 1.2;
  const free = freeBytes.length ? Math.min(...freeBytes) : 0;
  if (free < need) {
    const gb = (b) => (b / 1e9).toFixed(1);
    throw new RunError(`too little disk: the dataset needs about ${gb(need)} GB (${documents} documents x ${copies} shard copies over the variants), the data nodes have ${gb(free)} GB free; use QUICK=1, a smaller dataset scale, or free space`);
  }
  return { need_bytes: Math.round(need), free_bytes: free };
}

/** The disk of the data nodes holds every variant's copies (diskVerdict). */
export async function requireDisk(client, { documents, variants }) {
  const body = await client.transport.request({ method: 'GET', path: '/_nodes/stats/fs', querystring: { filter_path: 'nodes.*.fs.total.available_in_bytes,nodes.*.roles' } });
  const freeBytes = Object.values(body.nodes ?? {}).filter((n) => (n.roles ?? []).some((r) => r.startsWith('data'))).map((n) => n.fs?.total?.available_in_bytes ?? 0);
  return diskVerdict({ documents, variants, freeBytes });
}

/**
 * Every node's write queue (thread_pool.write.queue_size) as the nodes report it: a number when
 * they agree, else null. What an experiment that sets `write_queue` really ran with.
 */
export async function writeQueueOf(client) {
  const body = await client.transport.request({ method: 'GET', path: '/_nodes/settings', querystring: { filter_path: 'nodes.*.settings.thread_pool.write.queue_size' } });
  const sizes = [...new Set(Object.values(body.nodes ?? {}).map((n) => n.settings?.thread_pool?.write?.queue_size))];
  return sizes.length === 1 && sizes[0] !== undefined ? Number(sizes[0]) : null;
}

/**
 * The HTTP addresses of the data nodes of each index group, read once: -> urlsOf(group), the
 * addresses of that group's nodes ('all': every data node), sorted by node name. `env` holds the
 * ports of the lab measured (the experiment's own lab's, shifted).
 */
export async function nodeUrlsByGroup(client, { groupAttr, env = process.env }) {
  const attrs = await client.cat.nodeattrs({ format: 'json', h: 'node,attr,value' });
  return (group) => [...new Set(attrs.filter((a) => a.attr === groupAttr && (group === 'all' || a.value === group)).map((a) => a.node))].sort()
    .map((node) => env[`${nodeKey(node)}_HTTP_PORT`]).filter(Boolean)
    .map((port) => `http://${env.LAB_BIND || '127.0.0.1'}:${port}`);
}
