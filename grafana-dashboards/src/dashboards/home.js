// Home: the lab at a glance. Grafana opens here (GF_DASHBOARDS_DEFAULT_HOME_DASHBOARD_PATH).
// Most panels are the other dashboards' own (shared-panels.js).
import * as units from '@grafana/grafana-foundation-sdk/units';
import { TAG, dashboard, line, row } from '../dashboard.js';
import { dashboardList, q, stat, timeseries } from '../panels.js';
import { heapRatio, loadRequestRate } from '../queries.js';
import * as shared from '../shared-panels.js';
import { HEAP } from '../thresholds.js';
import * as variables from '../variables.js';

export default () => dashboard({
  uid: 'tenantlab-home',
  title: 'Home',
  description: 'The lab at a glance: the cluster, the two index groups side by side, the tenants and the running load test. Grafana opens here (GF_DASHBOARDS_DEFAULT_HOME_DASHBOARD_PATH).',
  variables: [variables.group()],
}, [
  row('Cluster'),
  shared.clusterStatus().span(4),
  shared.clusterNodes().span(4),
  shared.unassignedShards().span(4),
  stat('Max heap used', `max(${heapRatio()})`, { unit: units.PercentUnit, thresholds: HEAP }).span(4),
  shared.firingAlerts().span(4),
  // two stat lines high, beside both
  dashboardList('Dashboards', TAG).span(4),
  shared.groupTenants().span(5),
  shared.groupSearchRate().span(5),
  shared.groupQueryTime().span(5),
  shared.groupIndexingRate().span(5),

  row('Index groups'),
  ...line(
    shared.groupSearchRateOverTime(),
    shared.groupQueryTimeOverTime('Mean shard query time by group'),
    shared.groupRejections(),
  ),

  row('Load (Locust)'),
  ...line(
    timeseries('Load requests/s by scenario', q(loadRequestRate('scenario', ''), '{{scenario}}'), {
      description: 'Every request of the running load (make load), from its /metrics; empty between runs.',
      unit: units.RequestsPerSecond,
    }),
    shared.loadGroupP95("Shoppers' p95 by group"),
    shared.loadInFlight('Load requests in flight'),
  ),
]);
