// The terminal story of a closed-loop repetition (make demo): every few seconds the burst
// store's neighbours' p95 over the last 5 s against before the burst (from the load engine's
// points file as it is written), the other group's, each group's latency as the allocator sees it against its
// objective; and once each, the moments that matter: the burst, the flag with its evidence, the
// move starting and ending. Plain lines, so it reads the same on a terminal and in a CI log.
import { closeSync, openSync, readSync } from 'node:fs';
import { measuredPoint } from './workload.js';

const p95 = (xs) => {
  if (!xs.length) return null;
  const s = [...xs].sort((a, b) => a - b);
  return Math.round(s[Math.min(s.length - 1, Math.ceil(0.95 * s.length) - 1)]);
};

/** (exported for the tests)
 * Reads the lines the load engine appended to its points file (POINTS_FILE: `epoch_ms,
 * duration_ms,scenario,store_set`) since the last call; keeps the measured requests'
 * [epoch ms, duration ms, store set]. A line still being written waits for the next call.
 */
export function follower(file) {
  let offset = 0;
  let rest = '';
  const points = [];
  const buf = Buffer.alloc(1 << 20);
  return {
    points,
    read() {
      let fd;
      try {
        fd = openSync(file, 'r');
      } catch {
        return;
      }
      try {
        for (;;) {
          const n = readSync(fd, buf, 0, buf.length, offset);
          if (n <= 0) break;
          offset += n;
          const lines = (rest + buf.toString('utf8', 0, n)).split('\n');
          rest = lines.pop();
          for (const line of lines) {
            const p = measuredPoint(line);
            if (p) points.push(p);
          }
        }
      } finally {
        closeSync(fd);
      }
    },
  };
}

export function narrator({ log, pointsFile, target, groups, burst, measureS, everyMs = 3000 }) {
  const burstS = Math.round(burst.from * measureS); // as workload.js rounds it for the load engine
  const f = follower(pointsFile);
  let t0 = null;
  let lastLine = 0;
  const told = new Set();
  const once = (key, line) => {
    if (told.has(key)) return;
    told.add(key);
    log(line);
  };
  const burstAt = () => t0 + burstS * 1000;
  const sec = (ms) => `${Math.round((ms - t0) / 1000)}s`;
  return {
    start() {
      t0 = Date.now();
      log(`  [demo] steady storefront traffic on ${groups.join(' and ')}; in ${burstS} s a search bot starts crawling ${target} (on ${groups[0]}) at ${burst.rate} pages/s`);
    },
    tick: (state, hot) => {
      if (t0 === null) return;
      const now = Date.now();
      f.read();
      if (now >= burstAt()) once('burst', `  [demo] +${sec(now)} the bot starts crawling ${target}`);
      if (state.evidence) once('flag', `  [demo] +${sec(state.flagged_at)} the allocator flags ${target}: ${state.evidence.why}`);
      if (state.move) once('move', `  [demo] +${sec(state.move.created_at)} move ${state.move.job} (${state.move.trigger}): ${target} ${state.move.from.group} -> ${state.move.to.group}`);
      if (state.move?.state === 'succeeded') once('moved', `  [demo] +${sec(state.move.finished_at)} ${target} now lives on ${state.move.to.group}: its crawl no longer touches ${groups[0]}'s nodes`);
      if (now - lastLine < everyMs) return;
      lastLine = now;
      const recent = (set) => p95(f.points.filter((p) => p[2] === set && p[0] >= now - 5000).map((p) => p[1]));
      const before = p95(f.points.filter((p) => p[2] === 'odd' && p[0] < burstAt()).map((p) => p[1]));
      const g = (name) => hot.groups.find((x) => x.group === name);
      const es = groups.map((name) => `${name} ${g(name)?.probe_ms ?? '-'} ms${g(name)?.meets_objective === false ? ' (over its objective)' : ''}`).join(', ');
      const t = hot.top.find((x) => x.tenant === target);
      const share = t ? ` | ${target} ${Math.round(t.share_of_group * 100)}% of ${t.group}'s search time, objective ${g(t.group)?.objective_ms} ms` : '';
      const flagged = hot.hot.length ? ` | HOT ${hot.hot.map((h) => h.tenant).join(', ')}` : '';
      log(`  [demo] +${sec(now)}  ${groups[0]} neighbours p95 ${recent('odd') ?? '-'} ms (before the bot ${before ?? '-'}) | ${groups[1]} stores ${recent('even') ?? '-'} ms | probe searches ${es}${share}${flagged}${state.move && state.move.state !== 'succeeded' ? ` | moving (${state.move.state})` : ''}`);
    },
    end(figures) {
      const n = figures.neighbours;
      const i = figures.isolation;
      log(`  [demo] neighbours' p95: ${n.before_p95_ms} ms before the bot, ${n.during_p95_ms} ms while it hit them, ${n.after_p95_ms ?? '-'} ms after the move (${n.after_ratio ?? '-'}x of before)`);
      log(`  [demo] flagged ${i.flag_s ?? '-'} s after the burst started; move started at ${i.move_start_s ?? '-'} s and took ${i.move_s ?? '-'} s; neighbours recovered at ${i.recovered_s ?? 'never'} s`);
    },
  };
}
