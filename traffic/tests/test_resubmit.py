"""The write-heavy burst (lib/resubmit.py): its settings from the environment, and the catalogue
written back through the store's alias only, whole, with external_gte versions, until the burst's
end. Against a fake cluster: no Elasticsearch needed."""
import json

import pytest

from lib import resubmit
from lib.client import Answer
from lib.config import ConfigError
from lib.recorder import Recorder

STORE = {"id": "s1", "alias": "tenant-s1", "group": "g1", "set": "target"}


class FakeAlias:
    """The store's alias: a catalogue sorted by product_id, searched with search_after; bulks are
    kept, every item answered 201 but the ids in `superseded` (409)."""

    def __init__(self, products, foreign=None, superseded=()):
        self.docs = [{"_id": f"s1:{p}", "_source": {"store_id": "s1", "product_id": p, "updated_at": "2026-01-01T00:00:00.000Z"}, "sort": [p]} for p in range(products)]
        self.foreign = foreign  # a hit of another store, slipped into the first page
        self.superseded = set(superseded)
        self.urls = []
        self.bulks = []

    def request(self, method, url, body=b"", headers=None, timeout=None):
        self.urls.append(url)
        if url.endswith("/_search"):
            q = json.loads(body)
            after = (q.get("search_after") or [-1])[0]
            hits = [d for d in self.docs if d["sort"][0] > after][: q["size"]]
            if self.foreign and after == -1:
                hits = [self.foreign] + hits
            return Answer(200, json.dumps({"hits": {"hits": hits}}).encode())
        lines = body.strip().split("\n")
        actions = [json.loads(x) for x in lines[0::2]]
        docs = [json.loads(x) for x in lines[1::2]]
        self.bulks.append(list(zip(actions, docs)))
        items = [{"index": {"_id": a["index"]["_id"], "status": 409 if a["index"]["_id"] in self.superseded else 201}} for a in actions]
        return Answer(200, json.dumps({"errors": False, "items": items}).encode())


class FakeRun:
    def __init__(self, pool, clock=0.0):
        self.pool, self.recorder, self.clock = pool, Recorder(), clock

    def elapsed(self):
        return self.clock


def test_settings_from_the_environment(monkeypatch):
    for k in ("BURST_KIND", "BURST_WRITERS", "BURST_BULK"):
        monkeypatch.delenv(k, raising=False)
    assert resubmit.settings() == {"kind": "bot", "writers": 2, "bulk_size": 500}
    monkeypatch.setenv("BURST_KIND", "resubmit")
    monkeypatch.setenv("BURST_WRITERS", "4")
    monkeypatch.setenv("BURST_BULK", "1000")
    assert resubmit.settings() == {"kind": "resubmit", "writers": 4, "bulk_size": 1000}
    for key, bad, said in (("BURST_KIND", "flood", "BURST_KIND=flood: want one of bot, resubmit"),
                           ("BURST_WRITERS", "9", "BURST_WRITERS=9: want a whole number from 1 to 8"),
                           ("BURST_WRITERS", "1.5", "BURST_WRITERS=1.5: want a whole number from 1 to 8"),
                           ("BURST_BULK", "5", "BURST_BULK=5: want a whole number from 10 to 5000")):
        monkeypatch.setenv(key, bad)
        with pytest.raises(ConfigError) as err:
            resubmit.settings()
        assert str(err.value) == said
        monkeypatch.setenv(key, {"BURST_KIND": "resubmit", "BURST_WRITERS": "2", "BURST_BULK": "500"}[key])


def test_a_pass_writes_the_whole_catalogue_back_through_the_alias_only():
    foreign = {"_id": "s2:7", "_source": {"store_id": "s2", "product_id": 7}, "sort": [-1]}
    alias = FakeAlias(25, foreign=foreign, superseded={"s1:3"})
    run = FakeRun(alias)
    w = resubmit.Resubmitter(run, STORE, writers=1, bulk_size=10, scenario="burst", until_s=100)
    for _ in range(3):
        w.step(0)
    assert w.passes == 1
    # every request through the store's alias; only its own documents written, each whole
    assert all("/tenant-s1/" in u for u in alias.urls)
    written = [(a["index"], d) for bulk in alias.bulks for a, d in bulk]
    assert sorted(a["_id"] for a, _ in written) == sorted(f"s1:{p}" for p in range(25))
    for a, d in written:
        assert a["version_type"] == "external_gte"
        assert d["store_id"] == "s1" and "product_id" in d
        assert resubmit.epoch_ms(d["updated_at"]) == a["version"] > resubmit.epoch_ms("2026-01-01T00:00:00.000Z")
    # counted like the writes scenario: written, and superseded by a newer version (409)
    c = run.recorder.counters
    assert (c["products_written{scenario:burst}"], c["products_superseded{scenario:burst}"]) == (24, 1)
    # the foreign hit is the cross-tenant check's to count
    assert c["cross_tenant_hits"] == 1
    # the next step starts a new pass from the first page
    w.step(0)
    assert alias.bulks[-1][0][0]["index"]["_id"] == "s1:0"


def test_the_writer_stops_at_the_end_of_the_burst():
    alias = FakeAlias(25)
    run = FakeRun(alias, clock=50)
    w = resubmit.Resubmitter(run, STORE, writers=2, bulk_size=10, scenario="burst", until_s=50)
    w.step(0)
    assert alias.bulks == [], "a page read after the burst's end is not written"
    run.clock = 10
    w.step(0)
    w.step(0)
    assert len(alias.bulks) == 2 and len(w.free) == 2, "two loops, each with its own cursor"
    assert [b[0][0]["index"]["_id"] for b in alias.bulks] == ["s1:0", "s1:0"]
