"""The checks every scenario makes of its answers, counted in the summary (status 200, facets
present, product found, bulk items stored) and the one rule that must never break: every hit
belongs to the tenant asked for (a cross-tenant hit fails the run, whatever else held)."""
import json


def parse(answer):
    if answer.status != 200:
        return None
    try:
        return json.loads(answer.body)
    except ValueError:
        return None


def hit_tenant(hit):
    """The tenant a hit belongs to: its store_id, else the "<tenant>:" prefix of its _id."""
    s = (hit.get("_source") or {}).get("store_id")
    if s is not None:
        return str(s)
    i = str(hit.get("_id", "")).find(":")
    return str(hit["_id"])[:i] if i > 0 else None


def check_search(recorder, answer, tenant_id, tags, aggs=False, expect_hits=0):
    """Checks a _search answer for tenant_id. Returns (body or None, first failed check or '')."""
    body = parse(answer)
    hits = ((body or {}).get("hits") or {}).get("hits") or []
    foreign = [h for h in hits if hit_tenant(h) != tenant_id]
    if foreign:
        recorder.count("cross_tenant_hits", len(foreign), tags)
    results = [("status 200", answer.status == 200), ("no cross-tenant hit", body is not None and not foreign)]
    if aggs:
        results.append(("facets present", bool(body and body.get("aggregations"))))
    if expect_hits:
        results.append(("product found", len(hits) >= expect_hits))
    failed = ""
    for name, ok in results:
        if not recorder.check(name, ok) and not failed:
            failed = name
    return body, failed


def check_bulk(recorder, answer, expected_items):
    """Checks a _bulk answer: status 200 and every item stored or superseded (409: a newer version
    is already there). Returns (body or None, first failed check or '')."""
    body = parse(answer)
    items = (body or {}).get("items") or []
    bad = [it for it in items if (it.get("index") or it.get("create") or it.get("delete") or {}).get("status") not in (200, 201, 409)]
    failed = ""
    for name, ok in (("status 200", answer.status == 200), ("bulk items stored", body is not None and len(items) == expected_items and not bad)):
        if not recorder.check(name, ok) and not failed:
            failed = name
    return body, failed


# A bulk answer's items counted, never retried (the ingest and many-shards experiments): the request
# asks for statuses only, so a 1,000-item answer stays a few KB.
#   indexed   201 / 200
#   rejected  429 (a full write queue, or indexing pressure); a whole bulk answered 429 counts every document
#   failed    anything else, or no answer at all
BULK_QUERY = "?filter_path=errors,items.*.status,items.*.error.type"


def bulk_items(answer, docs):
    """(answer, documents in the bulk) -> (indexed, rejected, failed)"""
    if answer.status == 429:
        return 0, docs, 0
    if answer.status != 200:
        return 0, 0, docs
    # most bulks have no error: their items need not be read
    if answer.body.startswith(b'{"errors":false'):
        return docs, 0, 0
    indexed = rejected = failed = 0
    try:
        items = json.loads(answer.body).get("items") or []
    except ValueError:
        items = []
    for item in items:
        r = item.get("index") or item.get("create") or {}
        s = r.get("status")
        if s in (200, 201):
            indexed += 1
        elif s == 429:
            rejected += 1
        else:
            failed += 1
    # items the answer does not list did not happen
    return indexed, rejected, failed + max(0, docs - indexed - rejected - failed)
