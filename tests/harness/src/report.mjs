// The report, in this order: the allowed skips and todos, the failures (file:line: name), each
// part's wall time, the ten slowest suites (their wall time, and what setup_file and other time
// outside the tests cost), the ten slowest tests, the log's path; then the closing line
// "N passed, N failed", the last, and only for a run that reached its end. A run that stopped
// anywhere else ends with a line that says where, and never with a closing line.
const sec = (ms) => `${(ms / 1000).toFixed(0)}s`;
const pad = (s, n) => String(s).padStart(n);

export function reportLines(tally, { logPath = null, complete = true, stoppedAt = null } = {}) {
  const L = [];
  if (tally.skipped) {
    L.push('', `# ${tally.skipped} skipped (allowed by tests/allowed-skips.tsv):`, ...tally.skips.map((s) => `#   ${s}`));
  }
  if (tally.todo) L.push(`# ${tally.todo} todo (allowed by tests/allowed-skips.tsv):`, ...tally.todos.map((s) => `#   ${s}`));
  if (tally.failures.length) L.push('', 'failed:', ...tally.failures.map((f) => `  ${f}`));
  if (tally.parts.length) {
    L.push('', 'wall time by part:');
    for (const p of tally.parts) L.push(`  ${pad(sec((p.end ?? Date.now()) - p.start), 7)}  ${p.name}`);
  }
  if (tally.suites.length) {
    L.push('', 'slowest files (wall time; outside its tests: setup_file, teardown, loading):');
    for (const s of [...tally.suites].sort((a, b) => b.ms - a.ms).slice(0, 10)) {
      const outside = s.testsMs ? `, ${sec(Math.max(0, s.ms - s.testsMs))} outside its tests` : '';
      L.push(`  ${pad(sec(s.ms), 7)}  ${s.suite}${s.runtime !== 'native' ? ` (${s.runtime})` : ''}${outside}`);
    }
  }
  if (tally.timings.length) {
    L.push('', 'slowest tests:');
    for (const t of [...tally.timings].sort((a, b) => b.ms - a.ms).slice(0, 10)) L.push(`  ${pad(`${t.ms}ms`, 9)}  ${t.what}`);
  }
  if (logPath) L.push(`# full log: ${logPath}`);
  if (complete) L.push(`${tally.passed} passed, ${tally.failed} failed`);
  else L.push(`INCOMPLETE RUN, stopped in "${tally.currentPart()}": ${stoppedAt}; ${tally.passed} passed and ${tally.failed} failed before it (no closing line: this run did not reach its end)`);
  return L;
}

// the run's record beside its log: every suite's time, the parts, the counts (for the timing
// figures of a closing note, and to compare two runs)
export function summary(tally, { complete, stoppedAt, startedAt }) {
  return {
    complete, stoppedAt: stoppedAt ?? null, startedAt, endedAt: new Date().toISOString(),
    passed: tally.passed, failed: tally.failed, skipped: tally.skipped, todo: tally.todo,
    failures: tally.failures, skips: tally.skips,
    parts: tally.parts.map((p) => ({ name: p.name, s: Math.round(((p.end ?? Date.now()) - p.start) / 1000) })),
    suites: tally.suites.map((s) => ({ ...s, ms: Math.round(s.ms) })),
  };
}
