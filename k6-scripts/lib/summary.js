// handleSummary: a compact verdict in the terminal (thresholds, checks, requests and latency per
// scenario) and the whole k6 summary as JSON in RESULTS_DIR/summary.json (run.sh makes the
// folder: $LAB_DIR/results/<run-id>/).
import { RESULTS_DIR, RESULTS_DIR_SHOWN, RUN_ID } from './config.js';

const ms = (v) => (v === undefined ? '-' : v >= 1000 ? `${(v / 1000).toFixed(2)}s` : `${v.toFixed(1)}ms`);
const pct = (v) => (v === undefined ? '-' : `${(v * 100).toFixed(2)}%`);

function allChecks(group, out = []) {
  (group.checks || []).forEach((c) => out.push(c));
  (group.groups || []).forEach((g) => allChecks(g, out));
  return out;
}

export function textSummary(data) {
  const m = data.metrics;
  const lines = [];
  const secs = (data.state.testRunDurationMs / 1000).toFixed(1);
  lines.push('', `tenantlab load${RUN_ID ? ` ${RUN_ID}` : ''}: ${secs}s`);
  const reqs = m.http_reqs ? m.http_reqs.values : { count: 0, rate: 0 };
  const iters = m.iterations ? m.iterations.values.count : 0;
  lines.push(`  requests      ${reqs.count} (${reqs.rate.toFixed(1)}/s), iterations ${iters}` +
    (m.dropped_iterations ? `, dropped ${m.dropped_iterations.values.count} (the generator or the lab could not keep up)` : ''));
  if (m.http_req_failed) lines.push(`  failed        ${pct(m.http_req_failed.values.rate)} (${m.http_req_failed.values.passes} of ${reqs.count})`);
  if (m.http_req_duration) {
    const d = m.http_req_duration.values;
    lines.push(`  latency       avg ${ms(d.avg)}  p95 ${ms(d['p(95)'])}  p99 ${ms(d['p(99)'])}  max ${ms(d.max)}`);
  }
  Object.keys(m).filter((k) => k.startsWith('http_req_duration{')).sort().forEach((k) => {
    const d = m[k].values;
    lines.push(`    ${k.slice('http_req_duration'.length).padEnd(30)} avg ${ms(d.avg)}  p95 ${ms(d['p(95)'])}  p99 ${ms(d['p(99)'])}`);
  });
  if (m.cross_tenant_hits) lines.push(`  CROSS-TENANT HITS: ${m.cross_tenant_hits.values.count}`);
  const checks = allChecks(data.root_group);
  if (checks.length) {
    lines.push(`  checks        ${m.checks ? pct(m.checks.values.rate) : '-'} passed`);
    checks.forEach((c) => lines.push(`    ${c.fails ? '✗' : '✓'} ${c.name.padEnd(22)} ${c.passes} passed, ${c.fails} failed`));
  }
  lines.push('  thresholds');
  let breached = 0;
  Object.keys(m).sort().forEach((name) => {
    Object.entries(m[name].thresholds || {}).forEach(([expr, r]) => {
      if (!r.ok) breached += 1;
      lines.push(`    ${r.ok ? '✓' : '✗'} ${name}: ${expr}`);
    });
  });
  lines.push(breached ? `verdict: FAIL (${breached} threshold(s) breached)` : 'verdict: PASS (every threshold held)');
  if (RESULTS_DIR) lines.push(`summary: ${RESULTS_DIR_SHOWN}/summary.json`);
  return `${lines.join('\n')}\n\n`;
}

export function handleSummary(data) {
  const out = { stdout: textSummary(data) };
  if (RESULTS_DIR) out[`${RESULTS_DIR}/summary.json`] = JSON.stringify(data, null, 2);
  return out;
}
