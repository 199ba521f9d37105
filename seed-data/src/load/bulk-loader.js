// Bulk loading the way the ingestion studies recommend: requests sized by bytes (not by a
// fixed document count, which makes request size swing with document size), a bounded number
// in flight, and on push-back (429, or a shard briefly unavailable) exponential backoff with
// jitter that re-sends ONLY the items that were rejected. Every write follows the allocator's
// write contract (whole documents through the tenant alias, version = updated_at,
// external_gte), so a re-sent item can never duplicate or roll back a document.
import { SeedError } from '../errors.js';
import { esReason, isTransient, isTransientResponse } from '@tenantlab/contract/errors';
import { actionLine, bulkLines } from '@tenantlab/contract/write-contract';
import { backoffMs, sleep } from './backoff.js';

// The NDJSON lines of one item ({ tenant, id, version, source }) are the write contract's.
export { actionLine, bulkLines };

/** What of a bulk response the loader reads: per item, status and error (bench/ceiling.js too). */
export const BULK_FILTER_PATH = 'errors,items.*.status,items.*.error.type,items.*.error.reason';

const NL = 10;

/**
 * One bulk request being filled. Each document is encoded straight into one buffer (no
 * per-request string join and re-encode, the loader's biggest cost after generating); the
 * item strings are kept only so that rejected items can be sent again on their own.
 */
class Batch {
  constructor(capacity) {
    this.buf = Buffer.allocUnsafe(capacity);
    this.bytes = 0;
    this.items = [];
  }

  /** A request of just these items (the rejected ones of an earlier request). */
  static of(items) {
    const b = new Batch(items.reduce((a, it) => a + 3 * (it.action.length + it.source.length) + 2, 0));
    for (const it of items) b.#write(it);
    b.items = items;
    return b;
  }

  add(item) {
    const it = { tenant: item.tenant, action: actionLine(item), source: item.source };
    this.#write(it);
    this.items.push(it);
  }

  #write(it) {
    // UTF-8 needs at most 3 bytes per UTF-16 unit: check before buffer.write() can truncate.
    const worst = 3 * (it.action.length + it.source.length) + 2;
    if (this.bytes + worst > this.buf.length) {
      const bigger = Buffer.allocUnsafe(Math.max(2 * this.buf.length, this.bytes + worst));
      this.buf.copy(bigger, 0, 0, this.bytes);
      this.buf = bigger;
    }
    this.bytes += this.buf.write(it.action, this.bytes);
    this.buf[this.bytes++] = NL;
    this.bytes += this.buf.write(it.source, this.bytes);
    this.buf[this.bytes++] = NL;
  }

  get body() {
    return this.buf.subarray(0, this.bytes);
  }
}

export class BulkLoader {
  /**
   * @param client   Elasticsearch client (over the data nodes)
   * @param flushBytes  target request size
   * @param concurrency requests in flight (a request backing off keeps its slot: push-back
   *                    slows the whole load down, which is the point)
   * @param retryDeadlineMs how long a rejected item keeps being retried before the load fails
   */
  constructor({ client, flushBytes = 5 * 1024 * 1024, concurrency = 4, retryDeadlineMs = 300000, bulkTimeout = '20s', backoff = {}, onAck } = {}) {
    Object.assign(this, { client, flushBytes, concurrency, retryDeadlineMs, bulkTimeout, backoff, onAck });
    this.stats = { sent: 0, indexed: 0, superseded: 0, retriedItems: 0, retriedRequests: 0, requests: 0 };
    this.acked = new Map();
    this.inFlight = new Set();
    this.failure = null;
  }

  /** Loads every item of the (sync) iterable; resolves when all are acknowledged. */
  async load(items) {
    // Room for the document that crosses the threshold; a bigger one makes the buffer grow.
    const capacity = this.flushBytes + (1 << 20);
    let batch = new Batch(capacity);
    for (const item of items) {
      if (this.failure) break;
      batch.add(item);
      if (batch.bytes >= this.flushBytes) {
        await this.#dispatch(batch);
        batch = new Batch(capacity);
      }
    }
    if (batch.items.length && !this.failure) await this.#dispatch(batch);
    await Promise.all(this.inFlight);
    if (this.failure) throw this.failure;
    return this.stats;
  }

  async #dispatch(batch) {
    while (this.inFlight.size >= this.concurrency) await Promise.race(this.inFlight);
    const p = this.#send(batch).catch((err) => {
      this.failure ??= err instanceof SeedError ? err : new SeedError(`bulk load failed: ${esReason(err)}`);
    });
    this.inFlight.add(p);
    p.finally(() => this.inFlight.delete(p));
  }

  async #send(batch) {
    let req = batch;
    let firstRejection = 0;
    let lastReason = '';
    for (let attempt = 1; ; attempt++) {
      if (this.failure) return;
      let rejected;
      try {
        rejected = await this.#request(req);
      } catch (err) {
        // The whole request failed (node gone, timeout, 429 on the request): all of it is
        // re-sent, which the external versions make harmless.
        if (!isTransient(err)) throw err;
        rejected = req.items;
        lastReason = esReason(err);
        this.stats.retriedRequests += 1;
      }
      if (!rejected.length) return;
      if (rejected.reason) lastReason = rejected.reason;
      this.stats.retriedItems += rejected.length;
      firstRejection ||= Date.now();
      if (Date.now() - firstRejection > this.retryDeadlineMs) {
        const tenants = [...new Set(rejected.map((r) => r.tenant))];
        throw new SeedError(`${rejected.length} documents (tenants ${tenants.slice(0, 5).join(', ')}${tenants.length > 5 ? ', ...' : ''}) still rejected after ${Math.round(this.retryDeadlineMs / 1000)}s of retries: ${lastReason}`);
      }
      if (rejected !== req.items) req = Batch.of(rejected);
      await sleep(backoffMs(attempt, this.backoff));
    }
  }

  /** Sends one bulk request; returns the items to retry. */
  async #request(req) {
    const batch = req.items;
    this.stats.requests += 1;
    this.stats.sent += batch.length;
    const body = await this.client.transport.request(
      { method: 'POST', path: '/_bulk', querystring: { filter_path: BULK_FILTER_PATH, timeout: this.bulkTimeout }, bulkBody: req.body },
      { requestTimeout: 120000 },
    );
    if (!body.errors) {
      this.#ack(batch, batch.length, 0);
      return [];
    }
    const retry = [];
    const done = [];
    let superseded = 0;
    for (let k = 0; k < batch.length; k++) {
      const r = body.items[k].index;
      if (r.status < 300) done.push(batch[k]);
      else if (r.status === 409) {
        // A newer version is already there (a later update or re-submission): nothing to do.
        superseded += 1;
        done.push(batch[k]);
      } else if (isTransientResponse(r.status, r.error)) {
        retry.push(batch[k]);
        retry.reason = `${r.error?.type}: ${r.error?.reason}`;
      } else {
        throw new SeedError(`tenant ${batch[k].tenant}: Elasticsearch refused a document (${r.status} ${r.error?.type}: ${r.error?.reason})`);
      }
    }
    this.#ack(done, done.length, superseded);
    return retry;
  }

  #ack(items, n, superseded) {
    this.stats.indexed += n - superseded;
    this.stats.superseded += superseded;
    for (const it of items) this.acked.set(it.tenant, (this.acked.get(it.tenant) ?? 0) + 1);
    this.onAck?.(n);
  }
}
