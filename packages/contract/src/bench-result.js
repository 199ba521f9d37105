// (node) Where a benchmark's result goes and what it says about the run, for the benchmarks whose
// figures docs/benchmarks.md shows (make bench-seed, make bench-startup): the rows there are
// rendered from the committed JSON (make render), never typed, so the JSON carries what a reader
// needs to trust them (machine, commit, clean tree, date).
import { execFileSync } from 'node:child_process';
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { dirname, join, resolve } from 'node:path';

const git = (root, args) => {
  try {
    return execFileSync('git', ['-C', root, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return null;
  }
};

/** The run's side of a result: machine, commit, whether the tree was clean, the time. */
export function benchEnvironment(root, now = new Date()) {
  const commit = git(root, ['rev-parse', '--short=12', 'HEAD']);
  const status = git(root, ['status', '--porcelain', '--untracked-files=no']);
  return {
    measured_at: now.toISOString().replace(/\.\d+Z$/, 'Z'),
    machine: { cpus: cpus().length, cpu_model: cpus()[0]?.model?.trim() ?? null },
    commit,
    clean_tree: commit !== null && status === '',
  };
}

/** The middle of a benchmark's rounds: the middle value, or the mean of the two middle ones. */
export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/**
 * How a committed result was measured, as its rendered figures open: "Measured by `make BENCH`
 * on N CPUs (model), commit C (clean tree|uncommitted changes), DATE" (what benchEnvironment kept).
 */
export function measuredBy(r, bench) {
  return `Measured by \`make ${bench}\` on ${r.machine.cpus} CPUs (${r.machine.cpu_model ?? 'unknown CPU'}), commit ${r.commit ?? 'unknown'} (${r.clean_tree ? 'clean tree' : 'uncommitted changes'}), ${r.measured_at.slice(0, 10)}`;
}

/**
 * Writes result as NAME.json under $LAB_DIR/results/<time>-NAME/ and, when save (BENCH_SAVE) is
 * given, there too (the committed copy make render reads). -> the paths written.
 */
export function saveBenchResult(name, result, { labDir, save = process.env.BENCH_SAVE, now = new Date() }) {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
  const paths = [join(labDir, 'results', `${stamp}-${name}`, `${name}.json`)];
  if (save) paths.push(resolve(save));
  const text = `${JSON.stringify(result, null, 2)}\n`;
  for (const p of paths) {
    mkdirSync(dirname(p), { recursive: true });
    writeFileSync(`${p}.tmp`, text);
    renameSync(`${p}.tmp`, p);
  }
  return paths;
}
