import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { syntheticResults } from './fixtures/synthetic.js';

const bin = new URL('../bin/tenantlab-experiment', import.meta.url).pathname;
const fixtures = new URL('./fixtures/specs/', import.meta.url).pathname;
const run = (...args) => spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8' });

function runDir(results) {
  const dir = mkdtempSync(join(tmpdir(), 'run-'));
  writeFileSync(join(dir, 'results.json'), JSON.stringify(results));
  return dir;
}

test('list: name, estimated times, first sentence of the hypothesis, source, expectations', () => {
  const r = run('list');
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^appbase-write-scaling {2}\(about \d+ min; QUICK=1 about \d+ (min|s); 4 variants x \d+ repetitions\)\n/);
  assert.match(r.stdout, /\nexplorium-shards-replicas {2}\(about \d+ min; QUICK=1 about \d+ min; 9 variants x \d+ repetitions\)\n/);
  assert.match(r.stdout, /\nmany-shards {2}\(about \d+ min; QUICK=1 about \d+ min; 4 variants x \d+ repetitions\)\n {2}The more indices a cluster holds/);
  assert.match(r.stdout, /\nh1-shard-count {2}\(about \d+ min; QUICK=1 about \d+ min; 4 variants x \d+ repetitions\)\n {2}With every store in one index, fewer primary shards answer storefront searches faster: .*\.\n {2}source: Elasticsearch: Adventures in scaling a multitenant platform/);
  assert.match(r.stdout, /\n {2}expects: fewer shards, faster \(average and p95\)\n/);
  assert.match(r.stdout, /\nh2-split-index {2}\(about/);
  const other = run('list', '--dir', fixtures);
  assert.equal(other.status, 2, 'a broken spec in the folder is an error');
  assert.match(other.stderr, /^error: \S+bad-name\.yaml: name: must equal the file's base name "bad-name" \(got "another-name"\)\n$/);
});

test('validate: ok lines, and one error line per broken file, exit 2', () => {
  const ok = run('validate', join(fixtures, 'good-minimal.yaml'), join(fixtures, 'good-open.yaml'));
  assert.equal(ok.status, 0);
  assert.match(ok.stdout, /^ok \S+good-minimal\.yaml: 2 variants, 1 expected direction\(s\)\nok \S+good-open\.yaml: 3 variants, 2 expected direction\(s\)\n$/);
  const bad = run('validate', join(fixtures, 'good-minimal.yaml'), join(fixtures, 'bad-shards-zero.yaml'));
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /^error: \S+bad-shards-zero\.yaml: variants\[2\]\.shards: must be a positive integer \(got 0\)\n$/);
  assert.equal(run('validate').status, 2);
});

test('report DIR re-renders the report from results.json', () => {
  const dir = runDir(syntheticResults().results);
  const r = run('report', dir);
  assert.equal(r.status, 0, r.stderr);
  for (const f of ['report.md', 'report.html', 'latency-over-time.svg']) assert.ok(existsSync(join(dir, f)), f);
  assert.match(readFileSync(join(dir, 'report.md'), 'utf8'), /\*\*reproduced\*\*/);
  const missing = run('report', join(dir, 'nothing'));
  assert.equal(missing.status, 2);
  assert.equal(missing.stderr, `error: ${join(dir, 'nothing', 'results.json')}: no such file\n`);
});

test('compare A B: run folders or results.json files; errors are one line', () => {
  const a = runDir(syntheticResults({ runId: 'a1' }).results);
  const b = runDir(syntheticResults({ runId: 'b1', seed: 9 }).results);
  const r = run('compare', a, join(b, 'results.json'));
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^h2-split-index: baseline a1, contender b1\n/);
  for (const format of ['json', 'csv', 'md']) assert.equal(run('compare', a, b, '--format', format).status, 0, format);
  assert.equal(JSON.parse(run('compare', a, b, '--format', 'json').stdout).experiment, 'h2-split-index');
  const xml = run('compare', a, b, '--format', 'xml');
  assert.equal(xml.status, 2);
  assert.equal(xml.stderr, 'error: FORMAT=xml: want one of text, json, csv, md\n');
  const committed = run('compare', 'h2-split-index/committed', a);
  assert.equal(committed.status, 0, committed.stderr);
  assert.equal(run('compare', 'no-such/committed', a).status, 2);
  const h1 = runDir(syntheticResults({ experiment: 'h1-shard-count', runId: 'c1' }).results);
  const diff = run('compare', a, h1);
  assert.equal(diff.status, 2);
  assert.equal(diff.stderr, 'error: cannot compare runs of different experiments: h2-split-index (a1) and h1-shard-count (c1)\n');
  const none = run('compare', a, 'h2-split-index/no-such-run');
  assert.equal(none.status, 2);
  assert.match(none.stderr, /^error: no run h2-split-index\/no-such-run in \S+ \(ls \S+ lists its runs\)\n$/);
  assert.equal(run('compare', a).status, 2);
  const invalid = mkdtempSync(join(tmpdir(), 'run-'));
  mkdirSync(invalid, { recursive: true });
  writeFileSync(join(invalid, 'results.json'), '{}');
  const bad = run('compare', a, invalid);
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /^error: \S+results\.json: not a valid results\.json: schema_version: missing \(and \d+ more\)\n$/);
});

test('unknown commands and options: one line, exit 2, no stack trace', () => {
  const r = run('frobnicate');
  assert.equal(r.status, 2);
  assert.equal(r.stderr, "error: unknown command 'frobnicate': pick one of list, run, check, report, compare, runs, plan, validate (help shows them)\n");
  const o = run('list', '--verbose');
  assert.equal(o.status, 2);
  assert.equal(o.stderr, 'error: unknown option --verbose (allowed: --dir)\n');
  assert.match(run('help').stdout, /^usage: tenantlab-experiment COMMAND/);
});

test('runs [NAME]: the stored runs, committed ones named NAME/committed; an unknown name is one line', () => {
  const r = run('runs', 'h2-split-index');
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^\| experiment +\| run \(A= \/ B= of experiment-compare\) +\| started \(UTC\) +\| kind +\| state +\| verdicts +\|$/m);
  assert.match(r.stdout, /^\| h2-split-index +\| h2-split-index\/committed +\| 20\d\d-\d\d-\d\d \d\d:\d\d +\| full +\| complete +\| .+\|$/m);
  const none = run('runs', 'h9-nothing');
  assert.equal(none.status, 2);
  assert.equal(none.stderr, "error: unknown experiment 'h9-nothing' (make experiments lists them)\n");
});

test('plan NAME: the repetitions and window for 80% power within 30 minutes, from the committed run', () => {
  const r = run('plan', 'h1-shard-count');
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^h1-shard-count: 1 direction, one Holm family at 0\.05; at least 2 repetitions/);
  assert.match(r.stdout, /\n {2}plan: \d+ repetitions/);
  assert.match(r.stdout, /\(spread from experiments\/results\/h1-shard-count\/results\.json, run \S+\)\n$/);
  assert.equal(run('plan').status, 2);
  assert.equal(run('plan', 'h9-nothing').stderr, "error: unknown experiment 'h9-nothing' (make experiments lists them)\n");
});
