// The panel kinds of the lab's dashboards, each styled once: every stat, time series, bar gauge
// and table of every dashboard comes from these factories, so a style change is one edit here.
// They return Foundation SDK builders: a dashboard can still chain any SDK method (.span(),
// .height(), .repeat(), ...). Sizes: stats 4 high, everything else 8; widths come from the layout.
//
// Queries: a PromQL string (the legend is Grafana's automatic one), a q(expr, legend), or a list
// of those (refIds A, B, ... in order). Every panel and target names the lab's datasource by uid.
import * as common from '@grafana/grafana-foundation-sdk/common';
import { FieldColorBuilder, FieldColorModeId, ThresholdsConfigBuilder, ThresholdsMode } from '@grafana/grafana-foundation-sdk/dashboard';
import { DataqueryBuilder } from '@grafana/grafana-foundation-sdk/prometheus';
import * as stats from '@grafana/grafana-foundation-sdk/stat';
import * as timeseriesPanel from '@grafana/grafana-foundation-sdk/timeseries';
import * as bargaugePanel from '@grafana/grafana-foundation-sdk/bargauge';
import * as tablePanel from '@grafana/grafana-foundation-sdk/table';
import * as dashlistPanel from '@grafana/grafana-foundation-sdk/dashboardlist';
import * as units from '@grafana/grafana-foundation-sdk/units';
import { PROMETHEUS } from './datasource.js';
import { PLAIN } from './thresholds.js';

/** One PromQL target and its legend ('__auto': Grafana names the series). */
export const q = (expr, legend = '__auto') => ({ expr, legend });

function queries(panel, list, { table = false } = {}) {
  [list].flat().forEach((item, i) => {
    const { expr, legend } = typeof item === 'string' ? q(item) : item;
    const target = new DataqueryBuilder()
      .refId(String.fromCharCode(65 + i))
      .datasource(PROMETHEUS)
      .expr(expr)
      .legendFormat(legend);
    // A table shows the latest value of each series; everything else draws the range
    if (table) target.instant().format('table');
    else target.range();
    panel.withTarget(target);
  });
  return panel.datasource(PROMETHEUS);
}

// What every panel kind shares: title, description, unit, value range, decimals
function base(panel, title, { description = '', unit = units.Short, min, max, decimals } = {}) {
  panel.title(title).description(description).unit(unit);
  if (min !== undefined) panel.min(min);
  if (max !== undefined) panel.max(max);
  if (decimals !== undefined) panel.decimals(decimals);
  return panel;
}

const thresholds = (steps) => new ThresholdsConfigBuilder().mode(ThresholdsMode.Absolute).steps(steps);
const byThresholds = () => new FieldColorBuilder().mode(FieldColorModeId.Thresholds);
const lastValue = () => new common.ReduceDataOptionsBuilder().calcs(['lastNotNull']).fields('').values(false);

/**
 * A single figure (the last value of each series), coloured by its thresholds.
 * opts: description, unit, decimals, thresholds (default PLAIN), mappings, background (colour
 * the whole panel: for states that need attention), sparkline (draw the series behind it).
 */
export function stat(title, list, opts = {}) {
  const { thresholds: steps = PLAIN, mappings, background = false, sparkline = false } = opts;
  const panel = base(new stats.PanelBuilder(), title, opts)
    .height(4)
    .thresholds(thresholds(steps))
    .colorScheme(byThresholds())
    .reduceOptions(lastValue())
    .colorMode(background ? common.BigValueColorMode.Background : common.BigValueColorMode.Value)
    .graphMode(sparkline ? common.BigValueGraphMode.Area : common.BigValueGraphMode.None)
    .textMode(common.BigValueTextMode.Auto)
    .orientation(common.VizOrientation.Auto)
    .justifyMode(common.BigValueJustifyMode.Auto)
    .wideLayout(true);
  if (mappings) panel.mappings(mappings);
  return queries(panel, list);
}

/**
 * Lines over time from 0, a shared multi-series tooltip sorted high to low.
 * opts: description, unit, max, decimals, thresholds (drawn as lines), stacked.
 */
export function timeseries(title, list, opts = {}) {
  const { thresholds: steps, stacked = false } = opts;
  const panel = base(new timeseriesPanel.PanelBuilder(), title, { min: 0, ...opts })
    .height(8)
    .drawStyle(common.GraphDrawStyle.Line)
    .lineWidth(1)
    .fillOpacity(10)
    .showPoints(common.VisibilityMode.Never)
    .spanNulls(true)
    .stacking(new common.StackingConfigBuilder().mode(stacked ? common.StackingMode.Normal : common.StackingMode.None).group('A'))
    .legend(new common.VizLegendOptionsBuilder().displayMode(common.LegendDisplayMode.List).placement(common.LegendPlacement.Bottom).showLegend(true))
    .tooltip(new common.VizTooltipOptionsBuilder().mode(common.TooltipDisplayMode.Multi).sort(common.SortOrder.Descending));
  if (steps) {
    panel.thresholds(thresholds(steps))
      .thresholdsStyle(new common.GraphThresholdsStyleConfigBuilder().mode(common.GraphThresholdsStyleMode.Line));
  }
  return queries(panel, list);
}

/** Horizontal bars, one per series (a ranking: largest shards, indices, tenants). opts: description, unit. */
export function bargauge(title, list, opts = {}) {
  const panel = base(new bargaugePanel.PanelBuilder(), title, { min: 0, ...opts })
    .height(8)
    .thresholds(thresholds(PLAIN))
    .colorScheme(byThresholds())
    .reduceOptions(lastValue())
    .orientation(common.VizOrientation.Horizontal)
    .displayMode(common.BarGaugeDisplayMode.Basic)
    .showUnfilled(true)
    .valueMode(common.BarGaugeValueMode.Color)
    .namePlacement(common.BarGaugeNamePlacement.Auto)
    .sizing(common.BarGaugeSizing.Auto);
  return queries(panel, list);
}

/**
 * The latest value of each series as rows, its labels as columns, filterable.
 * columns: { label: 'Header' } in display order; the value column is `valueTitle`.
 */
export function table(title, expr, { description = '', columns, valueTitle }) {
  const panel = new tablePanel.PanelBuilder()
    .title(title)
    .description(description)
    .height(8)
    .filterable(true)
    .showHeader(true)
    .cellHeight(common.TableCellHeight.Sm)
    .footer(new common.TableFooterOptionsBuilder().show(false))
    .withTransformation({ id: 'merge', options: {} })
    .withTransformation({
      id: 'organize',
      options: { excludeByName: { Time: true }, renameByName: { ...columns, Value: valueTitle } },
    });
  return queries(panel, q(expr), { table: true });
}

/** The lab's dashboards (by tag), with a search box. */
export function dashboardList(title, tag) {
  return new dashlistPanel.PanelBuilder()
    .title(title)
    .description('')
    .height(8)
    .showStarred(false)
    .showRecentlyViewed(false)
    .showSearch(true)
    .showHeadings(false)
    .tags([tag])
    .maxItems(10)
    .query('')
    .includeVars(false)
    .keepTime(true);
}
