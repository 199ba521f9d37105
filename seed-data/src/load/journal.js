// The tenants whose load started and did not finish. A seeder killed or interrupted mid-load
// leaves stores half-loaded; this file is how the next `make up` tells them from stores a user
// changed (drift), completes the first and leaves the second alone. Kept in the lab's state
// directory beside the initial-load settings (same lifetime as the lab's data).
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

export const journalFileOf = (labDir) => join(labDir, 'seed-data', 'unfinished-loads.json');

/** Ids of tenants whose last load never finished (an unreadable file counts as empty). */
export function readUnfinished(file) {
  try {
    const ids = JSON.parse(readFileSync(file, 'utf8')).tenants;
    return new Set(Array.isArray(ids) ? ids : []);
  } catch {
    return new Set();
  }
}

function write(file, ids) {
  if (!ids.size) {
    rmSync(file, { force: true });
    return;
  }
  mkdirSync(dirname(file), { recursive: true });
  // Written whole then renamed: a seeder killed while writing leaves the old file, not half one.
  writeFileSync(`${file}.tmp`, `${JSON.stringify({ tenants: [...ids].sort() })}\n`);
  renameSync(`${file}.tmp`, file);
}

/** Before a load: these tenants are unfinished until `finished` says otherwise. */
export function started(file, ids) {
  const all = readUnfinished(file);
  for (const id of ids) all.add(id);
  write(file, all);
}

/** After a load that sent every item: these tenants are no longer unfinished. */
export function finished(file, ids) {
  const all = readUnfinished(file);
  for (const id of ids) all.delete(id);
  write(file, all);
}
