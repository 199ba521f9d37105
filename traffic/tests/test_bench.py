"""make bench-load (tools/bench.py) when its load engine fails: one line naming the run and its
log, a non-zero exit, never a table of zeros (tests/live/97-bench-smoke.bats runs the real one).
The engine is a stand-in script; the benchmark stops before it would talk to Elasticsearch."""
import os
import pathlib
import subprocess
import sys

BENCH = pathlib.Path(__file__).resolve().parents[1] / "tools" / "bench.py"


def run_bench(tmp_path, engine_body):
    engine = tmp_path / "locust"
    engine.write_text("#!/bin/sh\n" + engine_body)
    engine.chmod(0o755)
    env = {**os.environ, "LOCUST_BIN": str(engine), "BENCH_DIR": str(tmp_path / "out"), "ES_URL": "http://127.0.0.1:9",
           "BENCH_RATES": "10 50", "BENCH_STEP": "1s"}
    return subprocess.run([sys.executable, str(BENCH)], env=env, capture_output=True, text=True, timeout=60)


def test_an_engine_that_writes_no_summary_is_one_line_and_exit_1(tmp_path):
    r = run_bench(tmp_path, "echo crashed; exit 3\n")
    assert r.returncode == 1
    assert r.stderr.strip().splitlines() == [f"bench-load: the load engine (storefront.py, rate-10) wrote no summary (exit 3): see {tmp_path}/out/rate-10/locust.log"]
    # the table's head only: no row of zeros, and no second rate tried
    assert "0.0" not in r.stdout and not (tmp_path / "out" / "rate-50").exists()


def test_a_summary_of_no_request_is_one_line_and_exit_1(tmp_path):
    r = run_bench(tmp_path, """echo '{"engine": {"version": "x"}, "metrics": {"http_reqs": {"values": {"count": 0, "rate": 0}}}}' >"$RESULTS_DIR/summary.json"\n""")
    assert r.returncode == 1
    assert r.stderr.strip().splitlines() == [f"bench-load: the load engine (storefront.py, rate-10) sent no request (exit 0): see {tmp_path}/out/rate-10/locust.log"]
    assert "0.0" not in r.stdout
