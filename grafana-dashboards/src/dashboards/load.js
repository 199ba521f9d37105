// Load: the running load (Locust, traffic/), from its /metrics scraped by Prometheus as job `load`
// every 5 s while a run lasts. Requests are labelled scenario, index_group, query_type and outcome;
// durations are a histogram, so every figure here is over the last interval (no cumulative stats).
// There is no tenant label (thousands of tenants): per-tenant rates come from Elasticsearch's
// search stats groups, through the allocator.
import * as units from '@grafana/grafana-foundation-sdk/units';
import * as annotations from '../annotations.js';
import { dashboard, line, row } from '../dashboard.js';
import { q, stat, table, timeseries } from '../panels.js';
import { LOAD_CHOSEN, LOAD_DURATION, loadQuantile, loadRequestRate } from '../queries.js';
import * as shared from '../shared-panels.js';
import { ANY_IS_BAD, CHECKS_PASSED, FAILURE_RATE, LATE_ARRIVALS } from '../thresholds.js';
import * as variables from '../variables.js';

const FAILED = `outcome="failed", ${LOAD_CHOSEN}`;
const IN_SCENARIOS = 'scenario=~"$scenario"';
const rate = (metric, matchers = IN_SCENARIOS) => `rate(${metric}{${matchers}}[$__rate_interval])`;
const ARRIVALS = 'tenantlab_load_arrivals_total';
const LATE = 'tenantlab_load_late_arrivals_total';
const CHECKS = 'tenantlab_load_checks_total';

// Counters a healthy run may never create (no late arrival, no failure): 0, not "no data", for
// every scenario (or check) that has traffic
const orZeroBy = (by, expr, traffic) => `${expr} or on (${by}) 0 * ${traffic}`;

export default () => dashboard({
  uid: 'tenantlab-load',
  title: 'Load',
  description: "The running load (Locust, traffic/), from its /metrics (tenantlab_load_*) scraped by Prometheus as job `load` every 5 s while a run lasts: requests/s and late arrivals, latency percentiles from its histogram by scenario and index group, failures, checks, requests in flight. Durations count from each request's intended start (open model), so a late arrival's wait is in them. No tenant label: per-tenant rates come from Elasticsearch's search stats groups (the allocator's tenantlab_tenant_search_rate).",
  variables: [variables.scenario(), variables.group('load')],
  annotations: [annotations.moves(), annotations.hotTenants()],
  from: 'now-15m',
  refresh: '5s',
}, [
  row('Now'),
  ...[
    stat('Requests/s', loadRequestRate(), { unit: units.RequestsPerSecond, decimals: 1, sparkline: true }),
    stat('Late arrivals', `(sum(${rate(LATE)}) or vector(0)) / sum(${rate(ARRIVALS)})`, {
      description: 'Share of the open-model arrivals over the last interval that started later than LATE_MS after their intended time: the load could not keep its rate (more users or workers, or a lower RATE). Their wait is in the durations. Of the chosen scenarios (the group filter does not apply: arrivals carry no group).',
      unit: units.PercentUnit, thresholds: LATE_ARRIVALS, background: true,
    }),
    stat('Failed requests', `(${loadRequestRate('', FAILED)} or vector(0)) / ${loadRequestRate()}`, {
      description: 'Share of requests with outcome failed (an unexpected status, or no answer) over the last interval (threshold: 1%).',
      unit: units.PercentUnit, thresholds: FAILURE_RATE, background: true,
    }),
    stat('Checks passed', `(sum(rate(${CHECKS}{result="pass"}[$__rate_interval])) or vector(0)) / sum(rate(${CHECKS}[$__rate_interval]))`, {
      description: 'Share of the checks (status, hits, aggregations, ...) that passed over the last interval, every scenario (checks carry no scenario; threshold: 99%).',
      unit: units.PercentUnit, thresholds: CHECKS_PASSED, background: true,
    }),
    stat('Cross-tenant hits', `sum(tenantlab_load_cross_tenant_hits_total{${IN_SCENARIOS}}) or vector(0)`, {
      description: "Hits from another tenant's catalogue in a tenant's search, since the run started: must stay 0 (isolation through the tenant's alias and filter).",
      thresholds: ANY_IS_BAD, background: true,
    }),
    stat('Worst p95', `max(${loadQuantile(0.95, 'scenario, index_group')})`, {
      description: 'Highest p95 of any scenario and group over the last interval (from the histogram: interpolated inside its bucket).',
      unit: units.Seconds,
    }),
  ].map((p) => p.span(4).height(5)),

  row('Throughput and latency'),
  ...line(
    timeseries('Requests/s by scenario and group', q(loadRequestRate('scenario, index_group'), '{{scenario}} {{index_group}}'), {
      description: 'index_group none: requests to no tenant (setup, profiles).',
      unit: units.RequestsPerSecond,
    }),
    timeseries('Arrivals and late arrivals/s by scenario', [
      q(`sum by (scenario) (${rate(ARRIVALS)})`, '{{scenario}} arrivals'),
      q(orZeroBy('scenario', `sum by (scenario) (${rate(LATE)})`, `sum by (scenario) (${rate(ARRIVALS)})`), '{{scenario}} late'),
    ], {
      description: "Open model: the arrivals the schedule asked for (RATE), and those that started later than LATE_MS after their intended time. Late arrivals mean the load, not Elasticsearch, set the pace: their wait counts in the durations (from the intended start), so the latency panels stay honest, but the rate asked was not the rate sent. Closed-model scenarios (resubmit) have no arrivals.",
      unit: units.OpsPerSecond,
    }),
  ).map((p) => p.height(9)),
  ...line(
    timeseries('Request duration by scenario and group', [
      q(loadQuantile(0.95, 'scenario, index_group'), '{{scenario}} {{index_group}} p95'),
      q(loadQuantile(0.99, 'scenario, index_group'), '{{scenario}} {{index_group}} p99'),
      q(`sum by (scenario, index_group) (${rate(`${LOAD_DURATION}_sum`, LOAD_CHOSEN)}) / sum by (scenario, index_group) (${rate(`${LOAD_DURATION}_count`, LOAD_CHOSEN)})`,
        '{{scenario}} {{index_group}} mean'),
    ], {
      description: 'p95 and p99 from the histogram over the last interval (interpolated inside a bucket: .0025 ... 30 s), and the mean. Every request, the bot and the writers included.',
      unit: units.Seconds,
    }),
    shared.loadGroupP95("Shoppers' p95 by group (the neighbours' view)"),
  ).map((p) => p.height(9)),

  row('Failures and checks'),
  ...line(
    timeseries('Failed requests/s by scenario and query type',
      q(orZeroBy('scenario', loadRequestRate('scenario, query_type', FAILED), loadRequestRate('scenario')), '{{scenario}} {{query_type}}'),
      { description: 'Requests with outcome failed; 0 for a scenario without any.', unit: units.RequestsPerSecond }),
    timeseries('Failed request and check shares', [
      q(`(${orZeroBy('scenario', loadRequestRate('scenario', FAILED), loadRequestRate('scenario'))}) / ${loadRequestRate('scenario')}`, '{{scenario}} failed requests'),
      q(`(${orZeroBy('check', `sum by (check) (rate(${CHECKS}{result="fail"}[$__rate_interval]))`, `sum by (check) (rate(${CHECKS}[$__rate_interval]))`)}) / sum by (check) (rate(${CHECKS}[$__rate_interval]))`,
        'check {{check}} failed'),
    ], { description: 'Over the last interval: failed requests per scenario, failed checks per check.', unit: units.PercentUnit, thresholds: FAILURE_RATE }),
  ),

  row('The load generator and what Elasticsearch saw'),
  ...line(
    shared.loadInFlight('Requests in flight by scenario', { byScenario: true }),
    timeseries('Documents/s by scenario and result',
      q(`sum by (scenario, result) (${rate('tenantlab_load_docs_total')})`, '{{scenario}} {{result}}'), {
        description: 'The writers (writes, resubmit, ingest): documents indexed, rejected (429), failed, or superseded (a newer version was already there).',
      }),
    timeseries('Search rate per tenant (top 10)',
      q('topk(10, max by (tenant, index_group) (tenantlab_tenant_search_rate{index_group=~"$group"}))', '{{tenant}} ({{index_group}})'), {
        description: "The load has no tenant label (thousands of tenants would be thousands of series): per-tenant rates come from Elasticsearch's search stats groups (each search carries stats tenant-<id>), which the allocator exports. Every tenant's searches, not only the load's; needs the allocator.",
        unit: units.RequestsPerSecond,
      }),
    // $group here is the load's label: the server-side figure shows every group
    shared.groupQueryTimeOverTime('Elasticsearch mean shard query time by group', {
      all: true,
      description: 'Server side, for comparison (needs the allocator for the node -> group map).',
    }),
  ),
  table('Running', 'max by (run_id, scenario, engine, version, instance) (tenantlab_load_run_info)', {
    description: 'The run(s) Prometheus scrapes now: one row per load process (Kubernetes: per worker).',
    columns: { run_id: 'Run', scenario: 'Scenario', engine: 'Engine', version: 'Version', instance: 'Metrics endpoint' },
    valueTitle: 'Up',
  }).span(24).height(5),
]);
