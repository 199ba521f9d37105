// What every dashboard of the lab shares (the tenantlab tag and link bar, read-only, shared
// crosshair, time range, refresh) and its layout: a dashboard is a list of rows and panels in
// reading order; each panel is placed left to right at the highest free spot under the previous
// ones (like Grafana's own gravity), a row starts below everything above it, and panel ids
// follow the reading order.
import { DashboardBuilder, DashboardCursorSync, DashboardLinkBuilder, DashboardLinkType, RowBuilder } from '@grafana/grafana-foundation-sdk/dashboard';

/** The tag of every dashboard: it builds the link bar and the Home dashboard's list. */
export const TAG = 'tenantlab';

const WIDTH = 24;

/** A row (never collapsed: every panel shows). */
export const row = (title) => new RowBuilder(title).collapsed(false);

/** Panels sharing one line equally (24 columns / n). */
export const line = (...panels) => panels.map((p) => p.span(WIDTH / panels.length));

// Places every item: sets gridPos and id on each builder, in order.
function place(items) {
  const floor = new Array(WIDTH).fill(0); // per column: the first free y
  let x = 0;
  items.forEach((item, i) => {
    item.id(i + 1);
    if (item instanceof RowBuilder) {
      const y = Math.max(...floor);
      item.gridPos({ x: 0, y, w: WIDTH, h: 1 });
      floor.fill(y + 1);
      x = 0;
      return;
    }
    const { w, h } = item.build().gridPos;
    if (x + w > WIDTH) x = 0;
    const y = Math.max(...floor.slice(x, x + w));
    item.gridPos({ x, y, w, h });
    floor.fill(y + h, x, x + w);
    x += w;
  });
}

/**
 * A provisioned dashboard. spec: uid, title (shown as "tenantlab / <title>"), description,
 * variables (variables.js), and optionally from (time range start), refresh and annotations
 * (annotations.js). items: rows and panels in reading order. Returns the dashboard's JSON model.
 */
export function dashboard({ uid, title, description, variables, from = 'now-30m', refresh = '10s', annotations = [] }, items) {
  const builder = new DashboardBuilder(`${TAG} / ${title}`)
    .uid(uid)
    .description(description)
    .tags([TAG])
    .readonly()
    .tooltip(DashboardCursorSync.Crosshair)
    .time({ from, to: 'now' })
    .timezone('browser')
    .refresh(refresh)
    .annotations([])
    .links([new DashboardLinkBuilder(TAG)
      .type(DashboardLinkType.Dashboards)
      .tags([TAG])
      .asDropdown(false)
      .includeVars(false)
      .keepTime(true)
      .icon('external link')
      .targetBlank(false)]);
  variables.forEach((v) => builder.withVariable(v));
  place(items);
  items.forEach((item) => (item instanceof RowBuilder ? builder.withRow(item) : builder.withPanel(item)));
  const model = builder.build();
  // Prometheus annotation fields (titleFormat, tagKeys...) have no builder methods: plain objects.
  model.annotations = { list: [...(model.annotations?.list ?? []), ...annotations] };
  return model;
}
