// Counting one bats file's TAP (bats --tap --timing): each result where it ran, a failure's line
// from bats' "(in test file F, line N)", and the file's own faults: no plan, fewer results than
// its plan (a file killed part-way, an exit in setup_file), a non-zero exit with nothing failed.
const RE_OK = /^(not )?ok [0-9]+ (.*)$/;
const RE_LOC = /in test file .*, line ([0-9]+)\)/;
const RE_TIMED = /^(.*) in ([0-9]+)ms( # skip( (.*))?)?$/;
const RE_SKIP = /^(.*) # skip( (.*))?$/;

export class BatsCounter {
  constructor(tally, file, out = tally.out) {
    Object.assign(this, { tally, file, out });
    this.plan = null; this.executed = 0; this.fileFailed = 0; this.testsMs = 0;
    this.pending = null; this.lastName = null;
  }

  line(line) {
    let m;
    if (this.plan == null && (m = /^1\.\.([0-9]+)$/.exec(line))) this.plan = Number(m[1]);
    else if ((m = RE_OK.exec(line))) { this.flush(); this.executed++; this.result(Boolean(m[1]), m[2]); }
    else if (this.pending && this.pending.line == null && (m = RE_LOC.exec(line))) this.pending.line = m[1];
  }

  result(notOk, rest) {
    let name = rest, ms = null, skip = false, reason = '', m;
    if ((m = RE_TIMED.exec(rest))) { name = m[1]; ms = Number(m[2]); skip = Boolean(m[3]); reason = m[5] ?? ''; }
    else if ((m = RE_SKIP.exec(rest))) { name = m[1]; skip = true; reason = m[3] ?? ''; }
    this.lastName = name;
    if (ms != null) this.testsMs += ms;
    if (notOk) {
      this.fileFailed++;
      this.pending = { name, line: null };
      this.tally.failed++;
      if (ms != null) this.tally.timings.push({ ms, what: `${this.file}: ${name}` });
    } else if (skip) this.tally.skip(this.file, name, reason, this.out);
    else this.tally.pass(`${this.file}: ${name}`, ms);
  }

  flush() {
    if (!this.pending) return;
    const { name, line } = this.pending;
    this.tally.failures.push(`${this.file}${line ? `:${line}` : ''}: ${name}`);
    this.pending = null;
  }

  // end({rc, timedOut, limit, signal}): the file's own faults, once its process ended
  end({ rc, timedOut = false, limit = null }) {
    this.flush();
    const doing = this.doing();
    if (timedOut) this.tally.failStep(`${this.file}: over its limit of ${limit} s, stopped ${doing}`, this.out);
    else if (this.plan == null) this.tally.failStep(`${this.file}: bats printed no test plan (exit ${rc})`, this.out);
    else if (this.executed < this.plan) this.tally.failStep(`${this.file}: ${this.executed} of its ${this.plan} tests ran, the file died part-way (bats exit ${rc})`, this.out);
    else if (rc !== 0 && this.fileFailed === 0) this.tally.failStep(`${this.file}: bats exited ${rc} with no failed test`, this.out);
  }

  // what the file was doing: bats prints a result when a test ends, so the one running is the
  // one after the last result (or setup_file, before any)
  doing() {
    if (this.plan == null) return 'before its plan (loading the file)';
    if (this.executed === 0) return `in setup_file or its first test (0 of ${this.plan} done)`;
    if (this.executed >= this.plan) return `after its last test (teardown_file), ${this.executed} of ${this.plan} done`;
    return `in test ${this.executed + 1} of ${this.plan}, after "${this.lastName}"`;
  }
}
