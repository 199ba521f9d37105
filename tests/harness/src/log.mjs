// The run's log: everything the harness prints also goes to DIR/<UTC time>[-SUFFIX].log, which
// DIR/latest.log points to; the newest 30 logs are kept. Writes are synchronous, so a run that
// stops on a signal or a crash has its last line in the log too.
import { mkdirSync, openSync, writeSync, closeSync, readdirSync, statSync, rmSync, symlinkSync, existsSync } from 'node:fs';
import path from 'node:path';

export function openLog(dir, suffix = '') {
  mkdirSync(dir, { recursive: true });
  let name = new Date().toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z') + (suffix ? `-${suffix}` : '');
  if (existsSync(path.join(dir, `${name}.log`))) name += `-${process.pid}`;
  const file = path.join(dir, `${name}.log`);
  const fd = openSync(file, 'a');
  const latest = path.join(dir, 'latest.log');
  rmSync(latest, { force: true });
  try { symlinkSync(`${name}.log`, latest); } catch { /* a second run at the same moment */ }
  const old = readdirSync(dir).filter((f) => f.endsWith('.log') && f !== 'latest.log')
    .map((f) => ({ f, t: statSync(path.join(dir, f)).mtimeMs })).sort((a, b) => b.t - a.t).slice(30);
  for (const { f } of old) rmSync(path.join(dir, f), { force: true });
  return {
    file,
    write(line) { writeSync(fd, `${line}\n`); },
    close() { closeSync(fd); },
  };
}

// an output that prints to the console and the log
export function console2(log) {
  return (line) => { process.stdout.write(`${line}\n`); log?.write(line); };
}
