"""Every request of a run, recorded once and shown four ways:
  - Locust's own statistics (its web UI and console): one request event each, named
    "<scenario> <query type>", its response time measured from the INTENDED start;
  - the run's summary (summary.json): every latency kept (an array of doubles per series) so the
    percentiles are exact, series keyed like k6's submetrics (`http_req_duration{scenario:measure}`);
  - Prometheus (a scrape target while the run lasts, LOAD_METRICS_PORT): a latency histogram by
    scenario, index group, query type and outcome, and counters (metrics.py);
  - POINTS_FILE (the experiment runner's timeline, make bench-load's latency agreement): one CSV
    line per request, `epoch_ms,duration_ms,scenario,store_set,took_ms` (epoch_ms the intended
    start; took_ms Elasticsearch's own `took` of a search, '' otherwise).
"""
import time
from array import array
from collections import defaultdict

import gevent

# The submetric keys the summary carries for every request, besides the overall series: by
# scenario, then by scenario and one more tag (the experiment runner reads these exact keys).
_BY = (("query_type",), ("store_set",), ("store_set", "phase"), ("op",), ("index_group",))


def series_keys(tags):
    scenario = tags.get("scenario")
    keys = [""]
    if not scenario:
        return keys
    keys.append(f"scenario:{scenario}")
    for names in _BY:
        vals = [tags.get(n) for n in names]
        if all(vals):
            keys.append(",".join([f"scenario:{scenario}"] + [f"{n}:{v}" for n, v in zip(names, vals)]))
    return keys


def _name(metric, key):
    return f"{metric}{{{key}}}" if key else metric


class Recorder:
    def __init__(self, environment=None, metrics=None, points_file=None):
        self.environment = environment
        self.metrics = metrics  # metrics.LoadMetrics or None
        self.durations = defaultdict(lambda: array("d"))
        self.failed = defaultdict(int)
        self.counters = defaultdict(float)
        self.counters["cross_tenant_hits"] = 0
        self.checks = {}  # name -> [passes, fails]
        self.started_at = None
        self.ended_at = None
        self._points = open(points_file, "a", buffering=1 << 16) if points_file else None
        self._flusher = gevent.spawn(self._flush_loop) if self._points else None

    # ---- the run's clock ---------------------------------------------------------------------
    def start(self):
        if self.started_at is None:
            self.started_at = time.time()

    def elapsed(self):
        return 0.0 if self.started_at is None else time.time() - self.started_at

    def stop(self):
        if self.ended_at is None:
            self.ended_at = time.time()
        if self._points:
            self._flusher.kill()
            self._points.flush()

    # ---- what happens ------------------------------------------------------------------------
    def request(self, tags, intended, ended, ok, status=0, error="", name=None, length=0, check_failed="", took=None):
        """One request: `intended` its intended start (epoch s), `ended` when its answer was read.
        ok: the status was one the scenario expects; check_failed: the first failed check's name."""
        ms = (ended - intended) * 1000.0
        for key in series_keys(tags):
            self.durations[key].append(ms)
            if not ok:
                self.failed[key] += 1
        scenario = tags.get("scenario", "")
        if self.metrics:
            self.metrics.request(scenario, tags.get("index_group") or "none", tags.get("query_type", ""), ok, ms / 1000.0)
        if self._points is not None:
            self._points.write(f"{intended * 1000:.1f},{ms:.2f},{scenario},{tags.get('store_set', '')},{'' if took is None else took}\n")
        if self.environment is not None:
            exc = None
            if not ok:
                exc = RequestFailed(f"HTTP {status}" + (f": {error}" if error else ""))
            elif check_failed:
                exc = RequestFailed(f"check failed: {check_failed}")
            self.environment.events.request.fire(
                request_type="POST", name=name or f"{scenario} {tags.get('query_type', '')}".strip(),
                response_time=ms, response_length=length, exception=exc, context={}, url=None, response=None)

    def count(self, metric, value=1, tags=None):
        """A counter (late_arrivals, docs_indexed, cross_tenant_hits, ...), overall and by scenario."""
        self.counters[metric] += value
        scenario = (tags or {}).get("scenario")
        if scenario:
            self.counters[f"{metric}{{scenario:{scenario}}}"] += value
        if self.metrics:
            self.metrics.count(metric, value, tags or {})

    def in_flight(self, scenario, delta):
        """Requests of a scenario started and not yet answered (the open model's slots in use)."""
        if self.metrics:
            self.metrics.in_flight.labels(scenario).inc(delta)

    def check(self, name, passed):
        c = self.checks.setdefault(name, [0, 0])
        c[0 if passed else 1] += 1
        if self.metrics:
            self.metrics.check(name, passed)
        return passed

    def _flush_loop(self):
        while True:
            gevent.sleep(1.0)
            self._points.flush()

    # ---- the summary's metrics ---------------------------------------------------------------
    def summary_metrics(self):
        duration_s = max(1e-9, (self.ended_at or time.time()) - (self.started_at or time.time()))
        out = {}
        for key, values in self.durations.items():
            n = len(values)
            out[_name("http_req_duration", key)] = {"type": "trend", "values": trend(values)}
            out[_name("http_reqs", key)] = {"type": "counter", "values": {"count": n, "rate": n / duration_s}}
            f = self.failed.get(key, 0)
            out[_name("http_req_failed", key)] = {"type": "rate", "values": {"rate": f / n if n else 0.0, "passes": f, "fails": n - f}}
        for name, v in self.counters.items():
            out[name] = {"type": "counter", "values": {"count": v if not float(v).is_integer() else int(v), "rate": v / duration_s}}
        total = sum(p + f for p, f in self.checks.values())
        if total:
            passes = sum(p for p, _ in self.checks.values())
            out["checks"] = {"type": "rate", "values": {"rate": passes / total, "passes": passes, "fails": total - passes}}
        return out


class RequestFailed(Exception):
    pass


def percentile(sorted_values, p):
    """The nearest-rank percentile (no interpolation), as the runner's own timelines compute it."""
    if not sorted_values:
        return None
    i = min(len(sorted_values) - 1, max(0, int(-(-p * len(sorted_values) // 100)) - 1))
    return sorted_values[i]


def trend(values):
    if not values:
        return {"count": 0}
    s = sorted(values)
    n = len(s)
    return {"avg": sum(s) / n, "min": s[0], "med": percentile(s, 50), "max": s[-1],
            "p(50)": percentile(s, 50), "p(95)": percentile(s, 95), "p(99)": percentile(s, 99), "count": n}

