// Point-in-time + search_after: the native runtime has no scroll-free reindex, and a PIT gives
// a stable snapshot that concurrent writes cannot shift under the cursor.

/**
 * Yields pages of hits (with _version and _routing) matching `query` in `index`.
 * The PIT is always closed, also when the consumer stops early or throws.
 */
export async function* scanPages(client, { index, query, size = 1000, keepAlive = '2m', source = true }) {
  const { id } = await client.openPointInTime({ index, keep_alive: keepAlive, ignore_unavailable: false });
  let pit = id;
  try {
    let after;
    for (;;) {
      const res = await client.search({
        pit: { id: pit, keep_alive: keepAlive },
        query,
        size,
        sort: [{ _shard_doc: 'asc' }],
        version: true,
        _source: source,
        track_total_hits: false,
        ...(after ? { search_after: after } : {}),
      });
      pit = res.pit_id ?? pit;
      const hits = res.hits.hits;
      if (!hits.length) return;
      yield hits;
      if (hits.length < size) return;
      after = hits[hits.length - 1].sort;
    }
  } finally {
    await client.closePointInTime({ id: pit }).catch(() => {});
  }
}
