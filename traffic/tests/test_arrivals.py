"""The open model's dispatcher (lib/arrivals.py): arrivals keep their intended times, an arrival
the lab cannot serve in time is counted late and its latency includes the wait."""
import time

import gevent

from lib.arrivals import Dispatcher, ramp
from lib.recorder import Recorder


def test_on_time_arrivals_are_not_late():
    rec = Recorder()
    seen = []
    d = Dispatcher("s", 50, lambda intended: seen.append(time.time() - intended), rec, cap=10)
    d.run(1.0)
    assert 45 <= d.arrivals <= 50
    assert d.late == 0
    assert max(seen) < 0.05


def test_a_slow_lab_makes_arrivals_late_not_delayed():
    """cap 1 and 100 ms answers at 50 arrivals/s: the schedule cannot be kept. Every arrival is
    still sent with its intended time, most are counted late, and the latency measured from the
    intended start grows with the queue instead of staying at 100 ms (coordinated omission)."""
    rec = Recorder()
    latencies = []

    def slow(intended):
        gevent.sleep(0.1)
        latencies.append(time.time() - intended)

    d = Dispatcher("s", 50, slow, rec, cap=1)
    d.run(1.0, drain_s=10)
    assert d.arrivals >= 45, "no arrival may be dropped"
    assert d.late >= d.arrivals - 3
    assert rec.counters["late_arrivals"] == d.late
    assert rec.counters["late_arrivals{scenario:s}"] == d.late
    assert max(latencies) > 2.0, "the wait for a free slot must count in the latency"


def test_ramp():
    r = ramp(10, up_s=2, hold_s=2, down_s=2, start_rate=0)
    assert r(0) == 0 and r(1) == 5 and r(3) == 10 and r(5) == 5 and r(7) == 0


def test_schedule_offsets():
    rec = Recorder()
    got = []
    d = Dispatcher("s", 1, lambda intended, i: got.append(i), rec, cap=5)
    d.run(2.0, offsets=[0.0, 0.1, 0.5, 5.0])
    assert got == [0, 1, 2], "an arrival past the end is not sent"
