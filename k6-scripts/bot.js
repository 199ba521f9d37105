// bot: a search-bot burst (the GoogleBot spike that used to take down neighbours): an
// arrival-rate ramp up to BOT_RATE pages/s crawling every category page of one tenant (TENANT=,
// default: the tenant with the most documents), page after page, name order, facets rendered.
//
//   make load-bot TENANT=acme BOT_RATE=50 DURATION=1m

// ---- Thresholds (besides failed < 1%, checks > 99%, no cross-tenant hit: lib/options.js) ------
// p95 of the bot's category pages. Override: P95_BOT_MS=500
import { env, envNumber, envDuration, seconds, DURATION, TENANT, PAGE_SIZE } from './lib/config.js';

export const P95_BOT_MS = envNumber('P95_BOT_MS', 1500);
// Peak pages/s of the burst, and the deepest page crawled per category
export const BOT_RATE = envNumber('BOT_RATE', 30, { min: 1 });
export const BOT_MAX_PAGES = envNumber('BOT_MAX_PAGES', 50, { min: 1, integer: true });

import { fail } from 'k6';
import exec from 'k6/execution';
import { options as baseOptions, vuPool } from './lib/options.js';
import { loadTenants } from './lib/tenants.js';
import { categoryPage } from './lib/queries.js';
import { search } from './lib/search.js';

export { handleSummary } from './lib/summary.js';

const BOT_UA = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';

/** The burst: ramp up over 20% of the time, hold 60%, ramp down 20%. */
export function botScenario(startTime = '0s', duration = envDuration('BOT_DURATION', DURATION)) {
  const s = Math.max(3, seconds(duration));
  const up = Math.max(1, Math.round(s * 0.2));
  const hold = Math.max(1, s - 2 * up);
  return {
    executor: 'ramping-arrival-rate',
    startRate: 1,
    timeUnit: '1s',
    ...vuPool(BOT_RATE),
    stages: [{ target: BOT_RATE, duration: `${up}s` }, { target: BOT_RATE, duration: `${hold}s` }, { target: 0, duration: `${up}s` }],
    startTime,
    gracefulStop: '5s',
    exec: 'bot',
  };
}

export const options = baseOptions({ bot: botScenario() }, { bot: P95_BOT_MS });

/** The crawl: [category, page] for every page of every category of the bot's tenant. */
export function botPlan(data) {
  const wanted = env('BOT_TENANT', '') || TENANT;
  const t = wanted ? data.tenants.find((x) => x.id === wanted) : [...data.tenants].sort((a, b) => b.documents - a.documents)[0];
  if (!t) fail(`bot: tenant '${wanted}' has no documents to crawl`);
  const pages = [];
  for (const c of t.categories) {
    const n = Math.min(BOT_MAX_PAGES, Math.ceil(c.count / PAGE_SIZE));
    for (let p = 0; p < n; p += 1) pages.push([c.key, p]);
  }
  if (!pages.length) fail(`bot: tenant ${t.id} has no categories to crawl`);
  console.log(`bot: crawling ${t.id} (${t.group}): ${t.categories.length} categories, ${pages.length} pages, up to ${BOT_RATE}/s`);
  return { tenant: t, pages };
}

export function setup() {
  const data = loadTenants();
  return { ...data, bot: botPlan(data) };
}

export function bot(data) {
  const { tenant, pages } = data.bot;
  const [category, page] = pages[exec.scenario.iterationInTest % pages.length];
  search(tenant, categoryPage(tenant, { category, page, sort: 'name', filters: false }), 'bot_crawl', { aggs: true }, {}, { 'User-Agent': BOT_UA });
}

export default bot;
