"""Two engines on one clock (lib/run.py): the measuring engine writes its start, the burst's own
engine reads it; a file half written or not there yet is no clock."""
import gevent

from lib.run import LoadRun, read_t0, write_t0


def test_the_clock_written_whole_and_read_back(tmp_path):
    f = tmp_path / "t0"
    assert read_t0(str(f)) is None
    write_t0(str(f), 1764720000.123456)
    assert read_t0(str(f)) == 1764720000.123456
    assert not (tmp_path / "t0.tmp").exists()
    f.write_text("")
    assert read_t0(str(f)) is None
    f.write_text("12.5 and more")
    assert read_t0(str(f)) is None


def test_an_engine_on_another_clock_starts_from_it(tmp_path):
    f = str(tmp_path / "t0")
    measuring = LoadRun("m", t0_out=f)
    measuring._on_test_start(None)
    burst = LoadRun("b", t0_in=f)
    burst._on_test_start(None)
    gevent.sleep(0.2)
    assert burst.t0 == round(measuring.t0, 6)
    assert burst.recorder.started_at is not None


def test_an_engine_waits_for_the_clock(tmp_path):
    f = str(tmp_path / "t0")
    burst = LoadRun("b", t0_in=f)
    burst._on_test_start(None)
    gevent.sleep(0.15)
    assert burst.t0 is None, "no clock yet: nothing may start"
    write_t0(f, 42.0)
    gevent.sleep(0.15)
    assert burst.t0 == 42.0
