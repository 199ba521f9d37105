// Counting a node --test run's TAP (--test-reporter=tap). Counts come from the runner's summary
// ("# pass N", "# fail N", "# cancelled N", "# todo N") of the block after the LAST top-level
// plan "1..N": what tests and their child processes print reaches the stream as column-0 "# ..."
// lines too, but always before that plan, so it never adds to the counts. Cancelled tests (a
// hook that threw, a timeout) are failed. Checked against the stream itself: the top-level
// results must match the plan, a top-level "not ok" the summary missed is counted, and a
// non-zero exit with nothing failed is a failure naming the suite. Every SKIP (test or suite,
// at any depth) goes through the allowed list; every TODO too (a todo fails unless allowed).
const RE_RESULT = /^(not )?ok [0-9]+ - (.*)$/;
const RE_SUM = /^# (tests|suites|pass|fail|cancelled|skipped|todo|duration_ms) ([0-9.]+)$/;

export class NodeTapCounter {
  // suite: how the suite is named in the report and the allowed list (its package's dir);
  // relPath: a test's location as a path from the repository's root
  constructor(tally, suite, relPath = (p) => p, out = tally.out) {
    Object.assign(this, { tally, suite, relPath, out });
    this.plan = null; this.top = 0; this.topNotOk = 0; this.inSummary = false; this.sum = {};
    this.r = null; this.testsMs = 0; this.lastName = null;
  }

  line(line) {
    const body = line.trimStart(), indent = line.length - body.length;
    let m;
    if (indent % 4 === 0 && (m = RE_RESULT.exec(body))) {
      this.flush();
      let name = m[2], directive = '';
      // a test's own '#' is escaped (\#): the first " # " starts the directive
      const at = name.indexOf(' # ');
      if (at >= 0) { directive = name.slice(at + 3); name = name.slice(0, at); }
      name = name.replaceAll('\\#', '#');
      this.r = { notOk: Boolean(m[1]), name, directive, indent, duration: null, type: null, location: null, failure: null };
      if (indent === 0) {
        this.top++;
        if (this.r.notOk && !directive.startsWith('TODO')) this.topNotOk++;
      }
      this.inSummary = false;
      return;
    }
    const r = this.r;
    if (r && indent === r.indent + 2) {
      // the runner's keys come first: an error's own properties, later, do not override them
      if (body.startsWith('duration_ms: ')) r.duration ??= body.slice(13);
      else if (body === "type: 'suite'") { if (r.location == null) r.type = 'suite'; }
      else if (body.startsWith("location: '")) r.location ??= body.slice(11, -1);
      else if (body.startsWith("failureType: '")) r.failure ??= body.slice(14, -1);
      else if (body === '...') this.flush();
    }
    if (indent !== 0) return;
    if ((m = /^1\.\.([0-9]+)$/.exec(line))) { this.flush(); this.plan = Number(m[1]); this.inSummary = true; this.sum = {}; }
    else if (this.inSummary && (m = RE_SUM.exec(line))) this.sum[m[1]] = m[2];
    else if (line !== '') this.inSummary = false;
  }

  flush() {
    const r = this.r;
    if (!r) return;
    this.r = null;
    const where = r.location ? this.relPath(r.location.replace(/:[0-9]+$/, '')) : null;
    this.lastName = r.name;
    if (r.directive.startsWith('SKIP')) { this.tally.skip(this.suite, r.name, r.directive.slice(4).trimStart(), this.out); return; }
    if (r.directive.startsWith('TODO')) { this.tally.todoTest(this.suite, r.name, r.directive.slice(4).trimStart(), this.out); return; }
    if (r.notOk && !(r.type === 'suite' && r.failure === 'subtestsFailed')) {
      this.tally.failures.push(`${where ?? this.suite}: ${r.name}${r.failure ? ` [${r.failure}]` : ''}`);
    }
    const ms = r.duration == null ? NaN : Number.parseFloat(r.duration);
    if (r.type !== 'suite' && Number.isFinite(ms)) {
      this.tally.timings.push({ ms: Math.round(ms), what: `${this.suite}: ${r.name}` });
      if (r.indent === 0) this.testsMs += ms;
    }
  }

  // end({rc, timedOut, limit, what}): the counts from the summary, and the suite's own faults
  end({ rc, timedOut = false, limit = null, what = 'the suite' }) {
    this.flush();
    const t = this.tally, s = this.sum;
    if (timedOut) { t.failStep(`${this.suite}: ${what} over its limit of ${limit} s, stopped after "${this.lastName ?? 'nothing'}"`, this.out); return; }
    for (const key of ['pass', 'fail', 'cancelled']) {
      if (!/^[0-9]+$/.test(s[key] ?? '')) { t.failStep(`${this.suite}: ${what} ended without the runner's summary (exit ${rc})`, this.out); return; }
    }
    const pass = Number(s.pass), fail = Number(s.fail), cancelled = Number(s.cancelled);
    const todo = Number(s.todo ?? 0), skipped = Number(s.skipped ?? 0);
    t.passed += pass; t.failed += fail + cancelled;
    if (this.top !== this.plan) t.failStep(`${this.suite}: ${what}: ${this.top} top-level results for a plan of ${this.plan}`, this.out);
    else if (this.topNotOk > 0 && fail + cancelled === 0) {
      t.failed += this.topNotOk;
      this.out(`not ok - ${this.suite}: ${this.topNotOk} top-level failure(s) the runner's summary did not count`);
      t.failures.push(`${this.suite}: ${this.topNotOk} top-level failure(s) the runner's summary did not count`);
    } else if (rc !== 0 && fail + cancelled === 0) t.failStep(`${this.suite}: ${what} exited ${rc} with no failed test`, this.out);
    else if (pass + fail + cancelled + todo + skipped === 0) t.failStep(`${this.suite}: ${what} ran no test`, this.out);
  }
}
