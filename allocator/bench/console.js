// What one open console costs the allocator it watches, and how long its page takes to draw the
// map (issue 29: "must not disturb the measurements it shows: state the share"). One real
// allocator on the lab's cluster holding TENANTS tenants (default 1,000), observing every second,
// with shoppers searching; its process's CPU over spans alternated without and with the console
// open in headless Chromium (Debian's, puppeteer-core; the page refreshes every 3 s as a person's
// would), A B A B, the same process; and the page's time from navigation to its first tenant
// tile, median of three loads. Ratios are B against A of the same run.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { AllocatorProcess, cleanup, sleep, testPolicyFile } from '../test/integration/harness.js';
import { median } from '@tenantlab/contract/bench-result';
import { cpuSeconds, placeTenants, shoppers } from './tenants.js';

const SHOPPERS_PER_S = 20;

function browserLauncher() {
  if (!process.env.PUPPETEER_DIR) throw new Error('PUPPETEER_DIR is not set: run it as make bench-console (scripts/install/browser.sh installs Chromium and puppeteer-core)');
  const require = createRequire(join(process.env.PUPPETEER_DIR, 'node_modules', 'x.js'));
  const puppeteer = require('puppeteer-core');
  return () => puppeteer.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run'] });
}


export async function benchConsole({ prefix, tenants = 1000, seconds = 30 }) {
  const launch = browserLauncher();
  const a = await AllocatorProcess.start({ prefix, policyFile: testPolicyFile(), env: { ALLOCATOR_STATS_INTERVAL_MS: '1000' } });
  const browser = await launch();
  let shop = null;
  try {
    const ids = await placeTenants(a, prefix, tenants);
    shop = shoppers(ids, SHOPPERS_PER_S);
    await sleep(3000);
    const url = `${a.url}/`;
    // the page's load: navigation to the first tile, three times
    const loads = [];
    for (let i = 0; i < 3; i++) {
      const page = await browser.newPage();
      const t0 = performance.now();
      await page.goto(url, { waitUntil: 'domcontentloaded' });
      await page.waitForSelector('.tile', { timeout: 60000 });
      loads.push(performance.now() - t0);
      await page.close();
    }
    const state = await a.request('GET', '/console/state');
    const stateBytes = Buffer.byteLength(JSON.stringify(state.body));
    // the allocator's CPU, without and with one console open
    const spans = { without: [], with: [] };
    for (const kind of ['without', 'with', 'without', 'with']) {
      const page = kind === 'with' ? await browser.newPage() : null;
      if (page) {
        await page.goto(url, { waitUntil: 'domcontentloaded' });
        await page.waitForSelector('.tile', { timeout: 60000 });
      }
      const c0 = cpuSeconds(a.proc.pid);
      const t0 = performance.now();
      await sleep(seconds * 1000);
      spans[kind].push(((cpuSeconds(a.proc.pid) - c0) / ((performance.now() - t0) / 1000)) * 100);
      await page?.close();
    }
    const round = (x, d = 1) => Math.round(x * 10 ** d) / 10 ** d;
    const without = median(spans.without);
    const withConsole = median(spans.with);
    return {
      tenants,
      page_load_ms: Math.round(median(loads)),
      page_loads_ms: loads.map((x) => Math.round(x)),
      state_bytes: stateBytes,
      cpu_percent_without: spans.without.map((x) => round(x)),
      cpu_percent_with: spans.with.map((x) => round(x)),
      cpu_ratio: without > 0 ? round(withConsole / without, 2) : null,
      console_cpu_percent_of_a_core: round(withConsole - without),
    };
  } finally {
    await shop?.stop();
    await browser.close();
    await a.stop();
    await cleanup(prefix);
  }
}
