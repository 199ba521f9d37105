"""replay: a query log replayed against the tenant aliases, each query with its tenant's stats
group, checked (status, facets when asked, no cross-tenant hit). The log is read in its one home:
traffic/run.sh has packages/contract/bin/replay-prepare translate it and write the request plan
this file sends (LOG=<run>/plan.ndjson: packages/contract/src/replay-prep.js replayPlan).

    SPEED=1            the log's own pace times SPEED (open model: a query is sent at its time,
                       whatever the earlier ones are doing; latency from that time)
    SPEED=max          as fast as REPLAY_VUS (10) concurrent searches go (closed model)
    BAD_LINES=skip|stop a malformed line, or a tenant the allocator does not know, is reported
                       with its line number, then skipped (default) or stops the run (exit 2)
    DURATION=          upper bound (default: the log's span / SPEED + 30s, at most LOAD_MAX_DURATION)

    make replay LOG=queries.log SPEED=4
"""
import json
import math
import time

from lib import config
from lib.checks import check_search
from lib.client import JSON
from lib.run import STOP, LoadRun, common_thresholds
from lib.tenants import SetupError, allocator_tenants

LOG = config.env("LOG", "")
LOG_SHOWN = config.env("LOG_SHOWN", LOG)
SPEED_RAW = str(config.env("SPEED", "1")).lower()
FAST = SPEED_RAW in ("max", "fast")
SPEED = 0 if FAST else config.env_number("SPEED", 1, minimum=0.001)
BAD_LINES = config.env("BAD_LINES", "skip")
REPLAY_VUS = config.env_number("REPLAY_VUS", 10, minimum=1, integer=True)
P95_REPLAY_MS = config.env_number("P95_REPLAY_MS", 1000)
MAX_S = config.env_seconds("LOAD_MAX_DURATION", "1h")
ALIAS = config.env("ALIAS", "")


def read_plan():
    if not LOG:
        raise config.ConfigError("replay: LOG= is required (the request plan traffic/run.sh prepares from a query log)")
    try:
        with open(LOG) as f:
            header = json.loads(f.readline())
            entries = [json.loads(line) for line in f if line.strip()]
    except (OSError, ValueError) as err:
        raise config.ConfigError(f"replay: cannot read the plan {LOG} ({err}): run it through make replay") from None
    errors = header.get("errors") or []
    if errors:
        if BAD_LINES == "stop":
            raise config.ConfigError(f"replay: {LOG_SHOWN} {errors[0]}{f' (and {len(errors) - 1} more malformed line(s))' if len(errors) > 1 else ''}; stopping (BAD_LINES=stop)")
        for e in errors[:20]:
            print(f"replay: {LOG_SHOWN} {e}: skipped (BAD_LINES=skip)", flush=True)
        if len(errors) > 20:
            print(f"replay: {LOG_SHOWN}: ... and {len(errors) - 20} more malformed line(s) skipped", flush=True)
    if not entries:
        raise config.ConfigError(f"replay: {LOG_SHOWN}: no query to replay")
    return entries, errors


ENTRIES, ERRORS = read_plan() if config.env("BAD_LINES", "skip") in ("skip", "stop") else ([], [])
SPAN_S = ENTRIES[-1]["at_ms"] / 1000 if ENTRIES else 0
BOUND_S = config.env_seconds("DURATION", f"{min(MAX_S, 600 if FAST else math.ceil(SPAN_S / (SPEED or 1)) + 30)}s")


def setup(run):
    if BAD_LINES not in ("skip", "stop"):
        raise config.ConfigError(f"BAD_LINES={BAD_LINES}: want skip or stop")
    known = {t["id"]: t for t in allocator_tenants(run.pool)}
    missing = {}
    for e in ENTRIES:
        if e["tenant"] not in known:
            missing.setdefault(e["tenant"], e["line"])
    if missing:
        shown = ", ".join(f"line {n}: tenant '{i}'" for i, n in list(missing.items())[:10])
        if BAD_LINES == "stop":
            raise SetupError(f"replay: {len(missing)} tenant(s) of the log unknown to the allocator ({shown}): BAD_LINES=stop")
        print(f"replay: {len(missing)} tenant(s) of the log unknown to the allocator, their queries are skipped ({shown})", flush=True)
    print(f"replay: {len(ENTRIES)} queries of {LOG_SHOWN}{f', {len(ERRORS)} malformed line(s) skipped' if ERRORS else ''}, "
          + ("as fast as possible" if FAST else f"span {SPAN_S:.1f}s at SPEED={SPEED:g}") + f", {REPLAY_VUS} at a time at most", flush=True)
    return {"tenants": known}


def send(i, intended):
    e = ENTRIES[i]
    t = run.data["tenants"].get(e["tenant"])
    if not t:
        run.recorder.count("replay_skipped", 1, {"scenario": "replay"})
        return
    tags = {"scenario": "replay", "index_group": t.get("group") or "none", "query_type": e["type"]}
    a = run.pool.request("POST", f"{config.ES_URL}/{ALIAS or e['index']}/_search", json.dumps(e["body"]), JSON)
    ended = time.time()
    body, failed = check_search(run.recorder, a, t["id"], tags, aggs=e["aggs"])
    run.recorder.request(tags, intended, ended, a.status == 200, a.status, a.error, length=len(a.body), check_failed=failed)
    if body:
        run.recorder.count("replay_hits", len(body.get("hits", {}).get("hits", [])), tags)


run = LoadRun("replay", setup=setup, thresholds=common_thresholds() + [("http_req_duration{scenario:replay}", "p(95)", "<", P95_REPLAY_MS)])
if FAST:
    cursor = iter(range(len(ENTRIES)))

    def next_query(intended):
        i = next(cursor, None)
        if i is None:
            return STOP
        send(i, intended)
    run.closed("replay", min(REPLAY_VUS, max(1, len(ENTRIES))), BOUND_S, next_query)
else:
    run.schedule("replay", [e["at_ms"] / 1000 / SPEED for e in ENTRIES], BOUND_S, lambda intended, i: send(i, intended), cap=REPLAY_VUS * 10)
globals().update(run.locust_classes())
