// The options every scenario file shares: thresholds common to all (each file sets its own p95
// at its top), the tags sent to Prometheus, the summary's statistics.
import { envNumber } from './config.js';

// Failed requests below 1%, checks above 99%, and not a single hit of another tenant.
export const MAX_FAILED = envNumber('MAX_FAILED', 0.01);
export const MIN_CHECKS = envNumber('MIN_CHECKS', 0.99);

/** options(scenarios, {scenarioName: p95Ms}) */
export function options(scenarios, p95ByScenario) {
  const thresholds = {
    http_req_failed: [`rate<${MAX_FAILED}`],
    checks: [`rate>${MIN_CHECKS}`],
    cross_tenant_hits: ['count==0'],
  };
  for (const [name, p95] of Object.entries(p95ByScenario)) {
    if (scenarios[name]) thresholds[`http_req_duration{scenario:${name}}`] = [`p(95)<${p95}`];
  }
  return {
    scenarios,
    thresholds,
    // No `url` (one per tenant alias): the `name` tag (the query type) names requests instead
    systemTags: ['status', 'method', 'name', 'group', 'check', 'error', 'error_code', 'scenario', 'expected_response'],
    summaryTrendStats: ['avg', 'min', 'med', 'max', 'p(95)', 'p(99)'],
    setupTimeout: '180s',
    noConnectionReuse: false,
    discardResponseBodies: false,
  };
}

/** An arrival-rate scenario's VU pool for RATE iterations/s of requests that take ~latency. */
export function vuPool(rate) {
  return { preAllocatedVUs: Math.min(100, Math.max(2, Math.ceil(rate / 2))), maxVUs: Math.min(300, Math.max(10, Math.ceil(rate * 2))) };
}
