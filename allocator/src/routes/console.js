// The lab console (issue 29): the page at / and its modules, the state it draws (the last
// observation: no call to Elasticsearch per refresh), the groups' recent health, and the stored
// experiment runs with their reports. The page's files are a fixed list read once at start and
// served from memory: no part of a request's path ever reaches the file system, except a stored
// run's folder, found by names the runner's patterns allow (@tenantlab/contract/runs).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runDir, storedRuns } from '@tenantlab/contract/runs';
import { errors } from './schemas.js';

const here = dirname(fileURLToPath(import.meta.url));
const consoleDir = join(here, '../console');
const uplotDir = dirname(createRequire(import.meta.url).resolve('uplot/package.json'));

const TYPES = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8', '.svg': 'image/svg+xml' };
const typeOf = (file) => TYPES[file.slice(file.lastIndexOf('.'))] ?? 'application/octet-stream';

// The console's own files (allocator/src/console/) and the chart library's, pinned in package.json
const ASSETS = [
  ...['index.html', 'console.css', 'app.js', 'api.js', 'dom.js', 'map.js', 'health.js', 'moves.js', 'runs.js', 'tenant.js'].map((f) => [f, join(consoleDir, f)]),
  ['vendor/uPlot.esm.js', join(uplotDir, 'dist/uPlot.esm.js')],
  ['vendor/uPlot.min.css', join(uplotDir, 'dist/uPlot.min.css')],
];

// what the page may do: its own scripts, styles and data only; never framed (a move button under
// another site's page is a click away from a move)
const PAGE_HEADERS = {
  'content-security-policy': "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-cache',
};
// a report is self-contained (its styles inline, its charts inline SVG): nothing to load, no script
const REPORT_HEADERS = {
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};
const REPORT_FILE = /^(report\.html|[a-z0-9][a-z0-9_.-]{0,120}\.svg)$/;

export default async function consoleRoutes(app, { config }) {
  const assets = new Map(ASSETS.map(([name, file]) => [name, { body: readFileSync(file), type: typeOf(file) }]));
  const send = (reply, name) => {
    const a = assets.get(name);
    return reply.headers(PAGE_HEADERS).type(a.type).send(a.body);
  };

  app.get('/', { schema: { summary: 'The lab console (a page for a browser)', tags: ['console'] } }, (req, reply) => send(reply, 'index.html'));
  // a browser asks for it on every page, the reports' too: nothing, rather than a 404 in its console
  app.get('/favicon.ico', { schema: { hide: true } }, (req, reply) => reply.code(204).send());
  app.get('/console/*', { schema: { hide: true } }, (req, reply) => {
    const name = req.params['*'];
    if (!assets.has(name)) return reply.code(404).send({ error: 'not_found', message: `no console file '${name}'` });
    return send(reply, name);
  });

  app.get('/console/state', {
    schema: { summary: 'The cluster map and health as last observed: groups, nodes, indices, tenants, hot tenants, jobs', tags: ['console'], response: { 200: { type: 'object', additionalProperties: true } } },
  }, () => app.views.consoleState({ auto: () => app.autoIsolator.view() }));

  app.get('/console/history', {
    schema: { summary: "Each group's health over the last minutes, one point per observation (columns)", tags: ['console'], response: { 200: { type: 'object', additionalProperties: true } } },
  }, () => app.history.view());

  app.get('/console/runs', {
    schema: { summary: 'Every stored experiment run, committed and local, with its verdicts and its report', tags: ['console'], response: { 200: { type: 'object', additionalProperties: true } } },
  }, () => ({
    // by experiment, the newest run of each first
    runs: storedRuns(config.runs).sort((a, b) => a.experiment.localeCompare(b.experiment) || String(b.started_at).localeCompare(String(a.started_at))).map(({ dir, path, ...r }) => ({
      ...r,
      report: r.report_html ? `/console/runs/${r.where}/${r.experiment}/${r.run_id}/report.html` : null,
    })),
  }));

  app.get('/console/runs/:where/:experiment/:run/:file', {
    schema: {
      summary: "A stored run's report (report.html) or one of its charts",
      tags: ['console'],
      params: {
        type: 'object',
        additionalProperties: false,
        required: ['where', 'experiment', 'run', 'file'],
        properties: { where: { type: 'string', enum: ['committed', 'local'] }, experiment: { type: 'string' }, run: { type: 'string' }, file: { type: 'string', pattern: REPORT_FILE.source } },
      },
      response: errors(400, 404),
    },
  }, (req, reply) => {
    const { where, experiment, run, file } = req.params;
    const dir = runDir(config.runs, { where, experiment, run });
    let body = null;
    try {
      body = dir ? readFileSync(join(dir, file)) : null;
    } catch {
      body = null;
    }
    if (!body) return reply.code(404).send({ error: 'not_found', message: `no ${file} in the ${where} run ${experiment}/${run} (make experiment-runs lists the stored runs)` });
    return reply.headers(REPORT_HEADERS).type(typeOf(file)).send(body);
  });
}
