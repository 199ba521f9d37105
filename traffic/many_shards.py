"""many_shards: the workload of the many-shards experiment (experiments/runner runs it, one
Locust process per repetition), after Elastic's nightly many-shards benchmark: CLIENTS clients
(closed model) create INDICES indices of one primary shard and no replica between them
(INDEX_PREFIX1..N), each with the document profile's mapping, and index DOCS_PER_INDEX documents
into each right after creating it. One window, `measure`: it ends when every index is made (or
at MEASURE, a bound). Counted: indices_created, indices_failed, docs_indexed, docs_failed; each
request is tagged op=create|bulk, so the summary has the creation latency apart from the bulks'."""
import json
import re
import time

from lib import config
from lib.checks import BULK_QUERY, bulk_items
from lib.client import JSON, NDJSON
from lib.run import STOP, LoadRun

MEASURE = config.env_seconds("MEASURE", "10m")
CLIENTS = config.env_number("CLIENTS", 8, minimum=1, integer=True)
INDICES = config.env_number("INDICES", 100, minimum=1, integer=True)
PREFIX = config.env("INDEX_PREFIX", "")
DOCS_PER_INDEX = config.env_number("DOCS_PER_INDEX", 100, minimum=1, integer=True)


def setup(run):
    if not re.match(r"^[a-z0-9][a-z0-9._-]*$", PREFIX):
        raise config.ConfigError(f"INDEX_PREFIX={PREFIX}: want the prefix of the indices to create")
    try:
        with open(config.env("BODIES_FILE", "")) as f:
            fixture = json.load(f)
    except (OSError, ValueError) as err:
        raise config.ConfigError(f"BODIES_FILE: cannot read it as JSON ({err})") from None
    if not isinstance(fixture.get("index"), str) or not fixture.get("bulks"):
        raise config.ConfigError("BODIES_FILE: want { index: <create body>, bulks: [<bulk bodies>] }")
    urls = [config.checked_url(f"ES_URLS[{i}]", u, config.ES_EXTERNAL) for i, u in enumerate(u for u in config.env("ES_URLS", config.ES_URL).split(",") if u)]
    return {"urls": urls, "index": fixture["index"], "bulks": fixture["bulks"], "next": 0}


def index_one(intended):
    d = run.data
    i = d["next"]
    if i >= INDICES:
        return STOP
    d["next"] += 1
    url = d["urls"][i % len(d["urls"])]
    name = f"{PREFIX}{i + 1}"
    tags = {"scenario": "measure", "op": "create", "query_type": "create", "index_group": "none"}
    a = run.pool.request("PUT", f"{url}/{name}?filter_path=acknowledged", d["index"], JSON, timeout=120)
    run.recorder.request(tags, intended, time.time(), a.status == 200, a.status, a.error, name="many_shards create")
    if a.status != 200:
        run.recorder.count("indices_failed", 1, tags)
        return None
    run.recorder.count("indices_created", 1, tags)
    tags = {**tags, "op": "bulk", "query_type": "bulk"}
    start = time.time()
    b = run.pool.request("POST", f"{url}/{name}/_bulk{BULK_QUERY}", d["bulks"][i % len(d["bulks"])], NDJSON, timeout=120)
    run.recorder.request(tags, start, time.time(), b.status in (200, 429), b.status, b.error, name="many_shards bulk")
    indexed, rejected, failed = bulk_items(b, DOCS_PER_INDEX)
    run.recorder.count("docs_indexed", indexed, tags)
    run.recorder.count("docs_failed", rejected + failed, tags)
    return None


run = LoadRun("many_shards", setup=setup, thresholds=[], pool_size=max(8, CLIENTS * 2), network_timeout=120.0, drain_s=30.0)
run.closed("clients", min(CLIENTS, INDICES), MEASURE, index_one)
globals().update(run.locust_classes())
