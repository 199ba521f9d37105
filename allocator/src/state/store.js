// The allocator's memory: tenants, the indices it manages, move jobs and what it learned of the
// groups (meta: their baseline latency, observe/baseline.js), kept in an index of
// its own so that a restart (or a second process after a crash) picks up exactly where the
// last one stopped. Reads are served from the in-memory copy; every change is written through
// before the API answers (an acknowledged index operation is durable in the translog) and
// load() refreshes before it reads, so no write has to wait for a refresh.
import { scanPages } from '../es/scan.js';

const kinds = ['tenant', 'index', 'job', 'meta'];

export class StateStore {
  constructor(client, prefix) {
    this.client = client;
    this.index = `${prefix}allocator-state`;
    this.tenants = new Map();
    this.indices = new Map();
    this.jobs = new Map();
    this.meta = new Map();
  }

  #map(type) {
    return { tenant: this.tenants, index: this.indices, job: this.jobs, meta: this.meta }[type];
  }

  /** Creates the state index if missing; returns true when it already existed. */
  async ensureIndex() {
    if (await this.client.indices.exists({ index: this.index })) return true;
    try {
      await this.client.indices.create({
        index: this.index,
        settings: { number_of_shards: 1, number_of_replicas: 1, 'index.auto_expand_replicas': '0-1' },
        mappings: { dynamic: false, properties: { type: { type: 'keyword' }, key: { type: 'keyword' } } },
        // every copy (the replica, where a second data node can hold one) before the allocator
        // answers: its state is then on two nodes from the first write, and a lab that says it is
        // up (make up waits for the allocator) is green, not yellow for the seconds a replica
        // takes. Past the request's timeout (30 s) the index is there anyway (shards_acknowledged
        // false) and the allocator goes on.
        wait_for_active_shards: 'all',
      });
    } catch (err) {
      if (err?.meta?.body?.error?.type !== 'resource_already_exists_exception') throw err;
      return true;
    }
    return false;
  }

  async load() {
    for (const kind of kinds) this.#map(kind).clear();
    await this.client.indices.refresh({ index: this.index });
    for await (const page of scanPages(this.client, { index: this.index, query: { match_all: {} } })) {
      for (const hit of page) {
        const { type, key, data } = hit._source;
        this.#map(type)?.set(key, data);
      }
    }
  }

  async #put(type, key, data) {
    await this.client.index({ index: this.index, id: `${type}:${key}`, document: { type, key, data } });
    this.#map(type).set(key, data);
    return data;
  }

  async #delete(type, key) {
    await this.client.delete({ index: this.index, id: `${type}:${key}` }).catch((err) => {
      if (err?.meta?.statusCode !== 404) throw err;
    });
    this.#map(type).delete(key);
  }

  putTenant(t) {
    return this.#put('tenant', t.id, { ...t, updated_at: new Date().toISOString() });
  }

  /**
   * Many tenants in one bulk write, all or nothing: when any fails, those written are deleted
   * again and the first failure is thrown, the in-memory state untouched.
   */
  async putTenants(list) {
    const at = new Date().toISOString();
    const stamped = list.map((t) => ({ ...t, updated_at: at }));
    const res = await this.client.bulk({ operations: stamped.flatMap((t) => [{ index: { _index: this.index, _id: `tenant:${t.id}` } }, { type: 'tenant', key: t.id, data: t }]) });
    if (res.errors) {
      const failed = res.items.find((i) => i.index?.error)?.index;
      const written = res.items.filter((i) => !i.index?.error).map((i) => i.index._id);
      if (written.length) await this.client.bulk({ operations: written.map((id) => ({ delete: { _index: this.index, _id: id } })) }).catch(() => {});
      throw new Error(`the allocator's state refused tenant ${failed?._id}: ${failed?.error?.reason ?? failed?.error?.type}`);
    }
    for (const t of stamped) this.tenants.set(t.id, t);
    return stamped;
  }

  /** Deletes many tenants' state (the undo of putTenants); in memory too. */
  async deleteTenants(ids) {
    if (!ids.length) return;
    await this.client.bulk({ operations: ids.map((id) => ({ delete: { _index: this.index, _id: `tenant:${id}` } })) });
    for (const id of ids) this.tenants.delete(id);
  }

  deleteTenant(id) {
    return this.#delete('tenant', id);
  }

  putIndex(ix) {
    return this.#put('index', ix.name, ix);
  }

  deleteIndex(name) {
    return this.#delete('index', name);
  }

  putJob(job) {
    return this.#put('job', job.id, job);
  }

  putMeta(key, data) {
    return this.#put('meta', key, data);
  }

  async drop() {
    await this.client.indices.delete({ index: this.index, ignore_unavailable: true });
  }
}
