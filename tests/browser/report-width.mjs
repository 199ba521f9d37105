// report-width.mjs WIDTH FILE...: opens each experiment report (report.html, self-contained) in
// headless Chromium (Debian's, driven by puppeteer-core) at WIDTH x 900 CSS pixels and prints
// what a reader would meet, one JSON line per file: { file, page_width, window_width, tables,
// wide_tables, wide_scroll_in_box }: the page's own width against the window's, how many tables
// there are, how many are wider than their box, and whether each of those scrolls inside it.
// Exit 1 with one line when the browser cannot open a file.
//   node tests/browser/report-width.mjs 900 experiments/results/*/report.html   (CHROMIUM=, PUPPETEER_DIR=)
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const [width, ...files] = process.argv.slice(2);
const require = createRequire(join(process.env.PUPPETEER_DIR, 'node_modules', 'x.js'));
const puppeteer = require('puppeteer-core');

const browser = await puppeteer.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  headless: true,
  // root in CI: no user namespace sandbox; no GPU, no first-run work; a report needs no network
  args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run'],
});
try {
  const page = await browser.newPage();
  await page.setViewport({ width: Number(width), height: 900 });
  for (const file of files) {
    await page.goto(pathToFileURL(resolve(file)).href, { waitUntil: 'load', timeout: 30000 }).catch((err) => {
      process.stderr.write(`browser: cannot open ${file}: ${err.message}\n`);
      process.exit(1);
    });
    const seen = await page.evaluate(() => {
      const tables = [...document.querySelectorAll('table')];
      const wide = tables.filter((t) => t.scrollWidth > t.parentElement.clientWidth + 1);
      const scrolls = (t) => getComputedStyle(t.parentElement).overflowX === 'auto' && t.parentElement.scrollWidth > t.parentElement.clientWidth;
      return { page_width: document.documentElement.scrollWidth, window_width: window.innerWidth, tables: tables.length, wide_tables: wide.length, wide_scroll_in_box: wide.every(scrolls) };
    });
    process.stdout.write(`${JSON.stringify({ file, ...seen })}\n`);
  }
} finally {
  await browser.close();
}
