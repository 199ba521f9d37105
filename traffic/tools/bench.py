"""make bench-load: what the load engine can do on this machine and what it costs, measured
against the running lab (traffic/bench.sh checks the lab and runs this with the engine's Python).

  1. the storefront, open model, at each of BENCH_RATES page views/s (BENCH_STEP each): requests/s
     held, p95, late arrivals, the generator's own CPU as a share of the machine (utime + stime
     of the Locust process from /proc, over the run after its setup, / wall time / CPUs);
     sustained = every threshold held and < 1% of the arrivals late;
  2. an ingest window (the ingest experiments' workload: BENCH_INGEST_CLIENTS clients of
     1,000-document bulks into a scratch index, deleted after): the generator's CPU there;
  3. latency agreement at the default rate: per search, the engine's latency minus
     Elasticsearch's own `took` (the rest is loopback, HTTP, JSON and the generator), median
     and p95, and that p95 against the storefront's p95.
Writes $LAB_DIR/results/<ts>-bench-load/bench-load.json and prints a table; BENCH_SAVE=FILE also
writes the JSON there (traffic/bench/bench-load.json is the committed run the README reads)."""
import json
import os
import random
import subprocess
import sys
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
# the locustfiles are the engine's, one folder up (tools/ holds what runs them)
TRAFFIC = os.path.dirname(HERE)
LOCUST = os.environ["LOCUST_BIN"]
OUT = os.environ["BENCH_DIR"]
RATES = [float(r) for r in os.environ.get("BENCH_RATES", "10 50 100 200 300 400 600 800").split()]
STEP = os.environ.get("BENCH_STEP", "20s")
CPUS = os.cpu_count() or 1
HZ = os.sysconf("SC_CLK_TCK")
ES = os.environ["ES_URL"]


def ticks(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(") ", 1)[1].split()
        return int(fields[11]) + int(fields[12])
    except (OSError, IndexError):
        return None


def run_locust(name, locustfile, env, settle_s=3.0):
    """Runs one headless locustfile; returns (exit code, summary, generator CPU % of the machine
    from settle_s after start to the end, i.e. after the tenants' profiling)."""
    d = os.path.join(OUT, name)
    os.makedirs(d, exist_ok=True)
    e = {**os.environ, **env, "RESULTS_DIR": d, "RUN_ID": f"bench-load-{name}", "LOAD_METRICS_PORT": "0"}
    with open(os.path.join(d, "locust.log"), "w") as log:
        p = subprocess.Popen([LOCUST, "-f", os.path.join(TRAFFIC, locustfile), "--headless", "--only-summary", "--loglevel", "WARNING"],
                             env=e, stdout=log, stderr=subprocess.STDOUT)
        start = time.time()
        first = last = None
        while p.poll() is None:
            t = ticks(p.pid)
            now = time.time()
            if t is not None:
                if first is None and now - start >= settle_s:
                    first = (t, now)
                last = (t, now)
            time.sleep(0.5)
    cpu = None
    if first and last and last[1] > first[1]:
        cpu = 100.0 * (last[0] - first[0]) / HZ / ((last[1] - first[1]) * CPUS)
    try:
        with open(os.path.join(d, "summary.json")) as f:
            summary = json.load(f)
    except (OSError, ValueError):
        # an engine that wrote nothing is a broken benchmark, not a rate of 0: one line, non-zero
        engine_failed(locustfile, name, "wrote no summary", p.returncode)
    return p.returncode, summary, cpu


def engine_failed(locustfile, name, what, rc):
    """Ends the benchmark in one line: the engine's run NAME did not do what a figure needs."""
    sys.exit(f"bench-load: the load engine ({locustfile}, {name}) {what} (exit {rc}): see {os.path.join(OUT, name, 'locust.log')}")


def metric(summary, name, stat):
    return ((summary or {}).get("metrics", {}).get(name) or {}).get("values", {}).get(stat)


def rates():
    rows = []
    for rate in RATES:
        rc, s, cpu = run_locust(f"rate-{rate:g}", "storefront.py", {"RATE": f"{rate:g}", "DURATION": STEP, "POINTS_FILE": os.path.join(OUT, f"rate-{rate:g}", "points.csv")})
        # a summary of no request is an engine that did not run, not a rate the lab missed
        if not metric(s, "http_reqs", "count"):
            engine_failed("storefront.py", f"rate-{rate:g}", "sent no request", rc)
        arrivals = metric(s, "arrivals", "count") or 0
        late = metric(s, "late_arrivals", "count") or 0
        row = {"rate": rate, "exit": rc, "rps": metric(s, "http_reqs", "rate"), "p95_ms": metric(s, "http_req_duration{scenario:storefront}", "p(95)"),
               "p99_ms": metric(s, "http_req_duration{scenario:storefront}", "p(99)"), "failed": metric(s, "http_req_failed", "rate"),
               "arrivals": arrivals, "late": late, "late_share": late / arrivals if arrivals else None, "generator_cpu_percent": cpu}
        row["sustained"] = rc == 0 and row["late_share"] is not None and row["late_share"] < 0.01
        rows.append(row)
        print(f"{rate:8g} {row['rps'] or 0:10.1f} {row['p95_ms'] or 0:9.1f} {row['p99_ms'] or 0:9.1f} {100 * (row['late_share'] or 0):7.2f}% "
              f"{'-' if cpu is None else f'{cpu:.1f}':>7}%  {'sustained' if row['sustained'] else f'NOT sustained (exit {rc})'}", flush=True)
    return rows


def es(method, path, body=None):
    req = urllib.request.Request(f"{ES}{path}", data=json.dumps(body).encode() if body is not None else None, method=method,
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=60) as r:
        return json.load(r)


def ingest():
    """The ingest workload on a scratch index of one shard, no replica; deleted after."""
    index = f"bench-ingest-{int(time.time())}"
    bodies = os.path.join(OUT, "ingest-bodies")
    os.makedirs(bodies, exist_ok=True)
    rnd = random.Random(7)
    for i in range(4):
        with open(os.path.join(bodies, f"bulk-{i:03d}.ndjson"), "w") as f:
            for j in range(1000):
                f.write('{"index":{}}\n')
                f.write(json.dumps({"@timestamp": 1735689600000 + i * 1000 + j, "level": rnd.choice(["info", "warn", "error"]),
                                    "service": f"svc-{rnd.randrange(20)}", "message": " ".join(rnd.choice(["request", "served", "cache", "miss", "user", "order", "paid"]) for _ in range(12)),
                                    "latency_ms": rnd.randrange(1, 900)}) + "\n")
    es("PUT", f"/{index}", {"settings": {"number_of_shards": 1, "number_of_replicas": 0}})
    try:
        clients = os.environ.get("BENCH_INGEST_CLIENTS", "4")
        rc, s, cpu = run_locust("ingest", "ingest.py", {"INDEX": index, "CLIENTS": clients, "DOCS_PER_BULK": "1000", "BODIES_DIR": bodies,
                                                        "BODIES_COUNT": "4", "RAMP_UP": "2s", "WARMUP": "3s", "MEASURE": STEP}, settle_s=1.0)
        if not metric(s, "http_reqs{scenario:measure}", "count"):
            engine_failed("ingest.py", "ingest", "sent no bulk in the measured window", rc)
        indexed = metric(s, "docs_indexed{scenario:measure}", "count") or 0
        measure_s = int(STEP.rstrip("s")) if STEP.endswith("s") and STEP[:-1].isdigit() else None
        row = {"clients": int(clients), "exit": rc, "docs_per_s": indexed / measure_s if measure_s else None,
               "bulks": metric(s, "http_reqs{scenario:measure}", "count"), "docs_indexed": indexed, "generator_cpu_percent": cpu}
        print(f"ingest: {clients} clients, {indexed} documents indexed in the measured window, generator CPU "
              f"{'-' if cpu is None else f'{cpu:.1f}'}% of the machine", flush=True)
        return row
    finally:
        es("DELETE", f"/{index}")


def agreement(rows):
    """Engine latency minus ES took, per search, at the first (default) rate."""
    first = rows[0]
    name = f"rate-{first['rate']:g}"
    diffs, took = [], []
    try:
        with open(os.path.join(OUT, name, "points.csv")) as f:
            for line in f:
                c = line.rstrip("\n").split(",")
                if len(c) >= 5 and c[4]:
                    diffs.append(float(c[1]) - float(c[4]))
                    took.append(float(c[4]))
    except OSError:
        pass
    # the engine answered searches (rates() checked) but kept no latency with its `took`
    if not diffs:
        engine_failed("storefront.py", name, "kept no search's latency beside Elasticsearch's took (points.csv)", first["exit"])
    diffs.sort()
    took.sort()
    q = lambda xs, p: xs[min(len(xs) - 1, max(0, -(-p * len(xs) // 100) - 1))] if xs else None  # noqa: E731
    out = {"rate": first["rate"], "searches": len(diffs), "overhead_median_ms": q(diffs, 50), "overhead_p95_ms": q(diffs, 95),
           "took_p95_ms": q(took, 95), "engine_p95_ms": first["p95_ms"]}
    out["overhead_p95_share_of_p95"] = out["overhead_p95_ms"] / first["p95_ms"] if diffs and first["p95_ms"] else None
    print(f"latency agreement at {first['rate']:g}/s: engine minus ES took, median {out['overhead_median_ms']:.1f} ms, "
          f"p95 {out['overhead_p95_ms']:.1f} ms ({len(diffs)} searches; ES took p95 {out['took_p95_ms']:.0f} ms, engine p95 {first['p95_ms']:.0f} ms)", flush=True)
    return out


def main():
    print(f"bench-load: storefront, open model, {STEP} per rate, {CPUS} CPUs; results in {OUT}", flush=True)
    print(f"{'rate':>8} {'req/s':>10} {'p95 ms':>9} {'p99 ms':>9} {'late':>8} {'gen CPU':>8}  verdict", flush=True)
    rows = rates()
    ing = ingest()
    agree = agreement(rows)
    held = [r for r in rows if r["sustained"]]
    best = max(held, key=lambda r: r["rate"]) if held else None
    result = {"machine": {"cpus": CPUS, "cpu_model": next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "")},
              "engine": {"name": "locust", "version": (json.load(open(os.path.join(OUT, f"rate-{rows[0]['rate']:g}", "summary.json")))["engine"]["version"])},
              "step": STEP, "rates": rows, "ingest": ing, "agreement": agree, "highest_sustained_rate": best["rate"] if best else None,
              "measured_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    path = os.path.join(OUT, "bench-load.json")
    for p in filter(None, [path, os.environ.get("BENCH_SAVE")]):
        with open(p, "w") as f:
            json.dump(result, f, indent=2)
            f.write("\n")
    print()
    if not best:
        print(f"bench-load: no rate sustained (the lowest, {RATES[0]:g}/s, breached a threshold or ran late): see {OUT}")
        return 1
    print(f"highest sustained storefront rate: {best['rate']:g} page views/s (p95 {best['p95_ms']:.0f} ms, {100 * best['late_share']:.2f}% late)")
    if best["rate"] == RATES[-1]:
        print("(the highest rate tried: raise BENCH_RATES to find the limit)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
