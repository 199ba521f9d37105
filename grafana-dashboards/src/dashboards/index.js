// Every dashboard, by the file Grafana provisions it from (grafana-dashboards/dashboards/).
import clusterOverview from './cluster-overview.js';
import home from './home.js';
import indexGroups from './index-groups.js';
import ingest from './ingest.js';
import load from './load.js';
import tenants from './tenants.js';

export const DASHBOARDS = {
  'home.json': home,
  'cluster-overview.json': clusterOverview,
  'index-groups.json': indexGroups,
  'tenants.json': tenants,
  'load.json': load,
  'ingest.json': ingest,
};
