// Where experiment runs are stored, and what a list of them shows: one home for the layout the
// runner writes (experiments/runner) and the console lists (allocator). Committed runs are
// experiments/results/NAME/results.json; local ones .lab/results/experiments/NAME/RUN-ID/.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const RESULT_WORDS = { reproduced: 'reproduced', not_reproduced: 'not reproduced', inconclusive: 'inconclusive' };
// names as the runner makes them: an experiment's file name, a run id (20261127t221642-89a2)
export const EXPERIMENT_NAME = /^[a-z0-9][a-z0-9-]{0,80}$/;
export const RUN_ID = /^[0-9a-z][0-9a-z-]{0,80}$/;

/** 'reproduced 2, inconclusive 1' (or 'smoke ok'): a run's verdicts counted. */
function summaryOf(r) {
  if (r.smoke) return `smoke ${r.smoke.result}`;
  const counts = {};
  for (const v of r.verdicts ?? []) counts[v.result] = (counts[v.result] ?? 0) + 1;
  return Object.entries(counts).map(([k, n]) => `${RESULT_WORDS[k] ?? k} ${n}`).join(', ') || '-';
}

/**
 * Every stored run: the committed ones and the local ones, optionally of one experiment, sorted
 * by experiment then start. -> [{ experiment, run_id, where: 'committed'|'local', started_at,
 * quick, complete, verdicts (the count, as text), results: [{ claim, result }], dir, path,
 * report_html (whether the folder has one) }]
 */
export function storedRuns({ committedRoot, localRoot, name = null }) {
  const out = [];
  const add = (dir, where) => {
    const path = join(dir, 'results.json');
    if (!existsSync(path)) return;
    try {
      const r = JSON.parse(readFileSync(path, 'utf8'));
      if (name && r.experiment !== name) return;
      out.push({
        experiment: r.experiment,
        run_id: r.run_id,
        where,
        started_at: r.started_at,
        quick: Boolean(r.quick),
        complete: r.complete !== false,
        verdicts: summaryOf(r),
        results: (r.verdicts ?? []).map((v) => ({ claim: v.claim, result: v.result })),
        dir,
        path,
        report_html: existsSync(join(dir, 'report.html')),
      });
    } catch { /* a run stopped before its first write has no results.json to list */ }
  };
  const subdirs = (d) => (existsSync(d) ? readdirSync(d, { withFileTypes: true }).filter((x) => x.isDirectory()).map((x) => x.name) : []);
  for (const n of subdirs(committedRoot)) add(join(committedRoot, n), 'committed');
  for (const n of subdirs(localRoot)) for (const run of subdirs(join(localRoot, n))) add(join(localRoot, n, run), 'local');
  return out.sort((a, b) => a.experiment.localeCompare(b.experiment) || String(a.started_at).localeCompare(String(b.started_at)));
}

/**
 * The folder of one stored run, or null: committed runs are named by experiment (one each),
 * local ones by experiment and run id. Names outside the runner's patterns are null, never a path.
 */
export function runDir({ committedRoot, localRoot }, { where, experiment, run }) {
  if (!EXPERIMENT_NAME.test(experiment ?? '') || !RUN_ID.test(run ?? '')) return null;
  if (where === 'committed') {
    const dir = join(committedRoot, experiment);
    try {
      return JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8')).run_id === run ? dir : null;
    } catch {
      return null;
    }
  }
  if (where === 'local') {
    const dir = join(localRoot, experiment, run);
    return existsSync(join(dir, 'results.json')) ? dir : null;
  }
  return null;
}
