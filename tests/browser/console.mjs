// console.mjs URL HOT_TENANT MOVE_TENANT MOVE_TO SHOTS_DIR: the lab console in headless Chromium
// (Debian's, driven by puppeteer-core), as a person would use it, against a live allocator:
//  1. the map shows every group, data node and tenant the API reports (GET /groups, /tenants);
//  2. HOT_TENANT's tile turns hot on the page (a bot crawls it meanwhile), timed;
//  3. MOVE_TENANT is moved to MOVE_TO from its tile's dialog (choose, confirm), the job completes
//     and the tile is drawn in MOVE_TO's column;
//  4. keyboard focus reaches every control (Tab from the top);
//  5. the experiments list opens a report (its title names the experiment);
//  6. no error in the page's console, no failed request.
// Prints one JSON line of what it saw and writes console-map.png and report.png to SHOTS_DIR.
// Exit 1 with one line when a step fails. (CHROMIUM=, PUPPETEER_DIR=, HOT_WAIT_S= default 120)
import { createRequire } from 'node:module';
import { join } from 'node:path';

const [url, hotTenant, moveTenant, moveTo, shots] = process.argv.slice(2);
const require = createRequire(join(process.env.PUPPETEER_DIR, 'node_modules', 'x.js'));
const puppeteer = require('puppeteer-core');
const hotWaitS = Number(process.env.HOT_WAIT_S || 120);

const problems = [];
const fail = (msg) => { process.stderr.write(`browser: ${msg}\n`); process.exit(1); };
const api = async (path) => (await fetch(new URL(path, url))).json();

const browser = await puppeteer.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run'],
});
const seen = {};
try {
  const page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 900 });
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console: ${m.text()}`); });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('requestfailed', (r) => problems.push(`request failed: ${r.url()} ${r.failure()?.errorText}`));
  const t0 = Date.now();
  await page.goto(url, { waitUntil: 'load', timeout: 30000 });
  await page.waitForSelector('.tile', { timeout: 30000 }).catch(() => fail('no tenant tile on the map within 30 s'));
  seen.first_tile_ms = Date.now() - t0;

  // 1. the map against the API
  const [groups, tenants] = await Promise.all([api('/groups'), api('/tenants')]);
  await new Promise((r) => setTimeout(r, 3500)); // one refresh after the API answered
  const onPage = await page.evaluate(() => ({
    groups: [...document.querySelectorAll('.group')].map((g) => g.dataset.group),
    nodes: [...document.querySelectorAll('.group .node')].map((n) => n.dataset.node),
    tiles: [...document.querySelectorAll('.tile')].map((t) => ({ id: t.dataset.tenant, group: t.closest('.group')?.dataset.group })),
  }));
  const want = { groups: groups.groups.map((g) => g.name).sort(), nodes: groups.groups.flatMap((g) => g.nodes).sort(), tenants: tenants.tenants.map((t) => `${t.id}@${t.group}`).sort() };
  const got = { groups: [...onPage.groups].sort(), nodes: [...onPage.nodes].sort(), tenants: onPage.tiles.map((t) => `${t.id}@${t.group}`).sort() };
  for (const k of ['groups', 'nodes', 'tenants']) {
    if (JSON.stringify(want[k]) !== JSON.stringify(got[k])) fail(`the map's ${k} differ from the API's: page ${JSON.stringify(got[k])}, API ${JSON.stringify(want[k])}`);
  }
  seen.groups = got.groups.length;
  seen.nodes = got.nodes.length;
  seen.tenants = got.tenants.length;
  await page.screenshot({ path: join(shots, 'console-map.png'), fullPage: false });

  // 2. the bot's store turns hot on the page
  const hotStart = Date.now();
  await page.waitForSelector(`.tile.hot[data-tenant="${hotTenant}"]`, { timeout: hotWaitS * 1000 })
    .catch(() => fail(`${hotTenant} did not turn hot on the page within ${hotWaitS} s`));
  seen.hot_seen_after_s = Math.round((Date.now() - hotStart) / 100) / 10;
  seen.hot_label = await page.$eval(`.tile[data-tenant="${hotTenant}"]`, (t) => t.getAttribute('aria-label'));
  if (!/HOT: /.test(seen.hot_label)) fail(`the hot tile does not carry its evidence: ${seen.hot_label}`);
  await page.screenshot({ path: join(shots, 'console-map-hot.png'), fullPage: false });

  // 3. a move from the page
  const from = onPage.tiles.find((t) => t.id === moveTenant)?.group;
  if (!from) fail(`no tile of ${moveTenant}`);
  await page.click(`.tile[data-tenant="${moveTenant}"]`);
  await page.waitForSelector('#tenant[open]', { timeout: 5000 }).catch(() => fail('the tenant dialog did not open'));
  await page.select('#move-group', moveTo);
  await page.click('#move-ask');
  await page.waitForSelector('#move-confirm:not([hidden])', { timeout: 5000 }).catch(() => fail('no confirmation asked before the move'));
  const question = await page.$eval('#move-question', (e) => e.textContent);
  await page.click('#move-yes');
  // the dialog answers with the job, or with the allocator's refusal
  await page.waitForFunction(() => document.getElementById('move-result').textContent.trim() !== '', { timeout: 15000 });
  const result = await page.$eval('#move-result', (e) => e.textContent);
  const job = /job (\S+)\./.exec(result)?.[1];
  if (!job) fail(`the move did not start: ${result}`);
  await page.click('#tenant-close');
  const moveStart = Date.now();
  await page.waitForFunction((id, to) => document.querySelector(`.tile[data-tenant="${id}"]`)?.closest('.group')?.dataset.group === to, { timeout: 120000 }, moveTenant, moveTo)
    .catch(() => fail(`${moveTenant}'s tile did not reach ${moveTo} within 120 s`));
  // the tile follows the alias at the switch; the job ends after its cleanup
  let done = await api(`/jobs/${job}`);
  for (let i = 0; i < 120 && !['succeeded', 'failed'].includes(done.state); i++) {
    await new Promise((r) => setTimeout(r, 500));
    done = await api(`/jobs/${job}`);
  }
  if (done.state !== 'succeeded') fail(`job ${job} is ${done.state}`);
  seen.move = { tenant: moveTenant, from, to: moveTo, job, question, tile_moved_after_s: Math.round((Date.now() - moveStart) / 100) / 10 };
  const row = await page.waitForSelector(`tr[data-job="${job}"][data-state="succeeded"]`, { timeout: 10000 }).catch(() => null);
  if (!row) fail(`job ${job} is not listed as succeeded under Moves`);

  // 4. keyboard: Tab from the top reaches every visible, enabled control
  const controls = await page.evaluate(() => {
    let n = 0;
    for (const el of document.querySelectorAll('a[href], button, select, input')) {
      const visible = el.offsetParent !== null && !el.closest('dialog:not([open])') && !el.closest('[hidden]');
      if (visible && !el.disabled) el.dataset.focusId = String(n++);
    }
    return n;
  });
  await page.evaluate(() => document.activeElement?.blur());
  const reached = new Set();
  for (let i = 0; i < controls + 10 && reached.size < controls; i++) {
    await page.keyboard.press('Tab');
    const id = await page.evaluate(() => document.activeElement?.dataset.focusId ?? null);
    if (id !== null) reached.add(id);
  }
  if (reached.size < controls) fail(`Tab reached ${reached.size} of ${controls} controls`);
  seen.controls_reached = reached.size;

  // 5. the experiments list opens a report
  const link = await page.$('#run-list a[href$="report.html"]');
  if (!link) fail('no report linked from the experiments list');
  const experiment = await page.evaluate((a) => a.textContent, link);
  await Promise.all([page.waitForNavigation({ timeout: 30000 }), link.click()]);
  const title = await page.title();
  if (!title.startsWith(experiment)) fail(`the report's title '${title}' does not name ${experiment}`);
  seen.report = { experiment, title };
  await page.screenshot({ path: join(shots, 'report.png'), fullPage: false });

  // 6. nothing went wrong on the way
  if (problems.length) fail(problems.join('; '));
  process.stdout.write(`${JSON.stringify(seen)}\n`);
} finally {
  await browser.close();
}
