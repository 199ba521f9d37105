// Time limits: tests/limits.tsv gives each suite (bats file, node package, pytest or promtool
// suite, by its path as a glob) the seconds it may take; the first matching row wins. A suite
// over its limit is stopped (its process group) and fails naming what it was doing.
import { readTable } from './table.mjs';
import { globToRegExp } from './glob.mjs';

export function loadLimits(file) {
  return readTable(file, ['suite', 'seconds', 'why']).map((row) => {
    const seconds = Number(row.seconds);
    if (!Number.isInteger(seconds) || seconds <= 0) throw new Error(`${file}:${row.line}: seconds must be a whole number above 0, got '${row.seconds}'`);
    return { ...row, seconds, re: globToRegExp(row.suite) };
  });
}

export function limitOf(rows, suite) {
  const row = rows.find((r) => r.re.test(suite));
  if (!row) throw new Error(`no row of tests/limits.tsv gives ${suite} a time limit: add one`);
  return row.seconds;
}
