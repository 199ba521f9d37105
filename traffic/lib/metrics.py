"""The running load's Prometheus endpoint (LOAD_METRICS_HOST:LOAD_METRICS_PORT/metrics): what the
Load dashboard, the recording rules and the allocator's per-group latency read while a run lasts.
No `tenant` label: a lab has thousands of tenants; per-tenant rates come from Elasticsearch's
search stats groups."""
from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, start_http_server

# Fine where storefront pages land (10-300 ms): the allocator judges a group on this histogram's
# p95 against 1.3x its own baseline, and a p95 interpolated inside a 25-50 ms bucket would not
# move when the neighbours slow from 39 to 56 ms
BUCKETS = (0.0025, 0.005, 0.0075, 0.01, 0.015, 0.02, 0.025, 0.03, 0.035, 0.04, 0.045, 0.05, 0.06, 0.07, 0.08, 0.09, 0.1,
           0.12, 0.14, 0.16, 0.18, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5, 0.75, 1.0, 1.5, 2.5, 5.0, 10.0, 30.0)
_DOCS = {"docs_indexed": "indexed", "docs_rejected": "rejected", "docs_failed": "failed", "products_superseded": "superseded"}


class LoadMetrics:
    def __init__(self, run_id, scenario, version):
        r = self.registry = CollectorRegistry()
        self.duration = Histogram("tenantlab_load_request_duration_seconds",
                                  "Request latency from the intended start (open model) or the send (closed model)",
                                  ["scenario", "index_group", "query_type", "outcome"], buckets=BUCKETS, registry=r)
        self.arrivals = Counter("tenantlab_load_arrivals", "Open-model arrivals scheduled", ["scenario"], registry=r)
        self.late = Counter("tenantlab_load_late_arrivals", "Open-model arrivals started later than LATE_MS after their intended time", ["scenario"], registry=r)
        self.leaks = Counter("tenantlab_load_cross_tenant_hits", "Hits of another tenant than the one asked for", ["scenario", "index_group"], registry=r)
        self.checks = Counter("tenantlab_load_checks", "Checks of the answers", ["check", "result"], registry=r)
        self.docs = Counter("tenantlab_load_docs", "Documents written by the load, by result", ["scenario", "result"], registry=r)
        self.in_flight = Gauge("tenantlab_load_in_flight", "Requests in flight", ["scenario"], registry=r)
        info = Gauge("tenantlab_load_run_info", "The running load test", ["run_id", "scenario", "engine", "version"], registry=r)
        info.labels(run_id, scenario, "locust", version).set(1)
        self.server = None

    def serve(self, host, port):
        """Starts the endpoint; OSError (the port is taken) is the caller's to report."""
        self.server, _thread = start_http_server(port, addr=host, registry=self.registry)

    def close(self):
        if self.server is not None:
            self.server.shutdown()
            self.server = None

    def request(self, scenario, group, query_type, ok, seconds):
        self.duration.labels(scenario, group, query_type, "ok" if ok else "failed").observe(seconds)

    def count(self, metric, value, tags):
        scenario = tags.get("scenario", "")
        if metric == "arrivals":
            self.arrivals.labels(scenario).inc(value)
        elif metric == "late_arrivals":
            self.late.labels(scenario).inc(value)
        elif metric == "cross_tenant_hits":
            self.leaks.labels(scenario, tags.get("index_group") or "none").inc(value)
        elif metric in _DOCS:
            self.docs.labels(scenario, _DOCS[metric]).inc(value)
        elif metric == "products_written":
            self.docs.labels(scenario, "written").inc(value)

    def check(self, name, passed):
        self.checks.labels(name, "pass" if passed else "fail").inc()
