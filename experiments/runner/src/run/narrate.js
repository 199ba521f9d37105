// The terminal story of a closed-loop repetition (make demo): every few seconds the burst
// store's neighbours' p95 over the last 5 s against before the burst (from the load engine's
// points file as it is written), the other group's, each group's p95 as the allocator judges it
// against its learned baseline and relative limit; and once each, the moments that matter: the
// burst, the flag with its evidence, the move starting and ending. Plain lines, so it reads the
// same on a terminal and in a CI log.
import { closeSync, openSync, readSync } from 'node:fs';
import { nearestRank } from '@tenantlab/contract/percentile';
import { measuredPoint } from './workload.js';

const p95 = (xs) => {
  const v = nearestRank(xs, 0.95);
  return v === null ? null : Math.round(v);
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

const n1 = (v) => (v === null || v === undefined ? '-' : Math.round(v * 10) / 10);

/** (exported for the tests) A group as the allocator judges it: `g1 p95 48 ms (baseline 31, limit 40.3)`, and the objective it missed. */
export function groupText(name, g) {
  if (!g) return `${name} -`;
  const base = g.baseline_p95_ms === null || g.baseline_p95_ms === undefined ? 'no baseline yet' : `baseline ${n1(g.baseline_p95_ms)}, limit ${n1(g.relative_limit_ms)}`;
  const missed = g.meets_objective === false ? ` MISSED (${g.missed ?? 'objective'}${g.missed === 'absolute' ? ` ${g.objective_ms} ms` : ''})` : '';
  return `${name} p95 ${n1(g.p95_ms)} ms (${base})${missed}`;
}

/** (exported for the tests) What the burst does, in words: the bot's crawl or the writers' re-submission; `where` follows the store's name. */
export function burstText(burst, target, where = '') {
  return burst.kind === 'resubmit'
    ? `${burst.writers} writer${burst.writers === 1 ? ' starts' : 's start'} re-submitting the whole catalogue of ${target}${where} in bulks of ${burst.bulk_size}`
    : `a search bot starts crawling ${target}${where} at ${burst.rate} pages/s`;
}

export function narrator({ log, pointsFile, target, groups, home = groups[0], burst, measureS, everyMs = 3000 }) {
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
      log(`  [demo] steady storefront traffic on ${groups.join(' and ')}; in ${burstS} s ${burstText(burst, target, ` (on ${home})`)}`);
    },
    tick: (state, hot) => {
      if (t0 === null) return;
      const now = Date.now();
      f.read();
      if (now >= burstAt()) once('burst', `  [demo] +${sec(now)} ${burstText(burst, target).replace(/^a /, 'the ')}`);
      const ev = state.evidence;
      if (ev) once('flag', `  [demo] +${sec(state.flagged_at)} the allocator flags ${target}${ev.kind ? ` (${ev.kind}${ev.crossed ? `, ${ev.crossed} objective crossed` : ''})` : ''}: ${ev.why}`);
      if (state.move) once('move', `  [demo] +${sec(state.move.created_at)} move ${state.move.job} (${state.move.trigger}): ${target} ${state.move.from.group} -> ${state.move.to.group}`);
      if (state.move?.state === 'succeeded') once('moved', `  [demo] +${sec(state.move.finished_at)} ${target} now lives on ${state.move.to.group}: its ${burst.kind === 'resubmit' ? 'writes no longer touch' : 'crawl no longer touches'} ${groups[0]}'s nodes`);
      if (now - lastLine < everyMs) return;
      lastLine = now;
      const recent = (set) => p95(f.points.filter((p) => p[2] === set && p[0] >= now - 5000).map((p) => p[1]));
      const before = p95(f.points.filter((p) => p[2] === 'odd' && p[0] < burstAt()).map((p) => p[1]));
      const g = (name) => hot.groups?.find((x) => x.group === name);
      const judged = groups.map((name) => groupText(name, g(name))).join(', ');
      const t = hot.top?.find((x) => x.tenant === target);
      const share = t ? ` | ${target} ${Math.round(t.share_of_group * 100)}% of ${t.group}'s search time, objective ${g(t.group)?.objective_ms} ms` : '';
      const flagged = hot.hot?.length ? ` | HOT ${hot.hot.map((h) => (h.kind ? `${h.tenant} (${h.kind})` : h.tenant)).join(', ')}` : '';
      log(`  [demo] +${sec(now)}  ${groups[0]} neighbours p95 ${recent('odd') ?? '-'} ms (before the burst ${before ?? '-'}) | ${groups[1]} stores ${recent('even') ?? '-'} ms | allocator's judged ${judged}${share}${flagged}${state.move && state.move.state !== 'succeeded' ? ` | moving (${state.move.state})` : ''}`);
    },
    end(figures) {
      const n = figures.neighbours;
      const i = figures.isolation;
      log(`  [demo] ${neighboursLine(n)}`);
      log(`  [demo] ${outcomeLine(i)}`);
    },
  };
}

/** The neighbours' p95 before, during and after, and how much of the burst's rise the move took away. */
export function neighboursLine(n) {
  const share = n.recovered_share === null || n.recovered_share === undefined ? '' : `; ${Math.round(n.recovered_share * 100)}% of the rise gone`;
  return `neighbours' p95: ${n.before_p95_ms} ms before the burst, ${n.during_p95_ms} ms while it hit them, ${n.after_p95_ms ?? '-'} ms after the move (${n.after_ratio ?? '-'}x of before${share})`;
}

/** A repetition's closed loop in words: flagged or not, moved or not, the neighbours back or not (times in s). */
export function outcomeLine(i) {
  const none = (x) => x === null || x === undefined;
  const flag = none(i.flag_s) ? 'not flagged' : `flagged ${i.flag_s} s after the burst started`;
  const move = none(i.move_start_s) ? 'not moved' : `move started at ${i.move_start_s} s and took ${i.move_s ?? '-'} s`;
  const back = none(i.recovered_s) ? 'neighbours not back within 15% of before in the window' : `neighbours back within 15% of before at ${i.recovered_s} s`;
  // absent from results measured before the figure existed (2026-12-04)
  const rise = i.recovered_rise_s === undefined ? '' : none(i.recovered_rise_s) ? "; not within 15% of the burst's rise in the window" : `; within 15% of the burst's rise at ${i.recovered_rise_s} s`;
  return `${flag}; ${move}; ${back}${rise}`;
}
