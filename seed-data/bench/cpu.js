// CPU time from /proc: the seeder (a child process, counted in our cutime/cstime once it has
// been waited for) against the Elasticsearch JVMs (their pids from _nodes/process).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

let ticks = 100;
try {
  ticks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
} catch {}

/** Fields of /proc/PID/stat after the command name (which may hold spaces). */
function statFields(pid) {
  const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return s.slice(s.lastIndexOf(')') + 2).split(' ');
}

/** utime + stime of a process, in seconds (null when it is not on this machine). */
export function processCpu(pid) {
  try {
    const f = statFields(pid);
    return (Number(f[11]) + Number(f[12])) / ticks;
  } catch {
    return null;
  }
}

/** CPU of our waited-for children (cutime + cstime), in seconds. */
export function childrenCpu() {
  const f = statFields('self');
  return (Number(f[13]) + Number(f[14])) / ticks;
}

export async function esPids(client) {
  const info = await client.nodes.info({ metric: 'process' });
  return Object.values(info.nodes).map((n) => ({ name: n.name, pid: n.process?.id }));
}

/** Total CPU seconds of the cluster's JVMs: /proc when they are local, else _nodes/stats. */
export async function esCpu(client, pids) {
  const local = pids.map((p) => processCpu(p.pid));
  if (local.every((x) => x !== null)) return { seconds: local.reduce((a, b) => a + b, 0), source: '/proc' };
  const stats = await client.nodes.stats({ metric: 'process' });
  const ms = Object.values(stats.nodes).reduce((a, n) => a + (n.process?.cpu?.total_in_millis ?? 0), 0);
  return { seconds: ms / 1000, source: '_nodes/stats' };
}
