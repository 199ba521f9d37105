// Running one suite's process: its own process group (so a timeout or the harness's own end
// stops everything it started), stdout and stderr read line by line, a time limit. Every group
// still running is in `running`, for stopAll() when the harness itself has to stop.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

export const running = new Set();
const GRACE_MS = 10_000;

// run(cmd, args, {cwd, env, limitS, onLine}) -> Promise<{rc, signal, timedOut, ms}>; rc is
// 128 + the signal's number for a process ended by a signal, as a shell reports it
export function run(cmd, args, { cwd, env = process.env, limitS = null, onLine = () => {}, stdin = 'ignore' } = {}) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(cmd, args, { cwd, env, detached: true, stdio: [stdin, 'pipe', 'pipe'] });
    running.add(child);
    let timedOut = false, timer = null, killer = null, streams = 2, exit = null;
    const done = () => {
      if (streams > 0 || !exit) return;
      clearTimeout(timer); clearTimeout(killer);
      running.delete(child);
      const [code, signal] = exit;
      // whatever the suite left behind in its group goes with it
      signalGroup(child, 'SIGKILL');
      resolve({ rc: code ?? 128 + signalNumber(signal), signal, timedOut, ms: Date.now() - started });
    };
    for (const s of [child.stdout, child.stderr]) {
      createInterface({ input: s, crlfDelay: Infinity }).on('line', onLine).on('close', () => { streams--; done(); });
    }
    child.on('error', (e) => { onLine(`cannot start ${cmd}: ${e.message}`); exit = [127, null]; streams = 0; done(); });
    child.on('exit', (code, signal) => { exit = [code, signal]; done(); });
    if (limitS) {
      timer = setTimeout(() => {
        timedOut = true;
        signalGroup(child, 'SIGTERM');
        killer = setTimeout(() => signalGroup(child, 'SIGKILL'), GRACE_MS);
      }, limitS * 1000);
    }
  });
}

function signalGroup(child, sig) { try { process.kill(-child.pid, sig); } catch { /* gone already */ } }

function signalNumber(signal) {
  const n = { SIGHUP: 1, SIGINT: 2, SIGQUIT: 3, SIGABRT: 6, SIGKILL: 9, SIGSEGV: 11, SIGPIPE: 13, SIGALRM: 14, SIGTERM: 15 }[signal];
  return n ?? 0;
}

// stopAll(): TERM to every running group, KILL to what is left a few seconds later
export async function stopAll(graceMs = 5000) {
  const kids = [...running];
  for (const c of kids) signalGroup(c, 'SIGTERM');
  const until = Date.now() + graceMs;
  while (running.size && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
  for (const c of running) signalGroup(c, 'SIGKILL');
}

// capture(cmd, args, opts) -> {rc, lines}: a short helper step's output, kept
export async function capture(cmd, args, opts = {}) {
  const lines = [];
  const r = await run(cmd, args, { ...opts, onLine: (l) => lines.push(l) });
  return { ...r, lines };
}
