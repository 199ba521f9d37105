// Profiles (profiles/*.json). Store profiles: how many stores, how many products in all, and the
// shape of the size and traffic distributions. Document profiles (a `kind`: log-events,
// grammar-docs) are the documents of the write experiments (documents.js); the
// seeder does not load them.
import { readdirSync, readFileSync } from 'node:fs';
import { InputError } from '@tenantlab/contract/errors';

const dir = new URL('../profiles/', import.meta.url);

/** Every profile file: [[name, parsed JSON], ...], sorted by name. */
export function profileFiles() {
  return readdirSync(dir).filter((f) => f.endsWith('.json')).sort()
    .map((f) => [f.slice(0, -5), JSON.parse(readFileSync(new URL(f, dir), 'utf8'))]);
}

/** The store profiles' names. */
export function profileNames() {
  return profileFiles().filter(([, p]) => !p.kind).map(([name]) => name);
}

export function loadProfile(name) {
  const names = profileNames();
  if (!names.includes(name)) {
    const doc = profileFiles().find(([n, p]) => n === name && p.kind);
    if (doc) throw new InputError(`profile '${name}' is a document profile (${doc[1].kind}) for the ingest experiments, not stores: pick one of ${names.join(', ')}`);
    throw new InputError(`unknown profile '${name}': pick one of ${names.join(', ')}`);
  }
  const p = JSON.parse(readFileSync(new URL(`${name}.json`, dir), 'utf8'));
  for (const k of ['stores', 'products']) {
    if (!Number.isInteger(p[k]) || p[k] < 1) throw new InputError(`profile ${name}: '${k}' must be a positive integer`);
  }
  return { name, ...p };
}
