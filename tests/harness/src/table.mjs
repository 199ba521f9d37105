// The harness's two committed tables (tests/allowed-skips.tsv, tests/limits.tsv): tab-separated
// rows, '#' comments and blank lines ignored, a row's line number kept for its errors.
import { readFileSync } from 'node:fs';

export function readTable(file, columns) {
  const rows = [];
  const lines = readFileSync(file, 'utf8').split('\n');
  lines.forEach((text, i) => {
    if (!text.trim() || text.startsWith('#')) return;
    const fields = text.split('\t');
    if (fields.length !== columns.length || fields.some((f) => f === '')) {
      throw new Error(`${file}:${i + 1}: want ${columns.length} tab-separated fields (${columns.join(', ')}), got ${fields.length}`);
    }
    rows.push({ line: i + 1, ...Object.fromEntries(columns.map((c, k) => [c, fields[k]])) });
  });
  return rows;
}
