#!/usr/bin/env node
// readme-figures.mjs [FILE...] (default README.md): a landing page quotes no measured figure typed
// by hand. Figures come from benchmarks and experiment runs and are written by `make render`
// between its markers (<!-- NAME: written by ... --> ... <!-- /NAME -->); outside them a number
// with a unit of what is measured (ms, s, docs/s, req/s, %, x, min; sizes are configuration) is one line each,
// and exit 1. Run by scripts/render in both modes (tests/static/render.bats).
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';

// "16.9k docs/s", "172.6 ms", "0.91x", "7m43s", "45 minutes", "19.4%"
const FIGURE = /(?<![\w.])\d[\d,]*(?:\.\d+)?k?\s?(?:docs\/s|req\/s|ms|s\b|%|x\b|min(?:utes)?\b|m\d+s\b)/g;
const OPEN = /^<!-- ([a-z-]+): written by /;

/** text -> [{ line, figure }] of the figures outside generated blocks and code fences */
export function handFigures(text) {
  const out = [];
  let inBlock = null;
  let inFence = false;
  text.split('\n').forEach((line, i) => {
    if (inBlock) {
      if (line.startsWith(`<!-- /${inBlock} -->`)) inBlock = null;
      return;
    }
    const open = OPEN.exec(line);
    if (open) {
      inBlock = open[1];
      return;
    }
    if (line.startsWith('```')) inFence = !inFence;
    if (inFence) return;
    for (const m of line.matchAll(FIGURE)) out.push({ line: i + 1, figure: m[0] });
  });
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const files = process.argv.length > 2 ? process.argv.slice(2) : ['README.md'];
  let bad = 0;
  for (const f of files) {
    for (const { line, figure } of handFigures(readFileSync(f, 'utf8'))) {
      bad++;
      console.error(`${relative(process.cwd(), f)}:${line}: '${figure}' is a figure typed by hand: quote a committed result through make render (a generated block), or leave it out`);
    }
  }
  process.exit(bad ? 1 : 0);
}
