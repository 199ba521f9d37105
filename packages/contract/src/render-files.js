// (node) The one write-if-changed / --check of every generated file the repository commits
// (runtimes/compose/render.mjs, k8s/render.mjs, grafana-dashboards/src/build.js; scripts/render
// runs them all): a generator computes its files' text, this writes only what changed, or with
// --check changes nothing and names each stale file on one line.
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** A generator's bad usage or input: its one line, exit 2 (runMain). */
export class RenderError extends Error {
  constructor(message) {
    super(message);
    this.name = 'RenderError';
  }
}

// The files under root/dir whose names end in ext, relative to root
function owned(root, { dir, ext }) {
  const walk = (rel) => {
    const abs = join(root, rel);
    if (!existsSync(abs)) return [];
    return readdirSync(abs, { withFileTypes: true }).flatMap((d) => {
      const path = `${rel}/${d.name}`;
      if (d.isDirectory()) return walk(path);
      return d.name.endsWith(ext) ? [path] : [];
    });
  };
  return walk(dir);
}

/**
 * files: [{ path, content }], each path relative to root (or absolute). owns: [{ dir, ext }], the
 * folders (relative to root) whose every file ending in ext is generated: one no generator
 * produces any more is stale, and removed when writing. source names what the files are
 * rendered from, in the stale line ("lab.env").
 * check: nothing is written; one line `stale: PATH (missing|differs from what SOURCE renders|
 * no longer rendered)` per stale file on log, and 1 if there is one, else 0.
 * Otherwise: a file is written only when its text changes (`rendered: PATH`), a leftover is
 * removed (`removed: PATH`), and when nothing changed one line `up to date: LABEL`; 0.
 * Paths are shown relative to root; label defaults to the one file's path, or "N files".
 */
export function renderFiles(files, { root, check = false, owns = [], source = 'its sources', label, log = (line) => process.stderr.write(`${line}\n`) }) {
  const abs = (path) => (isAbsolute(path) ? path : join(root, path));
  const show = (path) => relative(root, abs(path)) || path;
  const wanted = new Set(files.map((f) => abs(f.path)));
  const stale = [];
  for (const { path, content } of files) {
    const current = existsSync(abs(path)) ? readFileSync(abs(path), 'utf8') : null;
    if (current !== content) stale.push({ path, content, why: current === null ? 'missing' : `differs from what ${source} renders` });
  }
  for (const spec of owns) {
    for (const path of owned(root, spec)) if (!wanted.has(abs(path))) stale.push({ path, content: null, why: 'no longer rendered' });
  }
  if (check) {
    for (const { path, why } of stale) log(`stale: ${show(path)} (${why})`);
    return stale.length ? 1 : 0;
  }
  for (const { path, content } of stale) {
    if (content === null) {
      rmSync(abs(path));
      log(`removed: ${show(path)}`);
    } else {
      mkdirSync(dirname(abs(path)), { recursive: true });
      writeFileSync(abs(path), content);
      log(`rendered: ${show(path)}`);
    }
  }
  if (stale.length === 0) log(`up to date: ${label ?? (files.length === 1 ? show(files[0].path) : `${files.length} files`)}`);
  return 0;
}

/**
 * text with what lies between the lines `begin` and `end` replaced by `block` (a generated table
 * inside a hand-written page: README.md's published runs, docs/benchmarks.md's rows), or null
 * when the page lacks the markers. The markers stay; the block is followed by a newline.
 */
export function withBlock(text, block, { begin, end }) {
  const a = text.indexOf(begin);
  const b = text.indexOf(end);
  if (a < 0 || b < a) return null;
  return `${text.slice(0, a)}${begin}\n${block}\n${text.slice(b)}`;
}

/**
 * A benchmark's figures in hand-written pages, from its committed result (make bench-seed's,
 * make bench-startup's): result is the JSON file's path relative to root; pages [{ path, link }],
 * link being the result's path as seen from that page; block(result, { link }) -> the Markdown
 * between begin and end. A missing result or page markers: a RenderError naming what to do
 * (`bench` is the target that writes the result). -> renderFiles' exit code.
 */
export function renderResultBlocks({ root, result, pages, begin, end, block, bench, check = false }) {
  const file = join(root, result);
  if (!existsSync(file)) throw new RenderError(`error: ${result} is missing: BENCH_SAVE=${result} make ${bench} writes it`);
  const r = JSON.parse(readFileSync(file, 'utf8'));
  const files = pages.map(({ path, link }) => {
    const content = withBlock(readFileSync(join(root, path), 'utf8'), block(r, { link }), { begin, end });
    if (content === null) throw new RenderError(`error: ${path} has no ${bench} markers; put these two lines where the figures go: ${begin} ${end}`);
    return { path, content };
  });
  return renderFiles(files, { root, check, source: result, label: `make ${bench}'s figures` });
}

/** argv of a generator that takes only --check -> true|false; anything else is a RenderError naming the usage */
export function checkArg(argv, usage) {
  const bad = argv.find((a) => a !== '--check');
  if (bad !== undefined) throw new RenderError(`error: unknown argument '${bad}'; usage: ${usage}`);
  return argv.includes('--check');
}

/**
 * Runs main(argv) -> exit code when the module at metaUrl is the program (not imported; compared
 * through realpath, so a symlinked checkout still runs). An error of one of the classes in
 * `expected` (and RenderError) is its one-line message on stderr, exit 2; any other is a bug and
 * thrown.
 */
export function runMain(metaUrl, main, expected = []) {
  if (!process.argv[1] || realpathSync(process.argv[1]) !== realpathSync(fileURLToPath(metaUrl))) return;
  try {
    process.exitCode = main(process.argv.slice(2));
  } catch (err) {
    if (![RenderError, ...expected].some((E) => err instanceof E)) throw err;
    process.stderr.write(`${err.message}\n`);
    process.exitCode = 2;
  }
}
