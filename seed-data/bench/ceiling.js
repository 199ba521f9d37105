// The ceiling: the same documents, pre-generated to NDJSON files in the seeder's order and cut
// into requests of the seeder's size, then sent by plain HTTP (node:http, keep-alive) with the
// same number in flight, round-robin over the data nodes. No document is made, encoded or
// checked while the clock runs beyond reading each response's first bytes, so the client
// costs (next to) nothing: what is left is the cluster's own speed.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { bulkLines } from '@tenantlab/contract/write-contract';
import { isTransientResponse } from '@tenantlab/contract/errors';
import { BULK_FILTER_PATH } from '../src/load/bulk-loader.js';

/** Writes the items as NDJSON files of about `flushBytes` each (cut as the seeder cuts). */
export function writeChunks(items, dir, flushBytes) {
  mkdirSync(dir, { recursive: true });
  let parts = [];
  let bytes = 0;
  let n = 0;
  let docs = 0;
  const flush = () => {
    writeFileSync(join(dir, `${String(n++).padStart(6, '0')}.ndjson`), parts.join(''));
    parts = [];
    bytes = 0;
  };
  for (const it of items) {
    const lines = bulkLines(it);
    parts.push(lines);
    bytes += Buffer.byteLength(lines);
    docs += 1;
    if (bytes >= flushBytes) flush();
  }
  if (parts.length) flush();
  return { files: n, docs };
}

/** The files in memory, with their document counts, before the clock starts. */
export const readChunks = (dir) =>
  readdirSync(dir)
    .sort()
    .map((f) => {
      const body = readFileSync(join(dir, f));
      return { body, docs: countLines(body) / 2 };
    });

function countLines(buf) {
  let n = 0;
  for (let i = buf.indexOf(10); i !== -1; i = buf.indexOf(10, i + 1)) n++;
  return n;
}

function post(agent, node, body) {
  const url = new URL(`/_bulk?filter_path=${BULK_FILTER_PATH}&timeout=20s`, node);
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', agent, headers: { 'content-type': 'application/x-ndjson', 'content-length': body.length }, timeout: 120000 }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error('request timed out')));
    req.on('error', reject);
    req.end(body);
  });
}

/** The items of `body` (a bulk body: action and source line each) at the given positions. */
function pick(body, positions) {
  const lines = body.toString('utf8').split('\n');
  return Buffer.from(positions.map((k) => `${lines[2 * k]}\n${lines[2 * k + 1]}\n`).join(''));
}

/** Sends every chunk ({ body, docs }); resolves with the number of documents acknowledged. */
export async function sendChunks({ nodes, chunks, concurrency, retryDeadlineMs = 300000 }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  let next = 0;
  let rr = 0;
  let docs = 0;
  const sendOne = async (chunk) => {
    let body = chunk.body;
    const since = Date.now();
    for (let attempt = 0; ; attempt++) {
      if (attempt) {
        if (Date.now() - since > retryDeadlineMs) throw new Error('ceiling: documents still rejected after the retry deadline');
        await new Promise((r) => setTimeout(r, Math.min(10000, 100 * 2 ** attempt) * Math.random()));
      }
      let res;
      try {
        res = await post(agent, nodes[rr++ % nodes.length], body);
      } catch {
        continue; // the request failed whole: send it again (external versions make it harmless)
      }
      if (res.status === 429 || res.status >= 500) continue;
      if (res.status !== 200) throw new Error(`ceiling: HTTP ${res.status}: ${res.body.toString().slice(0, 300)}`);
      // The happy path reads only the first bytes of the answer.
      if (res.body.toString('latin1', 0, 32).startsWith('{"errors":false')) {
        docs += body === chunk.body ? chunk.docs : countLines(body) / 2;
        return;
      }
      const items = JSON.parse(res.body).items;
      const retry = [];
      items.forEach((it, k) => {
        const s = it.index.status;
        if (s < 300 || s === 409) docs += 1;
        else if (isTransientResponse(s)) retry.push(k);
        else throw new Error(`ceiling: a document was refused (${s} ${it.index.error?.type}: ${it.index.error?.reason})`);
      });
      if (!retry.length) return;
      body = pick(body, retry);
    }
  };
  const worker = async () => {
    while (next < chunks.length) await sendOne(chunks[next++]);
  };
  try {
    await Promise.all(Array.from({ length: concurrency }, worker));
  } finally {
    agent.destroy();
  }
  return docs;
}
