"""The open model: arrivals on a schedule that does not wait for earlier answers.

A dispatcher computes each arrival's intended time from the rate (constant, or a ramp), and
starts it in a greenlet of its own at that time. At most `cap` arrivals are in flight: an arrival
that finds every slot taken waits for one, and so does every arrival after it, but none is
dropped and none loses its intended time. Latency is measured from the intended start, so a
lab (or a generator) that falls behind shows in the latency instead of being hidden by it
(coordinated omission). An arrival that starts more than `late_ms` after its intended time is
counted late (k6 called the equivalent "dropped iterations"): a run with many late arrivals did
not apply the load it was asked for.
"""
import time

import gevent
from gevent.pool import Pool

DEFAULT_LATE_MS = 50.0


class Dispatcher:
    def __init__(self, name, rate, work, recorder, cap=100, late_ms=DEFAULT_LATE_MS, tags=None):
        """rate: arrivals/s, a number or a function of the seconds since the dispatcher started
        (a ramp); work(intended): one arrival, given its intended start (epoch seconds);
        tags: the arrival's counters' tags, or a function of its intended start (a window)."""
        self.name = name
        self.rate = rate if callable(rate) else (lambda _t, r=float(rate): r)
        self.work = work
        self.recorder = recorder
        self.pool = Pool(size=max(1, int(cap)))
        self.late_s = late_ms / 1000.0
        self.tags = tags or {"scenario": name}
        self.arrivals = 0
        self.late = 0
        self.done = False
        self.offsets = None

    def run(self, duration_s, start=None, drain_s=60.0, offsets=None):
        """Dispatches for duration_s seconds from `start` (epoch s, default now), then waits up to
        drain_s for the arrivals in flight. Returns when done (self.done is then True).
        offsets: the arrivals' own times, seconds from start (a replayed log's pace), instead of
        the rate."""
        t0 = start if start is not None else time.time()
        end = t0 + duration_s
        self.offsets = offsets
        dues = (t0 + o for o in offsets) if offsets is not None else self._dues(t0, end)
        for i, due in enumerate(dues):
            if due >= end:
                break
            wait = due - time.time()
            if wait > 0:
                gevent.sleep(wait)
            # a free slot, or wait for one (the wait makes this arrival, and the next, late)
            self.pool.wait_available()
            self.arrivals += 1
            tags = self.tags(due) if callable(self.tags) else self.tags
            self.recorder.count("arrivals", 1, tags)
            if time.time() - due > self.late_s:
                self.late += 1
                self.recorder.count("late_arrivals", 1, tags)
            self.pool.spawn(self._one, due, i)
        self.pool.join(timeout=drain_s)
        self.pool.kill(block=False)
        self.done = True

    def _dues(self, t0, end):
        due = self._next(t0, t0, end)
        while due < end:
            yield due
            due = self._next(due, t0, end)

    def _next(self, due, t0, end):
        """The next intended time after `due`: where the rate's integral reaches one arrival
        (exact for a constant rate, 10 ms steps through a ramp)."""
        acc, t = 0.0, due
        while t < end:
            r = max(0.0, self.rate(t - t0))
            if r * 0.01 < 1.0 - acc:
                acc += r * 0.01
                t += 0.01
            else:
                return t + (1.0 - acc) / r
        return end

    def _one(self, intended, i):
        self.recorder.in_flight(self.name, 1)
        try:
            self.work(intended) if self.offsets is None else self.work(intended, i)
        except gevent.GreenletExit:
            raise
        except Exception as err:  # noqa: BLE001 - one failed arrival must not stop the schedule
            print(f"load: {self.name}: {type(err).__name__}: {err}", flush=True)
        finally:
            self.recorder.in_flight(self.name, -1)


def ramp(target, up_s, hold_s=None, down_s=0.0, start_rate=0.0):
    """A rate that rises linearly from start_rate to target over up_s, holds, then falls to 0
    over down_s (the bot's burst; the experiments' warm-up)."""
    def rate(t):
        if t < up_s:
            return start_rate + (target - start_rate) * (t / up_s) if up_s > 0 else target
        if hold_s is None or t < up_s + hold_s:
            return target
        if down_s > 0 and t < up_s + hold_s + down_s:
            return target * (1 - (t - up_s - hold_s) / down_s)
        return 0.0
    return rate
