"""The tenants a run uses: the allocator's (GET /tenants), or the experiment runner's
(TENANTS_FILE: [{id, alias, weight, set, es_url, group}]); selected by TENANT= / TENANTS=; each
profiled with one search through its alias (categories, facet values, a sample of products and
words) so the scenarios build queries that match the tenant's real catalog, whatever made it."""
import bisect
import fnmatch
import itertools
import json
import random
import re

import gevent
from gevent.pool import Pool

from . import config
from .client import JSON
from .contract import alias_for, stats_group_for

TENANT = config.env("TENANT", "")
TENANTS = config.env_list("TENANTS")
TENANTS_FILE = config.env("TENANTS_FILE", "")
PROFILE_TENANTS = config.env_number("PROFILE_TENANTS", 200, minimum=1, integer=True)
SAMPLE_PRODUCTS = config.env_number("SAMPLE_PRODUCTS", 100, minimum=1, integer=True)


class SetupError(Exception):
    """The run cannot start: one line saying why and what to do."""


def allocator_tenants(pool):
    a = pool.request("GET", f"{config.ALLOCATOR_URL}/tenants", timeout=20)
    if a.status != 200:
        raise SetupError(f"the allocator at {config.ALLOCATOR_URL} answered {a.status or a.error}: is the lab up? (make up)")
    return [{
        "id": t["id"], "group": t.get("group") or "", "index": t.get("index"),
        "alias": t.get("alias") or alias_for(t["id"]), "documents": t.get("documents") or 0,
        "weight": t["traffic_weight"] if (t.get("traffic_weight") or 0) > 0 else 1, "set": "", "es_url": "",
    } for t in json.loads(a.body)["tenants"]]


def file_tenants():
    try:
        with open(TENANTS_FILE) as f:
            rows = json.load(f)
    except (OSError, ValueError) as err:
        raise SetupError(f"TENANTS_FILE={TENANTS_FILE} cannot be read as JSON ({err})") from None
    if not isinstance(rows, list) or not rows:
        raise SetupError(f"TENANTS_FILE={TENANTS_FILE} holds no tenant (want a JSON list of {{id, alias, weight}})")
    return [{
        "id": t["id"], "group": t.get("group") or "", "index": t.get("index") or "",
        "alias": t.get("alias") or alias_for(t["id"]), "documents": t.get("documents") or 0,
        "weight": t["weight"] if (t.get("weight") or 0) > 0 else 1, "set": t.get("set") or "",
        # the node that coordinates this tenant's searches (a node of its index's group), else ES_URL
        "es_url": config.checked_url("TENANTS_FILE es_url", t["es_url"], config.ES_EXTERNAL) if t.get("es_url") else "",
    } for t in rows]


def select(all_tenants):
    """TENANT= alone, else TENANTS= (ids, globs), else all of them."""
    if TENANT:
        picked = [t for t in all_tenants if t["id"] == TENANT]
        if not picked:
            raise SetupError(f"unknown TENANT '{TENANT}': the allocator has no such tenant (make tenants lists them)")
        return picked
    if TENANTS:
        picked = [t for t in all_tenants if any(fnmatch.fnmatchcase(t["id"], g) for g in TENANTS)]
        if not picked:
            raise SetupError(f"TENANTS={','.join(TENANTS)} matches no tenant of the allocator (make tenants lists them)")
        return picked
    return all_tenants


def _profile_body():
    return {
        "size": SAMPLE_PRODUCTS, "track_total_hits": True,
        "_source": ["store_id", "product_id", "sku", "name", "brand_name", "categories"],
        "query": {"match_all": {}},
        "aggs": {
            "categories": {"terms": {"field": "categories", "size": 1000}},
            "brands": {"terms": {"field": "brand_name.raw", "size": 100}},
            "colors": {"terms": {"field": "attributes.color", "size": 50}},
            "sizes": {"terms": {"field": "attributes.size", "size": 50}},
            "price": {"stats": {"field": "price"}},
        },
    }


_WORD = re.compile(r"[^a-z0-9]+")


def _words(s):
    return [w for w in _WORD.split(str(s or "").lower()) if len(w) > 2]


def profile(pool, tenants):
    """Up to PROFILE_TENANTS tenants (heaviest traffic first), 20 searches at a time; tenants
    without documents are left out (nothing to browse)."""
    chosen = sorted(tenants, key=lambda t: (-t["weight"], t["id"]))[:PROFILE_TENANTS]

    def one(t):
        body = dict(_profile_body(), stats=[stats_group_for(t["id"])])
        a = pool.request("POST", f"{t['es_url'] or config.ES_URL}/{t['alias']}/_search", json.dumps(body), JSON, timeout=30)
        if a.status != 200:
            raise SetupError(f"cannot read tenant {t['id']} through {t['es_url'] or config.ES_URL}/{t['alias']}: HTTP {a.status or a.error}")
        r = json.loads(a.body)
        total = r["hits"]["total"]["value"]
        if not total:
            return None
        hits = [h["_source"] for h in r["hits"]["hits"]]
        aggs = r.get("aggregations") or {}

        def keys(name):
            return [{"key": b["key"], "count": b["doc_count"]} for b in (aggs.get(name) or {}).get("buckets", [])]
        vocab = dict.fromkeys(itertools.chain.from_iterable(_words(h.get("name")) + _words(h.get("brand_name")) for h in hits))
        return {**t, "documents": total, "categories": keys("categories"),
                "brands": [b["key"] for b in keys("brands")], "colors": [b["key"] for b in keys("colors")],
                "sizes": [b["key"] for b in keys("sizes")],
                "price": {"min": aggs.get("price", {}).get("min") or 0, "max": aggs.get("price", {}).get("max") or 100},
                "products": [str(h["product_id"]) for h in hits if h.get("product_id") is not None],
                "skus": [h["sku"] for h in hits if h.get("sku")],
                "words": list(vocab)[:200]}

    p = Pool(20)
    jobs = [p.spawn(one, t) for t in chosen]
    gevent.joinall(jobs)
    for j in jobs:
        if j.exception is not None:
            raise j.exception
    return [j.value for j in jobs if j.value]


def load(pool, require_documents=True):
    """setup of every storefront-like scenario: the tenants, selected and profiled.
    -> (profiled tenants, {id: tenant} of every tenant)"""
    all_tenants = file_tenants() if TENANTS_FILE else allocator_tenants(pool)
    if not all_tenants:
        raise SetupError(f"the allocator at {config.ALLOCATOR_URL} has no tenant: add some (make tenant-add, or seed)")
    selected = select(all_tenants)
    profiled = profile(pool, selected)
    if require_documents and not profiled:
        raise SetupError(f"no selected tenant has documents ({', '.join(t['id'] for t in selected[:5])}...): seed them first")
    return profiled, {t["id"]: t for t in all_tenants}


def weighted_picker(tenants):
    """pick() -> a tenant, heavier ones (traffic weight) more often."""
    cumulative = list(itertools.accumulate(t["weight"] for t in tenants))
    total = cumulative[-1]
    return lambda: tenants[min(len(tenants) - 1, bisect.bisect_right(cumulative, random.random() * total))]
