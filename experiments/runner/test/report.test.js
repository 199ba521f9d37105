import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { latencyByVariant, latencyOverTime, publishedVsLab } from '../src/charts.js';
import { markdownTable, verdictLine, writeReport } from '../src/report.js';
import { syntheticResults } from './fixtures/synthetic.js';

/**
 * A small XML well-formedness check (no dependency): every tag balanced and properly nested,
 * attributes quoted, text without a raw < or a bare &; returns the root element's name.
 */
function xmlRoot(text) {
  const body = text.replace(/^\s*<\?xml[^>]*\?>/, '').replace(/<!--[\s\S]*?-->/g, '').replace(/<!\[CDATA\[[\s\S]*?\]\]>/g, '');
  const stack = [];
  let root = null;
  let pos = 0;
  const tag = /<(\/?)([A-Za-z_][\w:.-]*)((?:\s+[\w:.-]+\s*=\s*(?:"[^"<]*"|'[^'<]*'))*)\s*(\/?)>/y;
  const checkText = (t) => {
    assert.ok(!t.includes('<'), `a raw < in text: ${t.slice(0, 80)}`);
    assert.ok(!/&(?!(?:[A-Za-z]+|#\d+|#x[0-9a-fA-F]+);)/.test(t), `a bare & in text: ${t.slice(0, 80)}`);
  };
  while (pos < body.length) {
    const lt = body.indexOf('<', pos);
    if (lt < 0) {
      checkText(body.slice(pos));
      break;
    }
    checkText(body.slice(pos, lt));
    tag.lastIndex = lt;
    const m = tag.exec(body);
    assert.ok(m, `not a well-formed tag at ${lt}: ${body.slice(lt, lt + 80)}`);
    const [, close, name, , selfClose] = m;
    if (close) assert.equal(stack.pop(), name, `</${name}> closes the wrong element`);
    else {
      if (stack.length === 0) {
        assert.equal(root, null, 'one root element');
        root = name;
      }
      if (!selfClose) stack.push(name);
    }
    pos = tag.lastIndex;
  }
  assert.deepEqual(stack, [], 'every element closed');
  return root;
}

test('the XML check itself rejects broken markup', () => {
  assert.equal(xmlRoot('<svg a="1"><g><text>a &amp; b</text></g><rect/></svg>'), 'svg');
  assert.throws(() => xmlRoot('<svg><g></svg>'));
  assert.throws(() => xmlRoot('<svg><text>a & b</text></svg>'));
  assert.throws(() => xmlRoot('<svg a=1></svg>'));
});

test('each chart is a standalone SVG document', async () => {
  const { results } = syntheticResults();
  for (const svg of [await latencyByVariant(results, 'p95_ms'), await latencyOverTime(results), await publishedVsLab(results, 'avg_ms')]) {
    assert.equal(xmlRoot(svg), 'svg');
    assert.match(svg, /^<svg [^>]*xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    assert.ok(!/https?:\/\/(?!www\.w3\.org)/.test(svg), 'no external reference');
  }
  assert.match(await latencyByVariant(results, 'p95_ms'), /2 indices x 4 shards/);
  // h1 has published figures for two variants only (8 and 4 shards): still a chart
  const h1 = syntheticResults({ experiment: 'h1-shard-count' }).results;
  assert.equal(xmlRoot(await publishedVsLab(h1, 'p95_ms')), 'svg');
  assert.equal(await publishedVsLab(h1, 'p99_ms'), null, 'no published p99: no chart');
  const noTimeline = structuredClone(results);
  for (const v of noTimeline.variants) for (const r of v.repetitions) r.timeline = [];
  assert.equal(await latencyOverTime(noTimeline), null);
});

test('writeReport writes report.md, a self-contained report.html and the charts', async () => {
  const { results } = syntheticResults();
  const dir = join(mkdtempSync(join(tmpdir(), 'report-')), 'run');
  const files = await writeReport(dir, results);
  assert.deepEqual(files, ['report.md', 'report.html', 'latency-by-variant-avg_ms.svg', 'latency-by-variant-p95_ms.svg', 'by-variant-throughput_rps.svg', 'latency-over-time.svg', 'published-vs-lab-avg_ms.svg', 'published-vs-lab-p95_ms.svg']);
  for (const f of files) assert.ok(existsSync(join(dir, f)), f);
  for (const f of files.filter((x) => x.endsWith('.svg'))) assert.equal(xmlRoot(readFileSync(join(dir, f), 'utf8')), 'svg', f);

  const md = readFileSync(join(dir, 'report.md'), 'utf8');
  assert.match(md, /^# h2-split-index: One index against two/);
  const verdictLines = md.split('\n').filter((l) => /^- \*\*(reproduced|not_reproduced|inconclusive)\*\*: /.test(l));
  assert.equal(verdictLines.length, 2, 'one verdict line per expectation');
  assert.ok(verdictLines[0].startsWith('- **reproduced**: 2x4 answers faster than 1x8 (average and p95) (Mann-Whitney U, one-sided, exact, on each of avg_ms and p95_ms (the larger p decides), p = 0.00397, 0.00794 after Holm over 2 directions; ratio '), verdictLines[0]);
  // the protocol, stated beside the verdicts, and every round's order
  assert.match(md, /^Protocol: Each expected direction is a one-sided test at level 0\.05 .* the 2 p-values are adjusted with Holm's step-down method/m);
  assert.match(md, /Before the first measured round: a full unmeasured window of every variant./);
  assert.match(md, /- plan: 5 repetitions, rounds in an order drawn from seed 7 \(1: [^;]+; 2: [^;]+; 3: [^;]+; 4: [^;]+; 5: [^)]+\); confidence 0\.95/);
  assert.match(md, /- JVM: OpenJDK 64-Bit Server VM 25\.0\.1, heap 512 MB, G1 Young Generation \+ G1 Old Generation \(-Xms512m -Xmx512m -XX:\+UseG1GC\) on es01/);
  assert.match(md, /- tree: clean; publishable: yes/);
  assert.ok(md.indexOf('## Verdicts') < md.indexOf('## Hypothesis'), 'verdicts first');
  for (const v of results.variants) assert.ok(md.includes(v.label), v.label);
  assert.match(md, /\| variant \| indices \| shards \| primary shards \| median shard size \| average \(ms\) \| average \(ms\), article \| p95 \(ms\) \| p95 \(ms\), article \|/);
  assert.match(md, /\| 2 indices x 4 shards \| 2 \| 4 \| 8 \| 6\.2 MB \| [\d.]+ \| 48 \| [\d.]+ \| 265 \|/);
  assert.match(md, /\| 1 index x 8 shards \| 5 of 5 \| [\d.]+ ± [\d.]+ \(rsd [\d.]+%\)/);
  assert.equal(md.split('\n').filter((l) => /^\| [1234] \| /.test(l) && /\| yes \|/.test(l)).length, 16, 'every repetition in the raw table');
  assert.match(md, /## Elasticsearch side/);
  assert.match(md, /es01 71%, es02 64%/);
  assert.match(md, /- machine: 2 cores, 8 GB memory/);
  assert.match(md, /git commit: `8df2166`/);
  for (const f of files.filter((x) => x.endsWith('.svg'))) assert.ok(md.includes(`](${f})`), `md links ${f}`);

  const html = readFileSync(join(dir, 'report.html'), 'utf8');
  assert.match(html, /^<!DOCTYPE html>/);
  assert.equal((html.match(/<svg /g) ?? []).length, files.filter((x) => x.endsWith('.svg')).length, 'every chart inlined');
  assert.ok(!/<(link|script|img)\b/.test(html), 'no external asset');
  assert.ok(!/\b(src|href)="(?!https:\/\/www\.bigeng\.io)/.test(html.replace(/<svg[\s\S]*?<\/svg>/g, '')), 'only the source article is linked');
  assert.match(html, /<strong>reproduced<\/strong>: 2x4 answers faster than 1x8/);
  // every table in a box of its own that scrolls sideways (a wide table never widens the page)
  const tables = (html.match(/<table>/g) ?? []).length;
  assert.ok(tables > 0);
  assert.equal((html.match(/<div class="scroll" tabindex="0" role="region" aria-label="table: [^"]*">\n<table>/g) ?? []).length, tables);
  assert.match(html, /\.scroll\{overflow-x:auto;max-width:100%\}/);
  assert.match(html, /p = 0\.00397, 0\.00794 after Holm over 2 directions/);
});

test('an incomplete run still renders, says so, and marks the failed repetition', async () => {
  const { results } = syntheticResults({ experiment: 'h1-shard-count', fail: [{ variant: 's8', round: 2 }] });
  const dir = mkdtempSync(join(tmpdir(), 'report-'));
  await writeReport(dir, results);
  const md = readFileSync(join(dir, 'report.md'), 'utf8');
  assert.match(md, /\*\*incomplete run\*\*: a repetition failed/);
  assert.match(md, /\| 2 \| 8 shards \| [^|]+ \| no: locust exited with status 107 \| - \|/);
  assert.match(md, /- \*\*inconclusive\*\*: fewer shards, faster \(average and p95\) \(Jonckheere-Terpstra, one-sided, exact, no test run\) — s8's repetition 2 has no avg_ms figure \(failed or incomplete\)/);
  assert.match(md, /\| 8 shards \| 2 of 3 \|/);
  assert.match(md, /\| shards \| median shard size \| average \(ms\) \| average \(ms\), article \| p95 \(ms\) \| p95 \(ms\), article \|/);
});

test('markdown tables escape pipes; verdict lines carry the effect interval, unbounded said so, and the Holm-adjusted p', () => {
  assert.equal(markdownTable(['a', 'b'], [['x|y', null]]), '| a | b |\n|---|---|\n| x\\|y | - |');
  const line = verdictLine({ result: 'reproduced', claim: 'c', test: 't', p_value: 0.05, confidence: 0.95, effect: { ratio: 0.5, ci_low: 0.4, ci_high: 0.6 }, reason: 'why' });
  assert.equal(line, '**reproduced**: c (t, p = 0.05; ratio 0.5, 95% CI 0.4-0.6) — why.');
  const open = verdictLine({ result: 'inconclusive', claim: 'c', test: 't', p_value: 0.2, p_adjusted: 0.4, family_size: 2, confidence: 0.95, effect: { ratio: 3, ci_low: null, ci_high: null, unbounded: true }, reason: 'why' });
  assert.equal(open, '**inconclusive**: c (t, p = 0.2, 0.4 after Holm over 2 directions; ratio 3, 95% CI unbounded (the denominator cannot be told from zero)) — why.');
});

test('many-shards: where the lab degrades, from the creation rates (half the best), and the master heap at the largest count', async () => {
  const { degradation } = await import('../src/report.js');
  const run = (rates) => ({
    plan: { workload: { scenario: 'many-shards' } },
    variants: rates.map(([n], i) => ({ name: `n${n}`, settings: { indices: n }, repetitions: [{ figures: { many_shards: { master_heap_limit_mb: 512 } } }], i })),
  });
  const summaries = (rates) => Object.fromEntries(rates.map(([n, r, h]) => [`n${n}`, { indices_per_s: { mean: r }, master_heap_max_mb: { mean: h } }]));
  const flat = [[200, 15, 300], [400, 16, 310], [800, 18, 330]];
  assert.match(degradation(run(flat), summaries(flat)), /^No degradation within the sweep: at 800 indices, the largest, creation ran at 18 indices\/s, 100% of the best \(18\).* The master's heap in use peaked at 330 MB of 512 at 800 indices\.$/);
  const falls = [[200, 20, 300], [400, 12, 350], [800, 8, 500]];
  assert.match(degradation(run(falls), summaries(falls)), /^Creation fell below half its best rate \(20 indices\/s\) at 800 indices \(8 indices\/s\)\./);
  assert.equal(degradation({ plan: { workload: { scenario: 'ingest' } }, variants: [] }, {}), null);
});

test('a bar says what it holds: the mean of how many repetitions, each variant its own count when they differ, one value as one value', async () => {
  const { barHolds } = await import('../src/charts.js');
  const rows = (counts) => Object.entries(counts).flatMap(([variant, n]) => Array.from({ length: n }, () => ({ variant, value: 1 })));
  assert.equal(barHolds(rows({ a: 5, b: 5 }), ['a', 'b']), 'mean of 5 repetitions');
  assert.equal(barHolds(rows({ a: 1, b: 1 }), ['a', 'b']), 'one value');
  assert.equal(barHolds(rows({ a: 5, b: 4, c: 1 }), ['a', 'b', 'c']), 'a mean of 5, b mean of 4, c one value');
});

test('a run of fewer repetitions than its family now needs says so in its protocol; a run of enough says nothing', async () => {
  const dir = (name) => join(mkdtempSync(join(tmpdir(), 'report-')), name);
  const four = syntheticResults({ repeat: 4, runId: 'four' }).results;
  const a = dir('four');
  await writeReport(a, four);
  assert.match(readFileSync(join(a, 'report.md'), 'utf8'), /\*\*This run has 4 repetitions per variant, measured before the minimum was taken at Holm's first step, which asks 5 for a family of 2: its verdicts were reached under the earlier minimum, and it is to be re-run\.\*\*/);
  const b = dir('five');
  await writeReport(b, syntheticResults({ runId: 'five' }).results);
  assert.doesNotMatch(readFileSync(join(b, 'report.md'), 'utf8'), /to be re-run/);
});
