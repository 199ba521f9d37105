// results.json: check one against src/results-schema.json (plus the cross-references a schema
// cannot express), read one, summarize a variant's repetitions, and start one from a plan.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { ResultsError } from './errors.js';
import { metricValue } from './metrics.js';
import { mean, median, rsd, stdev } from './stats.js';

const require = createRequire(import.meta.url);
// ajv and ajv-formats are CommonJS
const Ajv2020 = require('ajv/dist/2020.js');
const addFormats = require('ajv-formats');

export const schema = JSON.parse(readFileSync(new URL('./results-schema.json', import.meta.url), 'utf8'));
export const SCHEMA_VERSION = 1;

let validator;
function validate() {
  if (!validator) {
    const ajv = new (Ajv2020.default ?? Ajv2020)({ allErrors: true, verbose: true, strict: true, strictRequired: false, allowUnionTypes: true });
    (addFormats.default ?? addFormats)(ajv, ['date-time', 'uri']);
    validator = ajv.compile(schema);
  }
  return validator;
}

/** A JSON pointer (/variants/0/repetitions/1) as a path a person reads: variants[0].repetitions[1]. */
function pathOf(pointer) {
  return pointer.split('/').slice(1).map((p) => p.replaceAll('~1', '/').replaceAll('~0', '~'))
    .reduce((s, p) => (/^\d+$/.test(p) ? `${s}[${p}]` : s ? `${s}.${p}` : p), '');
}

function got(v) {
  if (v === undefined) return 'nothing';
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return 'an object';
  return JSON.stringify(v).slice(0, 60);
}

function describe(err) {
  const at = pathOf(err.instancePath);
  const join = (key) => (at ? `${at}.${key}` : key);
  switch (err.keyword) {
    case 'required': return `${join(err.params.missingProperty)}: missing`;
    case 'additionalProperties': return `${join(err.params.additionalProperty)}: unknown key`;
    case 'type': return `${at || '(top)'}: must be ${[err.params.type].flat().join(',').split(',').map((t) => (t === 'null' ? 'null' : `a${/^[aeiou]/.test(t) ? 'n' : ''} ${t}`)).join(' or ')} (got ${got(err.data)})`;
    case 'enum': return `${at}: must be one of ${err.params.allowedValues.join(', ')} (got ${got(err.data)})`;
    case 'const': return `${at}: must be ${JSON.stringify(err.params.allowedValue)} (got ${got(err.data)})`;
    case 'if': return null; // the `then` error says it
    default: return `${at || '(top)'}: ${err.message} (got ${got(err.data)})`;
  }
}

// What the schema cannot say: names that must refer to each other, and what "complete" promises.
function crossCheck(r) {
  const out = [];
  const names = new Map();
  r.variants.forEach((v, i) => {
    if (names.has(v.name)) out.push(`variants[${i}].name: "${v.name}" is already the name of variants[${names.get(v.name)}]`);
    else names.set(v.name, i);
    const rounds = new Set();
    v.repetitions.forEach((rep, j) => {
      if (rounds.has(rep.round)) out.push(`variants[${i}].repetitions[${j}].round: round ${rep.round} appears twice`);
      rounds.add(rep.round);
      if (r.complete && (!rep.complete || rep.figures === null)) {
        out.push(`variants[${i}].repetitions[${j}]: the run says complete but this repetition is not (set complete: false and incomplete_reason)`);
      }
    });
    if (r.complete && v.repetitions.length !== r.plan.repetitions) {
      out.push(`variants[${i}].repetitions: ${v.repetitions.length} of the planned ${r.plan.repetitions}, yet the run says complete`);
    }
  });
  r.plan.order.forEach((n, i) => {
    if (!names.has(n)) out.push(`plan.order[${i}]: "${n}" is not a variant of this run`);
  });
  r.verdicts.forEach((v, i) => v.variants.forEach((n, j) => {
    if (!names.has(n)) out.push(`verdicts[${i}].variants[${j}]: "${n}" is not a variant of this run`);
  }));
  return out;
}

/** A parsed results.json -> its problems, one line each (empty: valid). */
export function validateResults(obj) {
  const check = validate();
  if (check(obj)) return crossCheck(obj);
  return [...new Set(check.errors.map(describe).filter(Boolean))];
}

/** Read and check a results.json; a ResultsError (one line) when missing, unparseable or invalid. */
export function readResults(file, { validate: doValidate = true } = {}) {
  let text;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new ResultsError(`${file}: ${err.code === 'ENOENT' ? 'no such file' : `cannot read (${err.code ?? err.message})`}`);
  }
  let obj;
  try {
    obj = JSON.parse(text);
  } catch (err) {
    throw new ResultsError(`${file}: not JSON (${err.message})`);
  }
  if (doValidate) {
    const errors = validateResults(obj);
    if (errors.length) throw new ResultsError(`${file}: not a valid results.json: ${errors[0]}${errors.length > 1 ? ` (and ${errors.length - 1} more)` : ''}`);
  }
  return obj;
}

const orNull = (x) => (typeof x === 'number' && Number.isFinite(x) ? x : null);

/**
 * The load generator that measured a run: environment.load_engine ({ name: 'locust', version }),
 * or, in a run measured with k6 before the Locust engine, environment.versions.k6 ("k6 v1.8.1
 * (go...)"). -> { name, version, label, k6Era } or null when the results do not say.
 */
export function loadEngineOf(results) {
  const env = results?.environment ?? {};
  if (env.load_engine?.name) {
    const { name, version = null } = env.load_engine;
    const label = name === 'locust' ? 'Locust' : name;
    return { name, version, label, k6Era: name === 'k6' };
  }
  if ((env.versions && 'k6' in env.versions) || (results?.runner && 'k6_cpu_percent' in results.runner)) {
    const version = env.versions?.k6 ? String(env.versions.k6).replace(/^k6\s+/, '') : null;
    return { name: 'k6', version, label: 'k6', k6Era: true };
  }
  return null;
}

/** The load generator's share of the machine while measuring (runner.generator_cpu_percent; k6_cpu_percent before the Locust engine). */
export function generatorCpuOf(runner) {
  return orNull(runner?.generator_cpu_percent ?? runner?.k6_cpu_percent ?? null);
}

/**
 * A variant's repetitions (each { figures } or a figures object) and metric names ->
 * { metric: { mean, median, min, max, stdev, rsd, n } } over the repetitions that have the
 * figure (n says how many); every figure null when none has it.
 */
export function summarize(repetitions, metrics) {
  const figuresOf = (rep) => (rep && typeof rep === 'object' && 'figures' in rep ? rep.figures : rep);
  return Object.fromEntries(metrics.map((m) => {
    const xs = repetitions.map((rep) => metricValue(figuresOf(rep), m)).filter((v) => v !== null);
    if (!xs.length) return [m, { mean: null, median: null, min: null, max: null, stdev: null, rsd: null, n: 0 }];
    return [m, {
      mean: mean(xs), median: median(xs), min: Math.min(...xs), max: Math.max(...xs),
      stdev: orNull(stdev(xs)), rsd: orNull(rsd(xs)), n: xs.length,
    }];
  }));
}

/**
 * A results object from a plan (resolveSpec) before anything is measured: the runner fills
 * environment, variants[].layout, repetitions, summaries, verdicts and runner as it goes, so the
 * shape is this schema's from the first write (a run that stops early is still valid once it sets
 * complete: false and incomplete_reason).
 */
/**
 * The closed loop's outcome per auto-isolating variant: [{ variant, moved, of }], moved counting
 * the repetitions whose burst store was flagged (isolation.flag_s set) and moved; a repetition
 * without figures counts as not moved.
 */
export function loopOutcomes(results) {
  return results.variants.filter((v) => v.isolate?.auto === true).map((v) => ({
    variant: v,
    moved: v.repetitions.filter((r) => {
      const i = r.figures?.isolation;
      return i !== undefined && i.flag_s !== null && i.flag_s !== undefined && i.moved === true;
    }).length,
    of: v.repetitions.length,
  }));
}

export function resultsSkeleton(plan, { run_id, started_at = new Date().toISOString(), lab, environment, workload = plan.workload }) {
  return {
    schema_version: SCHEMA_VERSION,
    experiment: plan.name,
    title: plan.title,
    hypothesis: plan.hypothesis,
    source: plan.source,
    run_id,
    started_at,
    finished_at: null,
    complete: false,
    incomplete_reason: 'the run has not finished',
    quick: plan.quick,
    lab,
    environment,
    plan: {
      repetitions: plan.repetitions, confidence: plan.confidence, order: plan.order,
      ...(plan.rounds ? { rounds: plan.rounds, order_seed: plan.order_seed, cold_round: plan.cold_round } : {}),
      ...(plan.smoke !== undefined ? { smoke: plan.smoke } : {}),
      ...(plan.left_out ? { left_out: plan.left_out } : {}),
      ...(plan.lab_left_out ? { lab_left_out: plan.lab_left_out } : {}),
      ...(plan.over_budget ? { over_budget: plan.over_budget } : {}),
      ...(plan.took_p95 ? { took_p95: plan.took_p95 } : {}),
      workload, report: plan.report, ...(plan.expect ? { expect: plan.expect } : {}),
    },
    variants: plan.variants.map((v) => ({
      name: v.name,
      label: v.label ?? v.name,
      settings: v.settings,
      ...(v.lab ? { lab: v.lab } : {}), ...(v.burst ? { burst: v.burst } : {}), ...(v.isolate ? { isolate: v.isolate } : {}),
      layout: null,
      ...(v.published ? { published: v.published } : {}),
      repetitions: [],
      summary: {},
    })),
    verdicts: [],
    runner: { cpu_percent: null, generator_cpu_percent: null, wall_seconds: null },
  };
}
