// spawn-detached.mjs LOG ARGV...: starts ARGV in a session of its own, stdout and stderr
// appended to LOG, stdin /dev/null, with this process's environment and working directory;
// prints the pid of ARGV's own process and exits. Used by spawn_detached (process.sh).
//
// Why Node and not `setsid` from bash: bash cannot call setsid(2) itself, and util-linux
// `setsid` forks when its caller leads a process group (job control on), so the pid a shell
// records (`$!`) is then a parent that exits at once while the program runs in a child; and a
// check of the recorded pid while `setsid` is still exec'ing the program reads an empty
// /proc/PID/environ. libuv forks once, calls setsid() in that child and execs ARGV there, and
// Node reports 'spawn' only once the exec has succeeded: the pid printed is the program's.
import { spawn } from 'node:child_process';
import { openSync, writeSync } from 'node:fs';

const [log, command, ...args] = process.argv.slice(2);
if (!log || !command) {
  process.stderr.write('usage: spawn-detached.mjs LOG COMMAND [ARG...]\n');
  process.exit(2);
}
const out = openSync(log, 'a');
const child = spawn(command, args, { detached: true, stdio: ['ignore', out, out] });
child.on('spawn', () => {
  process.stdout.write(`${child.pid}\n`);
  child.unref();
});
// A program that cannot be exec'd (missing, not executable) says so in its own log, where the
// lab shows the log tail of a process that did not start.
child.on('error', (err) => {
  writeSync(out, `error: cannot start ${command}: ${err.message}\n`);
  process.exitCode = 1;
});
