// Tenant profiles (profiles/*.json): how many stores, how many products in all, and the shape
// of the size and traffic distributions.
import { readdirSync, readFileSync } from 'node:fs';
import { UsageError } from './errors.js';

const dir = new URL('../profiles/', import.meta.url);

export function profileNames() {
  return readdirSync(dir).filter((f) => f.endsWith('.json')).map((f) => f.slice(0, -5)).sort();
}

export function loadProfile(name) {
  const names = profileNames();
  if (!names.includes(name)) throw new UsageError(`unknown profile '${name}': pick one of ${names.join(', ')}`);
  const p = JSON.parse(readFileSync(new URL(`${name}.json`, dir), 'utf8'));
  for (const k of ['stores', 'products']) {
    if (!Number.isInteger(p[k]) || p[k] < 1) throw new UsageError(`profile ${name}: '${k}' must be a positive integer`);
  }
  return { name, ...p };
}
