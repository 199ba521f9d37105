// mixed (the default of `make load`): storefront shoppers and catalog writes together; BOT=1 adds
// a search-bot burst on one tenant (BOT_TENANT=, else TENANT=, else the largest) from 40% to 70%
// of the run, so its effect on the other tenants shows (Load dashboard, per index group).
//
//   make load DURATION=2m RATE=20 BOT=1

// ---- Thresholds (besides failed < 1%, checks > 99%, no cross-tenant hit: lib/options.js) ------
// Each scenario keeps its own p95: P95_STOREFRONT_MS, P95_WRITES_MS, P95_BOT_MS (their files).
import { env, seconds, DURATION } from './lib/config.js';
import { storefront, storefrontScenario, P95_STOREFRONT_MS } from './storefront.js';
import { writes, resubmit, writesScenarios, resubmitPlan, P95_WRITES_MS } from './writes.js';
import { bot, botScenario, botPlan, P95_BOT_MS } from './bot.js';
import { options as baseOptions } from './lib/options.js';
import { loadTenants } from './lib/tenants.js';

export { handleSummary } from './lib/summary.js';
export { storefront, writes, resubmit, bot };

const BOT = ['1', 'true', 'yes'].includes(String(env('BOT', '0')).toLowerCase());
const total = seconds(DURATION);

const scenarios = { storefront: storefrontScenario(), ...writesScenarios() };
if (String(env('RESUBMIT', '')) === 'none') delete scenarios.resubmit;
if (BOT) scenarios.bot = botScenario(`${Math.floor(total * 0.4)}s`, `${Math.max(3, Math.floor(total * 0.3))}s`);

export const options = baseOptions(scenarios, {
  storefront: P95_STOREFRONT_MS, writes: P95_WRITES_MS, resubmit: P95_WRITES_MS, bot: P95_BOT_MS,
});

export function setup() {
  const data = loadTenants();
  const out = { ...data, resubmit: scenarios.resubmit ? resubmitPlan(data) : [] };
  if (BOT) out.bot = botPlan(data);
  return out;
}

export default storefront;
