// Document profiles (profiles/*.json with a `kind`): the documents of the write experiments, not
// stores. `log-events`: Microsoft's Azure ingestion guidance's test documents (a log event with
// random values and random picks from the profile's term lists); `grammar-docs`: Appbase's
// ~100-byte documents, a sentence from a small grammar. Each kind has an explicit mapping in
// mappings/ (dynamic: strict, as the guidance recommends). Every document is a pure function of
// (seed, i): the same seed gives the same documents, whatever the order they are made in.
import { readFileSync } from 'node:fs';
import { InputError } from '@tenantlab/contract/errors';
import { Random } from './random.js';
import { profileFiles } from './profiles.js';

const KINDS = ['log-events', 'grammar-docs'];
const mappings = new URL('../mappings/', import.meta.url);
// a fixed origin: timestamps are deterministic, one millisecond apart per document
const BASE_MS = Date.parse('2026-01-01T00:00:00Z');

/** The names of the document profiles, sorted. */
export function documentProfileNames() {
  return profileFiles().filter(([, p]) => KINDS.includes(p.kind)).map(([name]) => name).sort();
}

/** A document profile by name -> { name, kind, mapping, ...profile }; a one-line InputError otherwise. */
export function loadDocumentProfile(name) {
  const names = documentProfileNames();
  const found = profileFiles().find(([n]) => n === name);
  if (!found || !KINDS.includes(found[1].kind)) {
    const what = found ? `'${name}' is a store profile, not a document profile` : `unknown document profile '${name}'`;
    throw new InputError(`${what}: pick one of ${names.join(', ')}`);
  }
  const p = found[1];
  return { name, ...p, mapping: JSON.parse(readFileSync(new URL(p.mapping, mappings), 'utf8')) };
}

const hex = (rng, n) => {
  let s = '';
  for (let i = 0; i < n; i++) s += '0123456789abcdef'[rng.int(16)];
  return s;
};
const guid = (rng) => `${hex(rng, 8)}-${hex(rng, 4)}-4${hex(rng, 3)}-${'89ab'[rng.int(4)]}${hex(rng, 3)}-${hex(rng, 12)}`;

function logEvent(p, rng, i) {
  const sev = rng.pick(p.severities);
  const app = rng.pick(p.apps);
  const type = rng.pick(Object.keys(p.types));
  const os = rng.pick(p.os);
  const host = rng.int(p.hostnames.count);
  const slots = {
    op: () => rng.pick(p.ops), dep: () => rng.pick(p.deps), ms: () => String(rng.range(1, 5000)), status: () => String(rng.pick(p.statuses)),
    guid: () => guid(rng), user: () => `user${rng.range(1, 50000)}`, ip: () => `10.${rng.int(256)}.${rng.int(256)}.${rng.range(1, 254)}`,
    n: () => String(rng.range(1, 5)), state: () => rng.pick(p.states),
  };
  const message = rng.pick(p.messages).replace(/\{([a-z]+)\}/g, (_, k) => slots[k]());
  const parameters = Array.from({ length: rng.range(2, 5) }, () => rng.pick(p.parameters)).join(';');
  return {
    '@timestamp': new Date(BASE_MS + i).toISOString(),
    name: rng.pick(p.names),
    message,
    severityCode: sev.code,
    severity: sev.name,
    hostname: `${p.hostnames.prefix}${String(host + 1).padStart(3, '0')}`,
    hostip: `10.1.${host >> 8}.${(host & 255) + 1}`,
    pid: rng.range(1000, 65000),
    tid: rng.range(1, 400),
    appId: app.id,
    appName: app.name,
    appVersion: rng.pick(app.versions),
    type,
    subtype: rng.pick(p.types[type]),
    correlationId: guid(rng),
    os: os.name,
    osVersion: rng.pick(os.versions),
    parameters,
  };
}

function grammarDoc(p, rng, i) {
  return {
    '@timestamp': new Date(BASE_MS + i).toISOString(),
    user: `${p.users.prefix}${rng.range(1, p.users.count)}`,
    text: `${rng.pick(p.subjects)} ${rng.pick(p.verbs)} ${rng.pick(p.objects)} ${rng.pick(p.places)}`,
    n: i,
  };
}

/** documentGenerator({ profile, seed }) -> { next(i) }: document i of the profile, a pure function of (seed, i). */
export function documentGenerator({ profile, seed }) {
  const make = profile.kind === 'log-events' ? logEvent : grammarDoc;
  return { next: (i) => make(profile, new Random(seed, `doc:${profile.name}`, i), i) };
}

/**
 * `bodies` _bulk bodies (NDJSON, a trailing newline) of `docsPerBulk` documents each: an action
 * line without _index (the URL names the index) and without _id (Elasticsearch assigns one), then
 * the document. Body b holds documents b * docsPerBulk onwards.
 */
export function bulkBodies({ profile, seed, bodies, docsPerBulk, action = 'index' }) {
  const gen = documentGenerator({ profile, seed });
  const head = `${JSON.stringify({ [action]: {} })}\n`;
  const out = [];
  for (let b = 0; b < bodies; b++) {
    let body = '';
    for (let d = 0; d < docsPerBulk; d++) body += `${head}${JSON.stringify(gen.next(b * docsPerBulk + d))}\n`;
    out.push(body);
  }
  return out;
}

/** The average JSON size of a profile's documents over a sample. */
export function averageDocumentBytes({ profile, seed = 1, sample = 200 }) {
  const gen = documentGenerator({ profile, seed });
  let bytes = 0;
  for (let i = 0; i < sample; i++) bytes += Buffer.byteLength(JSON.stringify(gen.next(i)));
  return bytes / sample;
}
