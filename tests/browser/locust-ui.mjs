// locust-ui.mjs URL SCENARIO: loads Locust's web UI in headless Chromium (Debian's, driven by
// puppeteer-core) while a run lasts and prints what a person would read there, as JSON:
// { title, rows: [{ name, requests, fails, rps, failures_per_s }] of SCENARIO's request names, total:
// the Aggregated row }. Exit 1 with one line when the page does not show the run.
//   node tests/browser/locust-ui.mjs http://127.0.0.1:8089/ storefront [NAME,NAME...]   (CHROMIUM=, PUPPETEER_DIR=)
// NAMES: request names (after "SCENARIO ") the page must show before it is read; a rare request
// (autocomplete is a tenth of page views) may come seconds after the first row.
import { createRequire } from 'node:module';
import { join } from 'node:path';

const [url, scenario, namesArg = ''] = process.argv.slice(2);
const names = namesArg.split(',').filter(Boolean).map((n) => `${scenario} ${n}`);
const require = createRequire(join(process.env.PUPPETEER_DIR, 'node_modules', 'x.js'));
const puppeteer = require('puppeteer-core');

const fail = (msg) => { process.stderr.write(`browser: ${msg}\n`); process.exit(1); };
const browser = await puppeteer.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  headless: true,
  // root in CI: no user namespace sandbox; no GPU, no first-run work
  args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run'],
});
try {
  const page = await browser.newPage();
  await page.goto(url, { waitUntil: 'networkidle2', timeout: 30000 });
  // the stats table fills in as the UI polls /stats/requests (every 2 s)
  await page.waitForFunction((s) => document.body.innerText.includes(`${s} `), { timeout: 30000 }, scenario)
    .catch(() => fail(`no request of ${scenario} on ${url} within 30 s`));
  // every expected name's row, each a cell of its own (a name may be another's prefix)
  await page.waitForFunction((ns) => {
    const cells = new Set([...document.querySelectorAll('td')].map((c) => c.innerText.trim()));
    return ns.every((n) => cells.has(n));
  }, { timeout: 20000 }, names)
    .catch(() => fail(`the page did not show every request of ${names.join(', ')} on ${url} within 20 s`));
  // two polls later the rates are current
  await new Promise((r) => setTimeout(r, 4500));
  const seen = await page.evaluate((s) => {
    // the statistics table: a header row, one row per request name, and "Aggregated"
    const table = [...document.querySelectorAll('tr')].map((tr) => [...tr.querySelectorAll('th,td')].map((c) => c.innerText.trim()));
    const header = table.find((r) => r.includes('Current RPS')) || [];
    const col = (name) => header.indexOf(name);
    const ofRow = (r) => ({ name: r[col('Name')], requests: Number(r[col('# Requests')]), fails: Number(r[col('# Fails')]),
      rps: Number(r[col('Current RPS')]), failures_per_s: Number(r[col('Current Failures/s')]) });
    const rows = table.filter((r) => (r[col('Name')] || '').startsWith(`${s} `)).map(ofRow);
    const total = table.find((r) => r[col('Name')] === 'Aggregated');
    return { title: document.title, rows, total: total ? ofRow(total) : null };
  }, scenario);
  process.stdout.write(`${JSON.stringify(seen)}\n`);
} finally {
  await browser.close();
}
