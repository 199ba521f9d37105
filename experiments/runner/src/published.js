// The published runs (experiments/results/NAME/results.json, committed) as the table README.md
// and experiments/README.md show, written by `make render` between two markers and checked by
// `make render CHECK=1`: every figure in it comes from a committed results.json, none is typed
// by hand. And the list of stored runs (`make experiment-runs`).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { withBlock } from '@tenantlab/contract/render-files';
import { fmtNumber, fmtP } from './format.js';
import { BUDGET_S } from './power.js';
import { generatorCpuOf, loadEngineOf, loopOutcomes } from './results.js';
import { familyShortfall } from './verdict.js';

export const BEGIN = '<!-- published-runs: written by `make render` from experiments/results/*/results.json; do not edit by hand -->';
export const END = '<!-- /published-runs -->';
// docs/benchmarks.md's table of each published run's wall time and CPU, from the same files
export const RUN_TIMES_BEGIN = '<!-- run-times: written by `make render` from experiments/results/*/results.json; do not edit by hand -->';
export const RUN_TIMES_END = '<!-- /run-times -->';

/** Every committed run under root: [{ name, results }], sorted by experiment name. */
export function publishedRuns(root) {
  if (!existsSync(root)) return [];
  return readdirSync(root, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name).sort()
    .map((name) => ({ name, file: join(root, name, 'results.json') }))
    .filter((r) => existsSync(r.file))
    .map((r) => ({ name: r.name, results: JSON.parse(readFileSync(r.file, 'utf8')) }));
}

const RESULT = { reproduced: 'reproduced', not_reproduced: 'not reproduced', inconclusive: 'inconclusive' };

/** One verdict in a table cell: its result, claim and p (adjusted when the family adjusted it). */
export function verdictCell(v) {
  const p = v.p_adjusted ?? v.p_value;
  return `**${RESULT[v.result] ?? v.result}**: ${v.claim}${p === null || p === undefined ? '' : ` (p = ${fmtP(p)})`}`;
}

// the closed loop's outcome (noisy-neighbour, noisy-writer): flagged and moved in N of M
const loopCell = (results) => loopOutcomes(results).map(({ variant, moved, of }) => `${variant.label ?? variant.name}: flagged and moved in ${moved} of ${of}`);

function dataCell(results) {
  const d = results.environment?.data ?? {};
  if (d.documents) return `${fmtNumber(d.documents)} documents, ${fmtNumber(d.stores)} stores`;
  return `${d.profile ?? '?'} documents`;
}

// what a reader must know before trusting a row: engine era, tree, protocol
function notesCell(results) {
  const notes = [];
  const engine = loadEngineOf(results);
  if (engine?.k6Era) notes.push('measured with k6');
  else if (engine) notes.push(`${engine.label}${engine.version ? ` ${engine.version}` : ''}`);
  const env = results.environment ?? {};
  if (env.git_commit?.endsWith('-dirty')) notes.push('dirty tree');
  if (env.publishable?.override) notes.push('published anyway (PUBLISH=force)');
  if (!results.plan?.rounds) notes.push('fixed run order, before the verdict protocol');
  // a run measured before its family's minimum was taken at Holm's first step: its verdicts were
  // computed at the minimum of their day; say so until it is re-run
  const short = familyShortfall(results);
  if (short) notes.push(`${short.have} repetitions, below the ${short.need} its family of ${short.family} now needs: to be re-run`);
  if (results.complete === false) notes.push(`incomplete: ${results.incomplete_reason ?? '?'}`);
  return notes.join('; ');
}

/** The published runs -> the Markdown table (relative links from `linkBase`, e.g. results/). */
export function publishedTable(runs, { linkBase }) {
  const rows = runs.map(({ name, results }) => {
    const date = (results.started_at ?? '').slice(0, 10);
    const verdicts = [...loopCell(results), ...(results.verdicts ?? []).map(verdictCell)].join('<br>');
    const reps = results.plan?.repetitions ?? '-';
    return `| [${name}](${linkBase}${name}/report.md) | ${date} | ${dataCell(results)} | ${reps} | ${verdicts || '-'} | ${notesCell(results)} |`;
  });
  return ['| experiment | run | data | repetitions | verdicts | measured |', '|---|---|---|---|---|---|', ...rows].join('\n');
}

/**
 * The published runs -> what each cost the machine: wall time, the runner's and the load
 * generator's share of the CPU while it ran (results.json `runner`), variants x repetitions, the
 * lab it ran on. A run before the Locust engine says k6.
 */
export function runTimesTable(runs, { linkBase }) {
  const rows = runs.map(({ name, results }) => {
    const r = results.runner ?? {};
    const engine = loadEngineOf(results);
    const gen = generatorCpuOf(r);
    const over = r.wall_seconds > BUDGET_S ? `, over the ${BUDGET_S / 60}-min budget${results.plan?.over_budget ? ` (${results.plan.over_budget})` : ''}` : '';
    const wall = Number.isFinite(r.wall_seconds) ? `${Math.round(r.wall_seconds / 60)} min${over}` : '-';
    const cpu = Number.isFinite(r.cpu_percent) ? `${r.cpu_percent}%` : '-';
    const genText = gen === null ? '-' : `${gen}% (${engine?.label ?? '?'})`;
    const reps = `${(results.variants ?? []).length} x ${results.plan?.repetitions ?? '-'}${results.plan?.rounds ? ', a cold round first' : ''}`;
    const starts = (results.lab?.starts ?? []).length;
    const lab = results.lab?.mode === 'own' && starts ? `own (${starts} start${starts === 1 ? '' : 's'})` : results.lab?.mode ?? '-';
    return `| [${name}](${linkBase}${name}/report.md) | ${(results.started_at ?? '').slice(0, 10)} | ${reps} | ${lab} | ${wall} | ${cpu} | ${genText} |`;
  });
  return ['| run | date | variants x repetitions | lab | wall time | runner CPU | load generator CPU |', '|---|---|---|---|---|---|---|', ...rows].join('\n');
}

/** text with the block between `begin` and `end` (default: the published runs') replaced by `table`; null when the markers are missing. */
export function withTable(text, table, { begin = BEGIN, end = END } = {}) {
  return withBlock(text, table, { begin, end });
}

// every stored run, committed and local: @tenantlab/contract/runs (the console lists them too)
export { storedRuns } from '@tenantlab/contract/runs';
