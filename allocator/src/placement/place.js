// The placement policy, as pure code over a model of the cluster: same inputs, same answer.
//
//   - A tenant is dedicated when asked to be, when its expected size reaches the policy's
//     threshold, or when it could not fit even an empty shared index (documents or traffic).
//   - Otherwise it shares: the group is the one with the lowest per-node load after adding the
//     tenant; inside it, the shared index with the most headroom (smallest free fraction of
//     tenants, documents and traffic); a new shared index when none has room.
//   - Ties are broken by name, never by Map order or time.
import { IndexedMaxHeap } from './heap.js';
import { tenantLoad } from './load.js';
import { dedicatedIndexName, sharedIndexName, sharedSeq } from '@tenantlab/contract/naming';
import { PlacementError } from '../errors.js';

const byName = (a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

export function dedicatedShards(documents, policy) {
  const d = policy.dedicated;
  return Math.min(d.maxShards, Math.max(1, Math.ceil(documents / d.productsPerShard)));
}

export function needsDedicated(spec, policy) {
  const cap = policy.shared.capacity;
  const tooBig = spec.documents > cap.documents || spec.traffic > cap.traffic;
  if (spec.dedicated === true || tooBig) return true;
  if (spec.dedicated === false) return false;
  return spec.documents >= policy.dedicated.minProducts;
}

export class Placer {
  constructor({ groups, indices = [], tenants = [], policy, prefix }) {
    if (!groups.length) throw new PlacementError('no_groups', 'no index groups: no data node carries the group attribute');
    this.policy = policy;
    this.prefix = prefix;
    this.cap = policy.shared.capacity;
    this.groups = new Map();
    for (const g of [...groups].sort(byName)) {
      this.groups.set(g.name, { name: g.name, nodes: Math.max(1, g.nodes.length), load: 0, heap: new IndexedMaxHeap((a, b) => this.#compareHeadroom(a, b)), maxSeq: 0 });
    }
    this.indices = new Map();
    for (const ix of [...indices].sort(byName)) this.#addIndex(ix);
    this.tenants = new Map();
    for (const t of tenants) this.#attach({ ...t }, t.index);
  }

  #headroom(ix) {
    if (ix.kind !== 'shared') return -Infinity;
    return Math.min(
      1 - ix.tenants / this.cap.tenants,
      1 - ix.documents / this.cap.documents,
      1 - ix.traffic / this.cap.traffic,
    );
  }

  #compareHeadroom(a, b) {
    const d = this.#headroom(a) - this.#headroom(b);
    if (d !== 0) return d;
    return a.name < b.name ? 1 : a.name > b.name ? -1 : 0; // lower name wins ties
  }

  #addIndex(ix) {
    const g = this.groups.get(ix.group);
    const rec = { name: ix.name, group: ix.group, kind: ix.kind, shards: ix.shards, replicas: ix.replicas, tenants: 0, documents: 0, traffic: 0 };
    this.indices.set(ix.name, rec);
    if (!g) return rec; // an index of a group that lost its nodes: known, but never a target
    if (ix.kind === 'shared') {
      g.heap.push(rec);
      g.maxSeq = Math.max(g.maxSeq, sharedSeq(ix.name));
    }
    return rec;
  }

  #attach(t, indexName) {
    const ix = this.indices.get(indexName);
    if (!ix) throw new PlacementError('unknown_index', `tenant ${t.id} is on unknown index ${indexName}`);
    t.index = indexName;
    this.tenants.set(t.id, t);
    ix.tenants += 1;
    ix.documents += t.documents;
    ix.traffic += t.traffic;
    const g = this.groups.get(ix.group);
    if (g) {
      g.load += tenantLoad(t, this.policy);
      g.heap.update(ix);
    }
  }

  /** Takes a tenant out of the model (for planning a move of it). */
  remove(id) {
    const t = this.tenants.get(id);
    if (!t) return undefined;
    const ix = this.indices.get(t.index);
    ix.tenants -= 1;
    ix.documents -= t.documents;
    ix.traffic -= t.traffic;
    const g = this.groups.get(ix.group);
    if (g) {
      g.load -= tenantLoad(t, this.policy);
      g.heap.update(ix);
    }
    this.tenants.delete(id);
    return t;
  }

  fits(ix, t) {
    return (
      ix.kind === 'shared' &&
      ix.tenants + 1 <= this.cap.tenants &&
      ix.documents + t.documents <= this.cap.documents &&
      ix.traffic + t.traffic <= this.cap.traffic
    );
  }

  /** The group whose per-node load is lowest once the tenant is added. */
  leastLoadedGroup(t, exclude) {
    const l = tenantLoad(t, this.policy);
    let best;
    for (const g of this.groups.values()) {
      if (g.name === exclude) continue;
      const after = (g.load + l) / g.nodes;
      if (!best || after < best.after - 1e-12) best = { g, after };
    }
    return best?.g;
  }

  #group(name) {
    const g = this.groups.get(name);
    if (!g) throw new PlacementError('unknown_group', `unknown group '${name}': known groups are ${[...this.groups.keys()].join(', ')}`);
    return g;
  }

  /**
   * Decides where a tenant goes and records it in the model.
   * spec: { id, documents, traffic, group?, index?, dedicated? }
   * Returns { id, group, index, kind, create } where create describes an index to make first.
   */
  place(spec) {
    const t = { id: spec.id, documents: spec.documents, traffic: spec.traffic };
    if (spec.index) return this.#placeInto(t, spec.index);
    const dedicated = needsDedicated(spec, this.policy);
    if (spec.dedicated === false && dedicated) {
      throw new PlacementError('too_large', `tenant ${spec.id} does not fit an empty shared index (capacity ${this.cap.documents} documents, traffic ${this.cap.traffic})`);
    }
    const g = spec.group ? this.#group(spec.group) : this.leastLoadedGroup(t, spec.avoidGroup);
    if (!g) throw new PlacementError('no_groups', 'no other index group to place the tenant in');
    if (dedicated) {
      const name = dedicatedIndexName(this.prefix, g.name, t.id);
      if (this.indices.has(name)) throw new PlacementError('index_exists', `index ${name} already exists`);
      const create = { name, group: g.name, kind: 'dedicated', shards: dedicatedShards(t.documents, this.policy), replicas: this.policy.dedicated.replicas };
      this.#addIndex(create);
      this.#attach(t, name);
      return { id: t.id, group: g.name, index: name, kind: 'dedicated', create };
    }
    let target = g.heap.peek();
    if (target && (!this.fits(target, t) || target.name === spec.avoidIndex)) {
      // The roomiest index overall may be short on the one dimension this tenant needs.
      target = g.heap
        .values()
        .filter((ix) => ix.name !== spec.avoidIndex && this.fits(ix, t))
        .sort((a, b) => this.#compareHeadroom(b, a))[0];
    }
    let create = null;
    if (!target) {
      g.maxSeq += 1;
      create = { name: sharedIndexName(this.prefix, g.name, g.maxSeq), group: g.name, kind: 'shared', shards: this.policy.shared.shards, replicas: this.policy.shared.replicas };
      target = this.#addIndex(create);
    }
    this.#attach(t, target.name);
    return { id: t.id, group: g.name, index: target.name, kind: 'shared', create };
  }

  #placeInto(t, indexName) {
    const ix = this.indices.get(indexName);
    if (!ix) throw new PlacementError('unknown_index', `unknown index '${indexName}'`);
    if (ix.kind !== 'shared') throw new PlacementError('not_shared', `index ${indexName} is dedicated to another tenant`);
    if (!this.groups.has(ix.group)) throw new PlacementError('unknown_group', `index ${indexName} is in group '${ix.group}', which has no nodes`);
    if (!this.fits(ix, t)) throw new PlacementError('index_full', `index ${indexName} has no room for tenant ${t.id} (${ix.tenants}/${this.cap.tenants} tenants, ${ix.documents}/${this.cap.documents} documents, ${ix.traffic}/${this.cap.traffic} traffic)`);
    this.#attach(t, ix.name);
    return { id: t.id, group: ix.group, index: ix.name, kind: 'shared', create: null };
  }

  groupLoads() {
    return [...this.groups.values()].map((g) => ({ group: g.name, nodes: g.nodes, load: g.load, perNode: g.load / g.nodes }));
  }
}

/** Places many new tenants in the given order; the benchmark's and the tests' entry point. */
export function planPlacement({ groups, indices, tenants, policy, prefix }, newTenants) {
  const placer = new Placer({ groups, indices, tenants, policy, prefix });
  const decisions = newTenants.map((spec) => placer.place(spec));
  return { decisions, placer };
}
