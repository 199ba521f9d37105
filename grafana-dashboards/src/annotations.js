// Annotations from the allocator's metrics, drawn on every dashboard that shows what they
// explain: tenant moves (one region per move, from queued to done, with its trigger: api,
// rebalance or auto) and hot tenants (a region while the allocator flags one). Grafana draws a
// region for each stretch of time a Prometheus series exists, which is what these gauges do.
import { PROMETHEUS } from './datasource.js';

const prometheus = ({ name, expr, title, text, tags, color }) => ({
  name,
  datasource: PROMETHEUS,
  enable: true,
  hide: false,
  iconColor: color,
  expr,
  step: '10s',
  titleFormat: title,
  textFormat: text,
  tagKeys: tags,
  useValueForTime: false,
});

export const moves = () =>
  prometheus({
    name: 'Tenant moves',
    expr: 'max by (tenant, from_group, to_group, trigger) (tenantlab_move_active)',
    title: 'move {{tenant}}',
    text: '{{from_group}} -> {{to_group}} ({{trigger}})',
    tags: 'trigger',
    color: 'blue',
  });

export const hotTenants = () =>
  prometheus({
    name: 'Hot tenants',
    expr: 'max by (tenant, index_group) (tenantlab_tenant_hot)',
    title: 'hot {{tenant}}',
    text: "{{tenant}} takes over the policy's share of {{index_group}}'s search time while {{index_group}} misses its objective",
    tags: 'index_group',
    color: 'red',
  });
