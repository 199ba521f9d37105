// The skips (and todos) a run may have: tests/allowed-skips.tsv. Any other fails the run, so a
// test that stopped checking anything cannot pass unnoticed.
// A row: runtimes, file, test, reason, why. runtimes is a comma list of native, compose,
// external; a "dev:" prefix makes the row apply on developers' machines only, never under
// CI=true (CI runs every shape, compose and the root-only paths, or fails). file, test and
// reason are bash glob patterns. A node test's todo is matched as reason "todo: TEXT".
import { readTable } from './table.mjs';
import { globToRegExp } from './glob.mjs';

export const RUNTIMES = ['native', 'compose', 'external'];
const COLUMNS = ['runtimes', 'file', 'test', 'reason', 'why'];

export function loadAllowedSkips(file) {
  return readTable(file, COLUMNS).map((row) => {
    let spec = row.runtimes, devOnly = false;
    if (spec.startsWith('dev:')) { devOnly = true; spec = spec.slice(4); }
    const runtimes = spec.split(',');
    for (const r of runtimes) {
      if (!RUNTIMES.includes(r)) throw new Error(`${file}:${row.line}: unknown runtime '${r}' (known: ${RUNTIMES.join(', ')}, optionally after dev:)`);
    }
    return {
      ...row, devOnly, runtimes,
      fileRe: globToRegExp(row.file), testRe: globToRegExp(row.test), reasonRe: globToRegExp(row.reason),
    };
  });
}

// allowedBy(rows, {runtime, ci, file, test, reason}): the row that allows this skip, if any
export function allowedBy(rows, { runtime, ci, file, test, reason }) {
  return rows.find((r) => r.runtimes.includes(runtime) && !(ci && r.devOnly)
    && r.fileRe.test(file) && r.testRe.test(test) && r.reasonRe.test(reason));
}
