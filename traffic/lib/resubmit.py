"""A store's whole catalogue written back, by the allocator's write contract (allocator/README.md):
whole documents only (no _update), _id "<tenant>:<product>", version = updated_at in epoch ms with
version_type=external_gte; the current documents are read through the store's alias (never GET
_doc), searches carry its stats group. So the writes stay safe while the allocator moves the
store. Shared by the writes scenario (one pass, lib/scenarios.py) and the experiments' write-heavy
burst (a loop for the burst's length, experiment.py's BURST_KIND=resubmit), which is BigCommerce's
daily whole-catalogue re-submission."""
import json
import time
from datetime import datetime, timezone

import gevent

from . import config
from .checks import check_bulk, hit_tenant
from .client import NDJSON
from .contract import action_line, bulk_action
from .shop import search, tags_of


def epoch_ms(v):
    if isinstance(v, (int, float)):
        return int(v)
    try:
        return int(datetime.fromisoformat(str(v).replace("Z", "+00:00")).timestamp() * 1000)
    except ValueError:
        return 0


def touched(doc):
    """The document with a new updated_at (never older than what is stored), in the same format,
    and its version (that updated_at in epoch ms)."""
    now = max(int(time.time() * 1000), epoch_ms(doc.get("updated_at")) + 1)
    stamp = now if isinstance(doc.get("updated_at"), (int, float)) else \
        datetime.fromtimestamp(now / 1000, tz=timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    return {**doc, "updated_at": stamp}, now


def bulk(run, t, items, query_type, scenario, intended):
    """One _bulk through the alias of [(id, doc, version)], checked and counted: products_written,
    and products_superseded (409: a newer version was already stored, normal with external_gte)."""
    if not items:
        return
    body = "".join(f"{action_line(bulk_action(id=i, version=v))}\n{json.dumps(d, separators=(',', ':'))}\n" for i, d, v in items)
    tags = tags_of(t, query_type, scenario)
    a = run.pool.request("POST", f"{config.ES_URL}/{t['alias']}/_bulk", body, NDJSON, timeout=60)
    ended = time.time()
    parsed, failed = check_bulk(run.recorder, a, len(items))
    run.recorder.request(tags, intended, ended, a.status == 200, a.status, a.error, length=len(a.body), check_failed=failed)
    if parsed and parsed.get("items"):
        conflicts = sum(1 for x in parsed["items"] if (x.get("index") or {}).get("status") == 409)
        run.recorder.count("products_written", len(parsed["items"]) - conflicts, tags)
        if conflicts:
            run.recorder.count("products_superseded", conflicts, tags)


def own_hits(t, hits):
    """The hits that are the store's own documents (its id prefix and its store_id): a write never
    goes to a document of another tenant, whatever a search answered (the cross-tenant check
    counts such a hit)."""
    prefix = f"{t['id']}:"
    return [h for h in hits if str(h.get("_id", "")).startswith(prefix) and hit_tenant(h) == t["id"]]


def resubmit_page(run, t, cursor, bulk_size, scenario, until_s=None):
    """The next page of a catalogue pass: up to bulk_size documents read through the store's alias
    (sorted by product_id, search_after the cursor's last page), each written back whole with a
    new updated_at. cursor: {"after": sort values or None}, advanced here. until_s: a page read
    after this time of the run is not written (the burst is over). -> the documents read (0: the
    pass is over, or the time is), None when the read failed."""
    q = {"size": bulk_size, "sort": [{"product_id": "asc"}], "query": {"match_all": {}}}
    if cursor.get("after"):
        q["search_after"] = cursor["after"]
    body = search(run, t, q, "scan", tags_of(t, "scan", scenario), time.time())
    if body is None:
        return None
    hits = body.get("hits", {}).get("hits", [])
    if not hits or (until_s is not None and run.elapsed() >= until_s):
        return 0
    items = []
    for h in own_hits(t, hits):
        doc, version = touched(h["_source"])
        items.append((h["_id"], doc, version))
    bulk(run, t, items, "bulk_resubmit", scenario, time.time())
    cursor["after"] = hits[-1].get("sort")
    return len(hits)


class Resubmitter:
    """One store's whole catalogue re-submitted in a loop until `until_s` seconds into the run, by
    `writers` concurrent loops (a closed scenario of that many users calls step()). Each loop has
    a cursor of its own and starts a new pass when its last one ends; loops on the same documents
    supersede each other's older versions (409s, counted), as concurrent re-submissions do."""

    def __init__(self, run, t, writers, bulk_size, scenario, until_s):
        self.run, self.t, self.bulk_size, self.scenario, self.until_s = run, t, bulk_size, scenario, until_s
        self.free = [{"after": None, "pages": 0} for _ in range(writers)]
        self.passes = 0

    def step(self, _intended):
        # one cursor per loop in flight: a closed user takes one, writes its next page, puts it back
        cursor = self.free.pop(0) if self.free else {"after": None, "pages": 0}
        try:
            n = resubmit_page(self.run, self.t, cursor, self.bulk_size, self.scenario, self.until_s)
            if n is None:
                # a failed read (counted as a failed request): this loop starts its pass again,
                # after a pause so an unanswering cluster is not hammered
                cursor.update(after=None, pages=0)
                gevent.sleep(1.0)
            elif self.run.elapsed() < self.until_s:
                if n:
                    cursor["pages"] += 1
                if n == 0 and cursor["pages"] == 0:
                    gevent.sleep(1.0)  # an empty catalogue: nothing to write, no need to spin
                elif n < self.bulk_size:
                    self.passes += 1
                    print(f"burst: a pass over the catalogue of {self.t['id']} done ({cursor['pages']} bulks of up to {self.bulk_size})", flush=True)
                    cursor.update(after=None, pages=0)
        finally:
            self.free.append(cursor)


def settings():
    """The write burst's settings (experiment.py): BURST_KIND bot|resubmit (default bot),
    BURST_WRITERS concurrent loops (1..8, default 2), BURST_BULK documents a bulk (10..5000,
    default 500), as the spec's burst kind, writers and bulk_size. ConfigError naming the variable."""
    return {
        "kind": config.env_choice("BURST_KIND", "bot", ("bot", "resubmit")),
        "writers": config.env_number("BURST_WRITERS", 2, minimum=1, maximum=8, integer=True),
        "bulk_size": config.env_number("BURST_BULK", 500, minimum=10, maximum=5000, integer=True),
    }
