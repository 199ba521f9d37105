"""Storefront query builders: faceted category pages, keyword search, product detail,
autocomplete. None filters on store_id: the tenant alias does (that is what the cross-tenant
check proves). Values come from the tenant's profile (tenants.py), so queries match its catalog.
The search fields are the contract's (contract.SEARCH_FIELDS, checked against packages/contract)."""
import json
import random

from . import config
from .contract import AUTOCOMPLETE_FIELD, SEARCH_FIELDS, document_id, stats_group_for, typed_part

PAGE_SIZE = config.env_number("PAGE_SIZE", 24, minimum=1, integer=True)


def pick(items):
    return items[random.randrange(len(items))]


def chance(p):
    return random.random() < p


# Product listing fields of a storefront card; store_id for the cross-tenant check
CARD = ["store_id", "product_id", "name", "sku", "brand_name", "price", "sale_price", "rating", "inventory_level"]

SORTS = {
    "relevance": None,
    "price_asc": [{"price": "asc"}],
    "price_desc": [{"price": "desc"}],
    "rating": [{"rating": "desc"}, {"price": "asc"}],
    "newest": [{"created_at": "desc"}],
    "name": [{"name.raw": "asc"}],
}
SORT_NAMES = list(SORTS)

# In stock first, as the seed article's query does (should: untracked or inventory > 0)
INVENTORY_SHOULD = [{"term": {"inventory_tracking": "none"}}, {"range": {"inventory_level": {"gt": 0}}}]


def price_ranges(t):
    top = max(1, t["price"]["max"])
    step = max(1, round(top / 4))
    return [{"to": step}, {"from": step, "to": 2 * step}, {"from": 2 * step, "to": 3 * step}, {"from": 3 * step}]


def facets(t):
    return {
        "brands": {"terms": {"field": "brand_name.raw", "size": 20}},
        "colors": {"terms": {"field": "attributes.color", "size": 20}},
        "sizes": {"terms": {"field": "attributes.size", "size": 20}},
        "price": {"range": {"field": "price", "ranges": price_ranges(t)}},
        "rating": {"range": {"field": "rating", "ranges": [{"from": 4}, {"from": 3}, {"from": 2}]}},
    }


def facet_filters(t):
    """Shopper-chosen facet filters: a brand, a colour, a size or a price range, sometimes."""
    f = []
    if t["brands"] and chance(0.25):
        f.append({"term": {"brand_name.raw": pick(t["brands"])}})
    if t["colors"] and chance(0.2):
        f.append({"term": {"attributes.color": pick(t["colors"])}})
    if t["sizes"] and chance(0.15):
        f.append({"term": {"attributes.size": pick(t["sizes"])}})
    if chance(0.15):
        r = pick(price_ranges(t))
        rng = {"gte": r.get("from")}
        if "to" in r:
            rng["lt"] = r["to"]
        f.append({"range": {"price": {k: v for k, v in rng.items() if v is not None}}})
    return f


def category_page(t, category=None, page=0, sort=None, filters=True):
    """A category page: filters, facets, a page and a sort."""
    category = category or pick(t["categories"])["key"]
    order = SORTS[sort or pick(SORT_NAMES)]
    body = {
        "size": PAGE_SIZE,
        "from": page * PAGE_SIZE,
        "_source": CARD,
        "track_total_hits": 10000,
        "query": {"bool": {
            "filter": [{"term": {"categories": category}}, {"term": {"is_visible": True}}] + (facet_filters(t) if filters else []),
            "should": INVENTORY_SHOULD,
        }},
        "aggs": facets(t),
    }
    if order:
        body["sort"] = order
    return body


def search_text(t):
    """One or two words of the tenant's names and brands (a fifth of them half-typed), or a SKU prefix."""
    if t["skus"] and chance(0.15):
        s = pick(t["skus"])
        return s[: max(3, -(-len(s) // 2))]
    if not t["words"]:
        return "product"

    def word():
        w = pick(t["words"])
        return typed_part(w) if chance(0.2) else w
    return word() if chance(0.5) else f"{word()} {word()}"


def keyword_search(t, text=None, page=0, sort=None):
    """Keyword search: simple_query_string over the storefront fields, or a prefix on the SKU."""
    text = text if text is not None else search_text(t)
    f = facets(t)
    body = {
        "size": PAGE_SIZE,
        "from": page * PAGE_SIZE,
        "_source": CARD,
        "query": {"bool": {
            "must": [{"bool": {
                "should": [
                    {"simple_query_string": {"query": text, "fields": SEARCH_FIELDS, "default_operator": "and"}},
                    {"prefix": {"sku": {"value": text, "case_insensitive": True}}},
                ],
                "minimum_should_match": 1,
            }}],
            "filter": [{"term": {"is_visible": True}}],
            "should": INVENTORY_SHOULD,
        }},
        "aggs": {"brands": f["brands"], "categories": {"terms": {"field": "categories", "size": 20}}, "price": f["price"]},
    }
    order = SORTS[sort or ("relevance" if chance(0.7) else pick(SORT_NAMES))]
    if order:
        body["sort"] = order
    return body


def product_detail(t, product_id=None):
    """Product detail page: one product by its _id, with an ids query (never GET _doc: moves)."""
    pid = product_id if product_id is not None else pick(t["products"])
    return {"size": 1, "query": {"ids": {"values": [document_id(t["id"], pid)]}}}


def autocomplete(t):
    """A half-typed word against the names' edge n-grams, the seed log's shape (size 6)."""
    w = pick(t["words"]) if t["words"] else "pro"
    return {"size": 6, "_source": ["store_id", "name"], "query": {"match": {AUTOCOMPLETE_FIELD: {"query": typed_part(w), "operator": "and"}}}}


def with_stats(body, tenant_id):
    """The body of a search, with the tenant's search stats group (the write contract asks it)."""
    return json.dumps({**body, "stats": [stats_group_for(tenant_id)]}, separators=(",", ":"))
