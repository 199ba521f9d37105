"""ingest: the write workload of the ingest experiments (experiments/runner runs it, one Locust
process per repetition), as the Azure ingestion guidance's JMeter test ran it: CLIENTS concurrent
clients (closed model), each sending one bulk after the other with no think time, every bulk
DOCS_PER_BULK documents into INDEX, the clients spread over the data nodes (ES_URLS, as the
guidance's load balancer did). Two windows, tagged by each bulk's start:
  warmup   the clients start one by one over RAMP_UP, then hold for WARMUP: discarded
  measure  MEASURE with every client; a bulk in flight when it ends is waited for and counted
The bulk bodies are made by the runner (BODIES_DIR/bulk-000.ndjson...), so the engine spends
its CPU sending, not generating; each client takes turns over a few of its own; each document
gets its id from Elasticsearch. Every bulk's items are counted, never retried (lib/checks.py
bulk_items): docs_indexed, docs_rejected (429), docs_failed; bulks_rejected."""
import os
import re
import time

from lib import config
from lib.checks import BULK_QUERY, bulk_items
from lib.client import NDJSON
from lib.run import LoadRun

RAMP_UP = config.env_seconds("RAMP_UP", "5s")
WARMUP = config.env_seconds("WARMUP", "10s")
MEASURE = config.env_seconds("MEASURE", "30s")
CLIENTS = config.env_number("CLIENTS", 4, minimum=1, integer=True)
DOCS_PER_BULK = config.env_number("DOCS_PER_BULK", 1000, minimum=1, integer=True)
INDEX = config.env("INDEX", "")
BODIES_DIR = config.env("BODIES_DIR", "")
BODIES_COUNT = config.env_number("BODIES_COUNT", 1, minimum=1, integer=True)
PER_CLIENT = 4
WARM_S = RAMP_UP + WARMUP


def setup(run):
    if not re.match(r"^[a-z0-9][a-z0-9._-]*$", INDEX):
        raise config.ConfigError(f"INDEX={INDEX}: want the name of the index to write to")
    urls = [config.checked_url(f"ES_URLS[{i}]", u, config.ES_EXTERNAL) for i, u in enumerate(u for u in config.env("ES_URLS", config.ES_URL).split(",") if u)]
    bodies = []
    for c in range(CLIENTS):
        mine = []
        for j in range(min(PER_CLIENT, BODIES_COUNT)):
            path = os.path.join(BODIES_DIR, f"bulk-{(c * PER_CLIENT + j) % BODIES_COUNT:03d}.ndjson")
            try:
                with open(path, "rb") as f:
                    mine.append(f.read())
            except OSError as err:
                raise config.ConfigError(f"BODIES_DIR: cannot read {path} ({err.strerror})") from None
        bodies.append(mine)
    return {"urls": urls, "bodies": bodies, "next": 0, "turn": [0] * CLIENTS}


def bulk(intended):
    d = run.data
    client = d["next"] % CLIENTS
    d["next"] += 1
    body = d["bodies"][client][d["turn"][client] % len(d["bodies"][client])]
    d["turn"][client] += 1
    tags = {"scenario": "warmup" if intended - run.t0 < WARM_S else "measure", "query_type": "bulk", "index_group": "none"}
    a = run.pool.request("POST", f"{d['urls'][client % len(d['urls'])]}/{INDEX}/_bulk{BULK_QUERY}", body, NDJSON, timeout=120)
    ended = time.time()
    indexed, rejected, failed = bulk_items(a, DOCS_PER_BULK)
    # a 429 is an answer the figures count (rejections), not a failed request of the generator
    run.recorder.request(tags, intended, ended, a.status in (200, 429), a.status, a.error, name="ingest bulk", length=len(a.body))
    run.recorder.count("docs_indexed", indexed, tags)
    run.recorder.count("docs_rejected", rejected, tags)
    run.recorder.count("docs_failed", failed, tags)
    if a.status == 429:
        run.recorder.count("bulks_rejected", 1, tags)


run = LoadRun("ingest", setup=setup, thresholds=[], pool_size=max(8, CLIENTS * 2), network_timeout=120.0)
run.closed("clients", CLIENTS, WARM_S + MEASURE, bulk, ramp_s=RAMP_UP)
globals().update(run.locust_classes())
