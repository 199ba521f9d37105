// grafana-dashboards/build [--check] [--out DIR]
//
// Compiles the dashboards (src/dashboards/) to the JSON Grafana provisions and writes the
// datasource file from lab.env, into grafana-dashboards/ (or DIR). A dashboard JSON in
// dashboards/ that no source produces any more is removed.
// --check writes nothing: it names every generated file that is missing, differs from what the
// sources produce, or is left over, and exits 1 if there is one (the static tests and
// `make render CHECK=1` run it). Bad usage or a bad lab.env: one line, exit 2. The write and the
// check are every generator's (@tenantlab/contract/render-files).
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { labEnvFile, parseLabEnv } from '@tenantlab/contract/lab-env-file';
import { renderFiles } from '@tenantlab/contract/render-files';
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

const { check, out } = parseArgs(process.argv.slice(2));
// paths shown from the current directory, as a user typed --out; a dashboard JSON in
// out/dashboards/ that no source produces is stale, and removed by a build
const files = Object.entries(expected()).map(([path, content]) => ({ path: join(out, path), content }));
process.exitCode = renderFiles(files, {
  root: process.cwd(),
  check,
  source: 'its sources',
  owns: [{ dir: relative(process.cwd(), join(out, DASHBOARDS_DIR)) || '.', ext: '.json' }],
  label: `${relative(process.cwd(), out) || '.'}/ (${files.length} files)`,
});
