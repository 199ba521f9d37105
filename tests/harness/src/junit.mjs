// Counting a JUnit XML report (pytest --junitxml): each <testcase> passed, failed (<failure>,
// <error>) or skipped (<skipped>, xfail included: pytest writes an xfail as a skip whose
// message says so), each skip through the allowed list. A report with no test case, or a
// process that failed with nothing failed in it, is a failure naming the suite.
import { readFileSync } from 'node:fs';
import { XMLParser } from 'fast-xml-parser';

const parser = new XMLParser({
  ignoreAttributes: false, attributeNamePrefix: '',
  isArray: (name) => ['testsuite', 'testcase', 'failure', 'error', 'skipped'].includes(name),
});

export function parseJUnit(xml) {
  const doc = parser.parse(xml);
  const suites = doc.testsuites?.testsuite ?? doc.testsuite ?? [];
  const cases = [];
  for (const s of suites) {
    for (const c of s.testcase ?? []) {
      // pytest's own node id where the report has the file (junit_family=xunit1)
      const name = c.file ? `${c.file}::${c.name}` : c.classname ? `${c.classname}::${c.name}` : c.name;
      const failure = c.failure?.[0] ?? c.error?.[0];
      const skipped = c.skipped?.[0];
      cases.push({
        name, ms: Math.round(Number(c.time ?? 0) * 1000), file: c.file ?? null, line: c.line ?? null,
        outcome: failure ? 'failed' : skipped ? 'skipped' : 'passed',
        kind: c.error ? 'error' : c.failure ? 'failure' : null,
        // an xfail is a skip the allowed list must name as one: "xfail: REASON"
        message: `${skipped?.type === 'pytest.xfail' ? 'xfail: ' : ''}${String((failure ?? skipped)?.message ?? '')}`,
      });
    }
  }
  return cases;
}

// countJUnit(tally, suite, file, {rc, timedOut, limit, where, out}): the report's tests into the tally
export function countJUnit(tally, suite, file, { rc, timedOut = false, limit = null, where = () => suite, out = tally.out }) {
  if (timedOut) { tally.failStep(`${suite}: over its limit of ${limit} s, stopped`, out); return; }
  let cases;
  try { cases = parseJUnit(readFileSync(file, 'utf8')); } catch (e) {
    tally.failStep(`${suite}: no readable JUnit report (exit ${rc}): ${e.code === 'ENOENT' ? 'the runner wrote none' : e.message.split('\n')[0]}`, out);
    return;
  }
  let failed = 0;
  for (const c of cases) {
    if (c.outcome === 'passed') tally.pass(`${suite}: ${c.name}`, c.ms);
    else if (c.outcome === 'skipped') tally.skip(suite, c.name, c.message, out);
    else { failed++; tally.fail(`${where(c)}: ${c.name} [${c.kind}]`); }
  }
  if (cases.length === 0) tally.failStep(`${suite}: ran no test (exit ${rc})`, out);
  else if (rc !== 0 && failed === 0) tally.failStep(`${suite}: exited ${rc} with no failed test`, out);
}
