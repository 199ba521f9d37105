"""One load run as a locustfile declares it: its scenarios (open or closed model), its setup (the
tenants), its thresholds; and what every run does the same way: the Prometheus endpoint, the
web UI's Host and Origin check, a LoadTestShape that starts every user at once and ends the run
when the longest scenario is over and its requests in flight are answered, the verdict block and
summary.json, exit 0 (every threshold held), 99 (one breached) or 2 (bad input, lab not there).

    run = LoadRun("storefront", setup=..., thresholds=[...])
    run.open("storefront", rate=10, duration_s=60, work=page_view, cap=100)
    globals().update(run.locust_classes())      # Locust finds its users and shape here

SIGTERM ends a run as its end would: the shape stops at its next tick, the quitting event writes
summary.json and the exit code is the verdict's. (Locust installs its own SIGTERM handler only
after a headless shape run is over, so without this one a headless run told to stop dies of the
signal with nothing written: the experiment runner stops a burst's engine that outlives the
measured window this way.)

Two engines on one clock (a burst in a process of its own, traffic/experiment.py): the one that
measures is given t0_out, a file it writes its clock's start to (epoch seconds) as the test
starts; the other t0_in, the same file: it waits for it (T0_WAIT, 120 s) and schedules every
scenario from that start, so its start_s lands at the same instant as in the first.
"""
import json
import os
import signal
import sys
import time

import gevent
from locust import LoadTestShape, User, constant, events, task
from locust.runners import MasterRunner, WorkerRunner

from . import config
from .arrivals import DEFAULT_LATE_MS, Dispatcher
from .client import Pool
from .recorder import Recorder
from .summary import evaluate, text_summary

try:
    from importlib.metadata import version as _version
    LOCUST_VERSION = _version("locust")
except Exception:  # noqa: BLE001
    LOCUST_VERSION = "unknown"

MAX_FAILED = config.env_number("MAX_FAILED", 0.01)
MIN_CHECKS = config.env_number("MIN_CHECKS", 0.99)
MAX_LATE = config.env_number("MAX_LATE", 0.05)
LATE_MS = config.env_number("LATE_MS", DEFAULT_LATE_MS, minimum=1)
# a distributed worker's part of an open-model rate (Kubernetes: 1 / workers)
RATE_SHARE = config.env_number("LOAD_RATE_SHARE", 1.0, minimum=0.0001)
# how long an engine on another's clock (t0_in) waits for it before giving up
T0_WAIT_S = config.env_number("T0_WAIT", 120, minimum=1)


# what a closed scenario's work returns when there is nothing left to do (a replayed log's end)
STOP = object()


def fail_setup(message):
    """The run cannot start: one line on stderr, exit 2, nothing left running."""
    sys.stderr.write(f"load: error: {message}\n")
    sys.stderr.flush()
    os._exit(2)


def common_thresholds():
    """Failed requests below MAX_FAILED, checks above MIN_CHECKS, late arrivals below MAX_LATE of
    the arrivals, and not a single hit of another tenant."""
    return [("http_req_failed", "rate", "<", MAX_FAILED), ("checks", "rate", ">", MIN_CHECKS),
            ("late_arrivals", "share", "<", MAX_LATE), ("cross_tenant_hits", "count", "==", 0)]


class Scenario:
    def __init__(self, name, model, duration_s, start_s=0.0, **kw):
        self.name, self.model, self.duration_s, self.start_s = name, model, duration_s, start_s
        self.__dict__.update(kw)
        self.in_flight = 0
        self.done = False
        self.exhausted = False

    @property
    def end_s(self):
        return self.start_s + self.duration_s


class LoadRun:
    def __init__(self, scenario, setup=None, thresholds=(), drain_s=60.0, pool_size=100, network_timeout=30.0, t0_out=None, t0_in=None):
        self.scenario = scenario
        # the clock shared with another engine: written (t0_out) or waited for (t0_in)
        self.t0_out, self.t0_in = t0_out, t0_in
        self.setup_fn = setup
        self.thresholds = list(thresholds)
        self.drain_s = drain_s
        self.scenarios = []
        self.data = None
        # the stores routed to another group during the run (lib/routing.py), for summary.json
        self.routes = []
        # made at init (Locust's environment, the points file); a bare one until then
        self.recorder = Recorder()
        self.pool = Pool(concurrency=pool_size, network_timeout=network_timeout)
        self.environment = None
        self.metrics = None
        self.t0 = None
        self.finished = False
        # SIGTERM received: the shape ends the run at its next tick (_on_sigterm)
        self.stop_requested = False
        events.init.add_listener(self._on_init)
        events.test_start.add_listener(self._on_test_start)
        events.quitting.add_listener(self._on_quitting)

    # ---- declaring scenarios -----------------------------------------------------------------
    def open(self, name, rate, duration_s, work, cap=100, start_s=0.0, tags=None):
        """An open-model scenario: `rate` arrivals/s (a number, or a function of its own seconds)
        for duration_s, each one work(intended_start)."""
        r = (lambda t, f=rate: f(t) * RATE_SHARE) if callable(rate) else float(rate) * RATE_SHARE
        self.scenarios.append(Scenario(name, "open", duration_s, start_s, rate=r, work=work, cap=cap, tags=tags))

    def schedule(self, name, offsets, duration_s, work, cap=100):
        """An open-model scenario on a schedule of its own: arrival i at offsets[i] seconds,
        work(intended_start, i) (a replayed log at its own pace)."""
        self.scenarios.append(Scenario(name, "open", duration_s, 0.0, rate=None, offsets=offsets, work=work, cap=cap, tags=None))

    def closed(self, name, users, duration_s, work, think=None, start_s=0.0, ramp_s=0.0, iterations=None):
        """A closed-model scenario: `users` loops, each work(intended) then think() seconds, the
        i-th starting at start_s + ramp_s * i / users; iterations: each user stops after so many;
        work returning STOP ends the scenario for every user."""
        self.scenarios.append(Scenario(name, "closed", duration_s, start_s, users=users, work=work, think=think, ramp_s=ramp_s, iterations=iterations))

    def elapsed(self):
        return 0.0 if self.t0 is None else time.time() - self.t0

    # ---- Locust's view -----------------------------------------------------------------------
    def locust_classes(self):
        classes = {}
        for i, sc in enumerate(self.scenarios):
            cls = _open_user(self, sc) if sc.model == "open" else _closed_user(self, sc)
            classes[f"{sc.name.title().replace('_', '').replace('-', '')}{i}User"] = cls
        run = self

        class Shape(LoadTestShape):
            """Every user at once; the run ends when every scenario is over (and its requests in
            flight answered), or drain_s after the last scenario's end."""

            def tick(self):
                users = sum(1 if sc.model == "open" else sc.users for sc in run.scenarios)
                last = max((sc.end_s for sc in run.scenarios), default=0.0)
                t = self.get_run_time()
                over = all(sc.done or (sc.model == "closed" and t >= sc.end_s and sc.in_flight == 0) for sc in run.scenarios)
                if run.stop_requested or over or t >= last + run.drain_s + 5:
                    return None
                return users, max(1, users)

        classes["LoadShape"] = Shape
        return classes

    # ---- lifecycle ---------------------------------------------------------------------------
    def _on_init(self, environment, **_kw):
        self.environment = environment
        # where the shape runs (the only process, or the master): a worker has Locust's own handler
        if not isinstance(environment.runner, WorkerRunner):
            gevent.signal_handler(signal.SIGTERM, self._on_sigterm)
        if environment.web_ui:
            _guard_web_ui(environment)
        if isinstance(environment.runner, MasterRunner):
            return  # the master only coordinates: its workers send and count
        self.recorder = Recorder(environment, None, config.env("POINTS_FILE", "") or None)
        port = int(config.env_number("LOAD_METRICS_PORT", 0, integer=True))
        if port:
            from .metrics import LoadMetrics
            self.metrics = LoadMetrics(config.RUN_ID, self.scenario, LOCUST_VERSION)
            host = config.env("LOAD_METRICS_HOST", "127.0.0.1")
            try:
                self.metrics.serve(host, port)
            except OSError as err:
                fail_setup(f"the load's metrics port {host}:{port} cannot be opened ({err.strerror}): something else holds it; free it or set LOAD_METRICS_PORT")
        self.recorder.metrics = self.metrics
        if self.setup_fn:
            try:
                self.data = self.setup_fn(self)
            except config.ConfigError as err:
                fail_setup(str(err))
            except Exception as err:  # noqa: BLE001 - SetupError and the lab's answers
                fail_setup(str(err) if type(err).__name__ == "SetupError" else f"{type(err).__name__}: {err}")

    def _on_sigterm(self):
        # told to stop (the experiment runner, a supervisor): the run ends as at its end, its summary written
        if not self.stop_requested:
            self.stop_requested = True
            print("load: SIGTERM: stopping the run; its summary is written as at its end", flush=True)

    def _on_test_start(self, environment, **_kw):
        if self.t0 is not None:
            return
        if self.t0_in:
            gevent.spawn(self._await_t0)
            return
        self.t0 = time.time()
        self.recorder.start()
        if self.t0_out:
            write_t0(self.t0_out, self.t0)

    def _await_t0(self):
        """The other engine's clock: its start from t0_in, or exit 2 when it never comes."""
        deadline = time.time() + T0_WAIT_S
        while time.time() < deadline:
            t0 = read_t0(self.t0_in)
            if t0 is not None:
                self.t0 = t0
                self.recorder.start()
                return
            gevent.sleep(0.05)
        fail_setup(f"the measuring engine's clock ({self.t0_in}) did not come within {T0_WAIT_S:g} s: it did not start; its own output says why")

    def _on_quitting(self, environment, **_kw):
        if isinstance(environment.runner, MasterRunner) or self.finished:
            return
        self.finished = True
        self.recorder.stop()
        if self.metrics:
            self.metrics.close()
        summary = self.summary()
        sys.stdout.write(text_summary(summary, config.RESULTS_DIR_SHOWN))
        sys.stdout.flush()
        if config.RESULTS_DIR:
            with open(os.path.join(config.RESULTS_DIR, "summary.json"), "w") as f:
                json.dump(summary, f, indent=2)
                f.write("\n")
        environment.process_exit_code = 0 if summary["verdict"] == "PASS" else 99

    def summary(self):
        r = self.recorder
        metrics = r.summary_metrics()
        arrivals = r.counters.get("arrivals", 0)
        thresholds = evaluate(self.thresholds, metrics, {"late_arrivals": (r.counters.get("late_arrivals", 0), arrivals)})
        return {
            "engine": {"name": "locust", "version": LOCUST_VERSION},
            "run_id": config.RUN_ID, "scenario": self.scenario,
            "models": {sc.name: sc.model for sc in self.scenarios},
            "late_ms": LATE_MS,
            "state": {"testRunDurationMs": round(((r.ended_at or time.time()) - (r.started_at or time.time())) * 1000)},
            "metrics": metrics,
            "checks": [{"name": n, "passes": p, "fails": f} for n, (p, f) in r.checks.items()],
            "thresholds": thresholds,
            "verdict": "PASS" if all(t["ok"] for t in thresholds) else "FAIL",
            **({"routes": self.routes} if self.routes else {}),
        }


def write_t0(path, t0):
    """The clock's start (epoch seconds) in `path`, whole or not at all (a rename)."""
    tmp = f"{path}.tmp"
    with open(tmp, "w") as f:
        f.write(f"{t0:.6f}\n")
    os.replace(tmp, path)


def read_t0(path):
    """The clock's start another engine wrote to `path`, or None while there is none."""
    try:
        with open(path) as f:
            return float(f.read().strip())
    except (OSError, ValueError):
        return None


def _open_user(run, sc):
    class OpenUser(User):
        fixed_count = 1
        wait_time = constant(1)

        @task
        def dispatch(self):
            if sc.done or getattr(sc, "dispatcher", None):
                gevent.sleep(1)
                return
            if run.t0 is None and run.t0_in:
                gevent.sleep(0.05)  # the other engine's clock is not there yet
                return
            delay = run.t0 + sc.start_s - time.time() if run.t0 else sc.start_s
            if delay > 0:
                gevent.sleep(delay)
            sc.dispatcher = Dispatcher(sc.name, sc.rate or 1.0, sc.work, run.recorder, cap=sc.cap, late_ms=LATE_MS, tags=sc.tags or {"scenario": sc.name})
            sc.dispatcher.run(sc.duration_s, start=(run.t0 or time.time()) + sc.start_s, drain_s=run.drain_s, offsets=getattr(sc, "offsets", None))
            sc.done = True

    OpenUser.__name__ = f"{sc.name}-arrivals"
    return OpenUser


def _closed_user(run, sc):
    counter = {"n": 0}

    class ClosedUser(User):
        fixed_count = sc.users
        wait_time = constant(0)

        def on_start(self):
            self.index = counter["n"]
            counter["n"] += 1
            self.iterations = 0
            while run.t0 is None and run.t0_in:
                gevent.sleep(0.05)  # the other engine's clock is not there yet
            start = (run.t0 or time.time()) + sc.start_s + (sc.ramp_s * self.index / max(1, sc.users))
            if start > time.time():
                gevent.sleep(start - time.time())

        @task
        def loop(self):
            over = sc.exhausted or run.elapsed() >= sc.end_s or (sc.iterations is not None and self.iterations >= sc.iterations)
            if over:
                if sc.exhausted and sc.in_flight == 0:
                    sc.done = True
                gevent.sleep(0.5)
                return
            sc.in_flight += 1
            run.recorder.in_flight(sc.name, 1)
            try:
                if sc.work(time.time()) is STOP:
                    sc.exhausted = True
            except Exception as err:  # noqa: BLE001 - one failed iteration must not stop the user
                print(f"load: {sc.name}: {type(err).__name__}: {err}", flush=True)
            finally:
                sc.in_flight -= 1
                run.recorder.in_flight(sc.name, -1)
                self.iterations += 1
            if sc.think:
                gevent.sleep(sc.think())

    ClosedUser.__name__ = f"{sc.name}-users"
    return ClosedUser


def _guard_web_ui(environment):
    """The web UI answers only requests addressed to the lab's own loopback name and port (a
    rebinding Host is refused) and takes a state change (start, stop, reset) only from its own
    page (a foreign Origin is refused)."""
    from flask import request

    port = config.env("LOAD_UI_PORT", "") or str(environment.parsed_options.web_port if environment.parsed_options else 8089)
    hosts = {f"{h}:{port}" for h in ("127.0.0.1", "localhost", config.env("LAB_BIND", "127.0.0.1"))}
    origins = {f"http://{h}" for h in hosts}
    app = environment.web_ui.app

    @app.before_request
    def _check():
        if request.host not in hosts:
            return f"refused: Host {request.host} is not this lab's web UI ({sorted(hosts)[0]})\n", 421
        origin = request.headers.get("Origin")
        if request.method not in ("GET", "HEAD", "OPTIONS") and origin is not None and origin not in origins:
            return f"refused: Origin {origin} may not change this run\n", 403
        return None
