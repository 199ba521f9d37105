// Load: the running k6 test, from k6's remote-write output into Prometheus. Requests are tagged
// scenario, tenant and index_group by k6-scripts/; trend stats are cumulative since the run started.
import * as units from '@grafana/grafana-foundation-sdk/units';
import * as annotations from '../annotations.js';
import { dashboard, line, row } from '../dashboard.js';
import { q, stat, timeseries } from '../panels.js';
import { K6_CHOSEN, K6_VUS } from '../queries.js';
import * as shared from '../shared-panels.js';
import { CHECKS_PASSED, FAILURE_RATE } from '../thresholds.js';
import * as variables from '../variables.js';

const requestRate = (matchers = '') => `rate(k6_http_reqs_total{${matchers}${K6_CHOSEN}}[$__rate_interval])`;
const FAILED = 'expected_response="false", ';

export default () => dashboard({
  uid: 'tenantlab-load',
  title: 'Load',
  description: "The running k6 test, from k6's remote-write output (experimental-prometheus-rw) into Prometheus: requests/s, latency by scenario and index group, errors, VUs. Requests are tagged scenario, tenant and index_group by k6-scripts/. Trend stats (K6_PROMETHEUS_RW_TREND_STATS, e.g. p(95),p(99),avg) are cumulative since the run started.",
  variables: [variables.scenario(), variables.group('k6')],
  annotations: [annotations.moves(), annotations.hotTenants()],
  from: 'now-15m',
  refresh: '5s',
}, [
  row('Now'),
  ...[
    stat('Requests/s', `sum(${requestRate()})`, { unit: units.RequestsPerSecond, decimals: 1, sparkline: true }).span(5),
    stat('Failed requests', `(sum(${requestRate(FAILED)}) or vector(0)) / sum(${requestRate()})`, {
      description: 'Share of requests with an unexpected status over the last interval (threshold: 1%).',
      unit: units.PercentUnit, thresholds: FAILURE_RATE, background: true,
    }).span(5),
    stat('Checks passed', 'avg(k6_checks_rate{scenario=~"$scenario"})', {
      description: 'Mean pass rate of the checks since the run started (threshold: 99%).',
      unit: units.PercentUnit, thresholds: CHECKS_PASSED, background: true,
    }).span(5),
    stat('VUs', K6_VUS).span(4),
    stat('Worst p95', `max({__name__="k6_http_req_duration_p95", ${K6_CHOSEN}})`, {
      description: 'Highest p95 of any scenario/group series, since the run started.',
      unit: units.Seconds,
    }).span(5),
  ].map((p) => p.height(5)),

  row('Throughput and latency'),
  ...line(
    timeseries('Requests/s by scenario and group',
      q(`sum by (scenario, index_group) (${requestRate()})`, '{{scenario}} {{index_group}}'), { unit: units.RequestsPerSecond }),
    timeseries('Request duration by scenario and group',
      q(`label_replace(max by (__name__, scenario, index_group) ({__name__=~"k6_http_req_duration_(p95|p99|avg)", ${K6_CHOSEN}}), "stat", "$1", "__name__", "k6_http_req_duration_(.+)")`,
        '{{scenario}} {{index_group}} {{stat}}'), {
        description: 'p95/p99/avg as k6 computes them (cumulative since the run started); which stats exist depends on K6_PROMETHEUS_RW_TREND_STATS.',
        unit: units.Seconds,
      }),
  ).map((p) => p.height(9)),
  ...line(
    timeseries('Failed requests/s by scenario and status',
      q(`sum by (scenario, status) (${requestRate(FAILED)}) or label_replace(vector(0), "status", "none", "", "")`, '{{scenario}} {{status}}'),
      { unit: units.RequestsPerSecond }),
    timeseries('Failed request and check rates', [
      q(`max by (scenario) (k6_http_req_failed_rate{${K6_CHOSEN}})`, '{{scenario}} failed requests'),
      q('1 - avg by (scenario) (k6_checks_rate{scenario=~"$scenario"})', '{{scenario}} failed checks'),
    ], { description: 'Since the run started.', unit: units.PercentUnit, thresholds: FAILURE_RATE }),
  ),

  row('Virtual users and what Elasticsearch saw'),
  ...line(
    shared.k6Vus('Virtual users', { withMax: true }),
    timeseries('Iterations/s', q('sum by (scenario) (rate(k6_iterations_total{scenario=~"$scenario"}[$__rate_interval]))', '{{scenario}}'),
      { unit: units.OpsPerSecond }),
    // $group here is k6's tag: the server-side figure shows every group
    shared.groupQueryTimeOverTime('Elasticsearch mean shard query time by group', {
      all: true,
      description: 'Server side, for comparison (needs the allocator for the node -> group map).',
    }),
  ),
]);
