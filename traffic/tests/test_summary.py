"""The verdict (lib/summary.py) and the summary's series (lib/recorder.py)."""
from lib.recorder import Recorder, percentile, series_keys
from lib.summary import evaluate, text_summary


def test_series_keys_as_the_runner_reads_them():
    keys = series_keys({"scenario": "measure", "query_type": "search", "store_set": "odd", "phase": "before", "index_group": "g1"})
    assert "" in keys and "scenario:measure" in keys
    assert "scenario:measure,query_type:search" in keys
    assert "scenario:measure,store_set:odd,phase:before" in keys
    assert "scenario:measure,index_group:g1" in keys


def test_percentile_nearest_rank():
    s = list(range(1, 101))
    assert percentile(s, 95) == 95 and percentile(s, 50) == 50 and percentile([7], 99) == 7


def test_thresholds_breach_and_hold():
    rec = Recorder()
    rec.start()
    for ms in (10, 20, 2000):
        rec.request({"scenario": "storefront"}, 0.0, ms / 1000, True)
    rec.request({"scenario": "storefront"}, 0.0, 0.01, False, status=500)
    rec.stop()
    m = rec.summary_metrics()
    t = evaluate([("http_req_duration{scenario:storefront}", "p(95)", "<", 1000), ("http_req_failed", "rate", "<", 0.01),
                  ("cross_tenant_hits", "count", "==", 0), ("late_arrivals", "share", "<", 0.05)],
                 m, {"late_arrivals": (1, 10)})
    assert [x["ok"] for x in t] == [False, False, True, False]
    summary = {"run_id": "x", "state": {"testRunDurationMs": 1000}, "engine": {"version": "2"}, "models": {"storefront": "open"},
               "late_ms": 50, "metrics": m, "checks": [], "thresholds": t, "verdict": "FAIL"}
    assert "verdict: FAIL (3 threshold(s) breached)" in text_summary(summary)
