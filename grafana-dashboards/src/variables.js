// The dashboards' template variables, each defined once. All are multi-value with an All option
// (so panels use them only in =~ matchers), read their values from Prometheus with
// label_values(), and refresh when the time range changes.
import { QueryVariableBuilder, VariableHide, VariableRefresh, VariableSort } from '@grafana/grafana-foundation-sdk/dashboard';
import { PROMETHEUS } from './datasource.js';

function labelValues(name, label, query, { allValue } = {}) {
  const variable = new QueryVariableBuilder(name)
    .label(label)
    .description('')
    .datasource(PROMETHEUS)
    // The object Grafana's Prometheus variable editor writes (qryType 1: label values)
    .query({ qryType: 1, query, refId: 'PrometheusVariableQueryEditor-VariableQuery' })
    .refresh(VariableRefresh.OnTimeRangeChanged)
    .sort(VariableSort.AlphabeticalAsc)
    .regex('')
    .multi(true)
    .includeAll(true)
    .current({ selected: true, text: ['All'], value: ['$__all'] })
    .options([])
    .hide(VariableHide.DontHide);
  if (allValue) variable.allValue(allValue);
  // `definition` (the query as the editor shows it) has no builder method in this SDK version;
  // Grafana writes it, and the static tests read it.
  return { build: () => ({ ...variable.build(), definition: query }) };
}

// Where each dashboard takes its group names from: the allocator's node -> group map (every group
// with nodes), the allocator's tenant counts (every group with tenants), or the load's request
// labels (every group the running load sends to, and `none`: requests to no tenant).
const GROUPS_FROM = {
  nodes: 'tenantlab:node_index_group:info',
  tenants: 'tenantlab_tenants',
  load: 'tenantlab_load_request_duration_seconds_count',
};

// All on a load label is `.*`, not the list of values seen: it also matches series without the
// label and values that appeared after the variable was last refreshed (a run just started).
const LOAD_ALL = '.*';

/** $group: index groups, from `from` (a key of GROUPS_FROM). */
export const group = (from = 'nodes') =>
  labelValues('group', 'Index group', `label_values(${GROUPS_FROM[from]}, index_group)`,
    { allValue: from === 'load' ? LOAD_ALL : undefined });

/** $node: Elasticsearch nodes (every node, or only the data nodes). */
export const node = ({ dataOnly = false } = {}) => dataOnly
  ? labelValues('node', 'Data node', 'label_values(elasticsearch_indices_indexing_index_total{es_data_node="true"}, name)')
  : labelValues('node', 'Node', 'label_values(elasticsearch_jvm_uptime_seconds, name)');

/** $tenant: tenants the allocator reports documents for. */
export const tenant = () => labelValues('tenant', 'Tenant', 'label_values(tenantlab_tenant_documents, tenant)');

/** $scenario: the scenarios of the running load (storefront, bot, writes, ...; experiments: warmup, measure, burst). */
export const scenario = () =>
  labelValues('scenario', 'Scenario', 'label_values(tenantlab_load_request_duration_seconds_count, scenario)', { allValue: LOAD_ALL });
