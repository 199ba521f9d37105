// grafana-dashboards/build [--check] [--out DIR]
//
// Compiles the dashboards (src/dashboards/) to the JSON Grafana provisions and writes the
// datasource file from lab.env, into grafana-dashboards/ (or DIR). A dashboard JSON in
// dashboards/ that no source produces any more is removed.
// --check writes nothing: it names every generated file that is missing, differs from what the
// sources produce, or is left over, and exits 1 if there is one (the static tests and
// `make render CHECK=1` run it). Bad usage or a bad lab.env: one line, exit 2.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { labEnvFile, parseLabEnv } from '@tenantlab/contract/lab-env-file';
import { DASHBOARDS_DIR, generatedFiles } from './generated.js';

const HERE = dirname(dirname(fileURLToPath(import.meta.url))); // grafana-dashboards/

function usage(message) {
  console.error(`grafana-dashboards/build: ${message} (usage: grafana-dashboards/build [--check] [--out DIR])`);
  process.exit(2);
}

function parseArgs(argv) {
  const args = { check: false, out: HERE };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--check') args.check = true;
    else if (argv[i] === '--out' && argv[i + 1]) args.out = resolve(argv[++i]);
    else usage(`unknown argument: ${argv[i]}`);
  }
  return args;
}

// Files the sources produce, keyed by their path under `out`. From lab.env's text alone (the
// checkout's, or LAB_ENV_FILE's as for every generator), not merged with the environment: the
// committed output is the same on every machine and in the test runs that shift ports.
function expected() {
  const file = labEnvFile(process.env);
  try {
    return generatedFiles(parseLabEnv(readFileSync(file, 'utf8'), relative(process.cwd(), file) || file));
  } catch (err) {
    console.error(`grafana-dashboards/build: ${err.message}`);
    process.exit(2);
  }
}

// Dashboard JSON files present in out/dashboards/ that no source produces
function leftovers(out, files) {
  const dir = join(out, DASHBOARDS_DIR);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .map((f) => `${DASHBOARDS_DIR}/${f}`)
    .filter((path) => !(path in files));
}

const { check, out } = parseArgs(process.argv.slice(2));
const files = expected();
const show = (path) => relative(process.cwd(), join(out, path)) || path;

if (check) {
  const stale = [];
  for (const [path, text] of Object.entries(files)) {
    const file = join(out, path);
    if (!existsSync(file)) stale.push(`${show(path)}: missing`);
    else if (readFileSync(file, 'utf8') !== text) stale.push(`${show(path)}: differs from its sources`);
  }
  for (const path of leftovers(out, files)) stale.push(`${show(path)}: no source produces it`);
  for (const line of stale) console.error(`stale: ${line}`);
  if (stale.length) {
    console.error(`grafana-dashboards/build: ${stale.length} generated file(s) stale: run \`make dashboards\``);
    process.exit(1);
  }
} else {
  for (const [path, text] of Object.entries(files)) {
    const file = join(out, path);
    mkdirSync(dirname(file), { recursive: true });
    if (!existsSync(file) || readFileSync(file, 'utf8') !== text) {
      writeFileSync(file, text);
      console.log(`wrote ${show(path)}`);
    }
  }
  for (const path of leftovers(out, files)) {
    rmSync(join(out, path));
    console.log(`removed ${show(path)} (no source produces it)`);
  }
}
