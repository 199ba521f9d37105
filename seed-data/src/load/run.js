// One load from start to end: initial-load settings (optional), the bulk loader with its
// progress display, and the settings put back whatever happens (error, Ctrl-C, SIGTERM).
import { join } from 'node:path';
import { listed } from '@tenantlab/contract/bounded';
import { SeedError } from '../errors.js';
import { Progress } from '../progress.js';
import { applyInitialLoadSettings, emptyIndices, indicesOfTenants, restorePending } from './initial-load-settings.js';
import { BulkLoader } from './bulk-loader.js';
import { dataNodesClient, esReason } from './cluster.js';

export const stateFileOf = (labDir) => join(labDir, 'seed-data', 'initial-load-settings.json');

export async function runLoad({ entry, esUrl, esOptions = {}, labDir, tenants, indexOf = new Map(), items, initialLoad, label, bulk, progressMode, log }) {
  const stateFile = stateFileOf(labDir);
  // Leftovers of a seeder that was killed mid-load are put back first.
  const leftovers = await restorePending(entry, stateFile).catch(() => []);
  if (leftovers.length) log(`restored load settings a previous run left on ${listed(leftovers)}`);

  let settings = { restore: async () => {}, indices: [] };
  if (initialLoad) {
    const all = indicesOfTenants(tenants, indexOf);
    const indices = await emptyIndices(entry, all);
    settings = await applyInitialLoadSettings(entry, indices, stateFile);
    if (indices.length) log(`initial load: refresh_interval -1 and 0 replicas on ${listed(indices)} until the load ends`);
    const empty = new Set(indices);
    const kept = all.filter((i) => !empty.has(i));
    if (kept.length) log(`replicas and refresh kept on ${listed(kept)}: they already hold documents`);
  }
  const onSignal = (sig) => {
    log(`${sig}: restoring index settings before exiting`);
    settings.restore().finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);

  const { client, nodes } = await dataNodesClient(entry, esUrl, esOptions);
  const loader = new BulkLoader({ client, ...bulk });
  const progress = new Progress({ label, tenants, acked: loader.acked, mode: progressMode });
  loader.onAck = (n) => progress.advance(n);
  log(`${label}: ${progress.total} documents for ${tenants.length} tenants, bulk ${Math.round(loader.flushBytes / 1024)} KB x ${loader.concurrency} over ${nodes.length} node(s)`);
  const started = Date.now();
  progress.start();
  let error = null;
  try {
    await loader.load(items);
  } catch (err) {
    error = err;
  } finally {
    progress.stop();
    try {
      await settings.restore();
    } catch (err) {
      error ??= new SeedError(`could not restore index settings (${esReason(err)}); they are recorded in ${stateFile} and the next run restores them`);
    }
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
    await client.close();
  }
  const seconds = (Date.now() - started) / 1000;
  return { error, stats: loader.stats, acked: loader.acked, seconds, indices: settings.indices };
}
