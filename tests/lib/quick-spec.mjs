#!/usr/bin/env node
// quick-spec.mjs SPEC OUT_DIR KEEP...: a copy of the experiment spec SPEC in OUT_DIR (same file
// name) in which every variant but the KEEP ones is marked `quick: false`, so a QUICK run of the
// copy measures only those (the runner leaves the others out, and the directions on them, and
// says so in results.json's plan.left_out and in the report). A direction over a list of
// variants (increasing, decreasing, linear, peak; its x beside it) keeps the kept ones when at
// least MIN of them remain (2, or 3 for a line or a peak: the runner's own minimum), so the smoke run still plans and charts its
// curve; any other direction on a left-out variant is left out by the runner. For the suites' smoke runs: a
// QUICK run proves that each code path of an experiment works (layout, lab starts, figures,
// report), and two variants that take those paths prove as much as nine; a verdict needs them
// all, and full runs have them. The YAML is edited in place (comments kept): the copy is the
// spec, plus the marks. Prints the copy's path. Its one dependency, yaml, is the test harness's
// (tests/harness/package.json).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseDocument } from 'yaml';

const [spec, outDir, ...keep] = process.argv.slice(2);
if (!spec || !outDir || keep.length === 0) {
  console.error('usage: quick-spec.mjs SPEC OUT_DIR VARIANT...');
  process.exit(2);
}
const doc = parseDocument(readFileSync(spec, 'utf8'));
const variants = doc.get('variants');
const names = variants.items.map((v) => v.get('name'));
const unknown = keep.filter((k) => !names.includes(k));
if (unknown.length) {
  console.error(`quick-spec: ${path.basename(spec)} has no variant ${unknown.join(', ')} (it has ${names.join(', ')})`);
  process.exit(2);
}
for (const v of variants.items) if (!keep.includes(v.get('name'))) v.set('quick', false);
const LISTS = { increasing: 2, decreasing: 2, linear: 3, peak: 3 };
for (const e of doc.get('expect')?.items ?? []) {
  for (const [key, min] of Object.entries(LISTS)) {
    const list = e.get(key);
    if (!list?.items) continue;
    const at = list.items.map((n, i) => [String(n.value ?? n), i]).filter(([n]) => keep.includes(n)).map(([, i]) => i);
    if (at.length < min) continue;
    const x = e.get('x');
    e.set(key, doc.createNode(at.map((i) => list.items[i].value ?? list.items[i]), { flow: true }));
    if (x?.items) e.set('x', doc.createNode(at.map((i) => x.items[i].value ?? x.items[i]), { flow: true }));
  }
}
mkdirSync(outDir, { recursive: true });
const out = path.join(outDir, path.basename(spec));
writeFileSync(out, doc.toString());
console.log(out);
