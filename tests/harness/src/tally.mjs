// A run's counts: every test passed, failed or skipped where it ran, the failures by file and
// line, the allowed skips, each test's and each suite's time, each part's wall time.
import { allowedBy } from './skips.mjs';

export class Tally {
  constructor({ allowed, runtime = 'native', ci = false, stepFile = 'tests/run', out = () => {} }) {
    Object.assign(this, { allowed, runtime, ci, stepFile, out });
    this.passed = 0; this.failed = 0; this.skipped = 0; this.todo = 0;
    this.failures = []; this.skips = []; this.todos = [];
    this.timings = []; // {ms, what}
    this.suites = []; // {suite, ms, testsMs, runtime, part}
    this.parts = []; // {name, start, end}
  }

  pass(what, ms) { this.passed++; if (ms != null) this.timings.push({ ms, what }); }

  // fail(entry): entry is what the report lists ("file:line: name"), counted once
  fail(entry) { this.failed++; this.failures.push(entry); }

  // a step outside any runner that failed: one failed test, printed as TAP (to OUT: a suite run
  // beside another prints its lines when it ends, in one block)
  failStep(what, out = this.out) { out(`not ok - ${what}`); this.fail(what); }

  // skip(file, test, reason): counted when a row of the allowed list allows it, else a failure
  skip(file, test, reason, out = this.out) {
    const what = `${file}: ${test} # skip ${reason}`;
    if (allowedBy(this.allowed, { runtime: this.runtime, ci: this.ci, file, test, reason })) {
      this.skipped++; this.skips.push(what);
    } else {
      const where = this.ci ? ' under CI=true' : '';
      out(`unexpected skip: ${what} (no row of tests/allowed-skips.tsv allows it on ${this.runtime}${where})`);
      this.fail(`unexpected skip: ${what}`);
    }
  }

  // todo(file, test, reason): a test not written yet fails the run unless a row allows it
  todoTest(file, test, reason, out = this.out) {
    const text = `todo: ${reason}`.trimEnd();
    const what = `${file}: ${test} # ${text}`;
    if (allowedBy(this.allowed, { runtime: this.runtime, ci: this.ci, file, test, reason: text })) {
      this.todo++; this.todos.push(what);
    } else {
      out(`unexpected todo: ${what} (a todo fails unless a row of tests/allowed-skips.tsv allows it)`);
      this.fail(`unexpected todo: ${what}`);
    }
  }

  stepSkip(name, reason) { this.out(`ok - ${name} # skip ${reason}`); this.skip(this.stepFile, name, reason); }

  startPart(name, now = Date.now()) {
    const last = this.parts.at(-1);
    if (last && last.end == null) last.end = now;
    this.parts.push({ name, start: now, end: null });
    this.out(`# ${name}`);
  }

  endParts(now = Date.now()) { const last = this.parts.at(-1); if (last && last.end == null) last.end = now; }

  currentPart() { return this.parts.at(-1)?.name ?? 'the start'; }
}
