// The real cluster as tests see it: is it there, and removing what a test run created.
import { forEachUrlBatch } from '@tenantlab/contract/bounded';

/** True when the cluster behind `client` (an @elastic/elasticsearch Client) answers and is not red. */
export async function clusterHealthy(client) {
  try {
    const h = await client.cluster.health({ timeout: '5s' });
    return h.status !== 'red';
  } catch {
    return false;
  }
}

/** Deletes every index and the index template an allocator with this index prefix created. */
export async function deletePrefix(client, prefix) {
  // Wildcard deletes are refused (action.destructive_requires_name): delete by name.
  const rows = await client.cat.indices({ index: `${prefix}*`, format: 'json', h: 'index', expand_wildcards: 'all' }).catch(() => []);
  const names = rows.map((r) => r.index).filter((n) => n.startsWith(prefix));
  await forEachUrlBatch(names, (index) => client.indices.delete({ index, ignore_unavailable: true }));
  await client.indices.deleteIndexTemplate({ name: `${prefix}products` }).catch(() => {});
}
