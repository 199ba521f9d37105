"""What a shopper does, shared by the storefront, mixed, bot and experiment locustfiles: one
checked search through a tenant's alias, and one page view of the storefront's mix."""
import random
import time

from . import config
from .checks import check_search
from .client import JSON
from .queries import PAGE_SIZE, autocomplete, category_page, keyword_search, pick, product_detail, with_stats

# Test knob for the cross-tenant check: send TENANT's queries to this alias instead of its own
ALIAS = config.env("ALIAS", "")
BOT_UA = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"


def tags_of(t, query_type, scenario, **extra):
    tg = {"scenario": scenario, "index_group": t.get("group") or "none", "query_type": query_type}
    if t.get("set"):
        tg["store_set"] = t["set"]
    tg.update({k: v for k, v in extra.items() if v})
    return tg


def search(run, t, body, query_type, tags, intended, aggs=False, expect_hits=0, headers=None):
    """POST <alias>/_search with the tenant's stats group, checked; recorded from `intended`.
    -> the answer's body (or None)"""
    alias = ALIAS or t["alias"]
    a = run.pool.request("POST", f"{t.get('es_url') or config.ES_URL}/{alias}/_search", with_stats(body, t["id"]), {**JSON, **(headers or {})})
    ended = time.time()
    parsed, failed_check = check_search(run.recorder, a, t["id"], tags, aggs=aggs, expect_hits=expect_hits)
    run.recorder.request(tags, intended, ended, a.status == 200, a.status, a.error, length=len(a.body), check_failed=failed_check,
                         took=parsed.get("took") if parsed else None)
    return parsed


class Shopper:
    """The storefront's mix, one page view at a time: category pages (45%), their next pages
    (12%, same sort), keyword search (27%), product detail (18%), autocomplete (the rest)."""

    def __init__(self, run, tenants, pick_tenant):
        self.run, self.tenants, self.pick_tenant = run, tenants, pick_tenant
        self.last = None  # where the shopper is, so "next page" continues a category

    def page_view(self, intended, scenario, **extra_tags):
        r = random.random()
        last = self.last
        if last and r < 0.12:
            last["page"] += 1
            t = last["t"]
            count = next((c["count"] for c in t["categories"] if c["key"] == last["category"]), 0)
            if last["page"] * PAGE_SIZE >= count:
                last["page"] = 0
            body = category_page(t, category=last["category"], page=last["page"], sort=last["sort"], filters=False)
            return search(self.run, t, body, "category_page", tags_of(t, "category_page", scenario, **extra_tags), intended, aggs=True)
        t = self.pick_tenant()
        if r < 0.45 and t["categories"]:
            category = pick(t["categories"])["key"]
            sort = pick(["relevance", "price_asc", "price_desc", "rating", "newest", "name"])
            self.last = {"t": t, "category": category, "sort": sort, "page": 0}
            return search(self.run, t, category_page(t, category=category, sort=sort), "category", tags_of(t, "category", scenario, **extra_tags), intended, aggs=True)
        if r < 0.72:
            return search(self.run, t, keyword_search(t), "search", tags_of(t, "search", scenario, **extra_tags), intended, aggs=True)
        if r < 0.9 and t["products"]:
            return search(self.run, t, product_detail(t), "detail", tags_of(t, "detail", scenario, **extra_tags), intended, expect_hits=1)
        return search(self.run, t, autocomplete(t), "autocomplete", tags_of(t, "autocomplete", scenario, **extra_tags), intended)


def bot_plan(tenants, wanted, max_pages):
    """The crawl: [category, page] for every page of every category of the bot's tenant
    (`wanted`, else the tenant with the most documents), name order."""
    if wanted:
        t = next((x for x in tenants if x["id"] == wanted), None)
    else:
        t = max(tenants, key=lambda x: x["documents"]) if tenants else None
    if not t:
        raise config.ConfigError(f"bot: tenant '{wanted}' has no documents to crawl")
    pages = [(c["key"], p) for c in t["categories"] for p in range(min(max_pages, -(-c["count"] // PAGE_SIZE)))]
    if not pages:
        raise config.ConfigError(f"bot: tenant {t['id']} has no categories to crawl")
    return t, pages


class Crawler:
    """A search bot crawling every category page of one tenant, page after page."""

    def __init__(self, run, tenant, pages, scenario="bot"):
        self.run, self.t, self.pages, self.scenario = run, tenant, pages, scenario
        self.i = 0

    def crawl(self, intended):
        category, page = self.pages[self.i % len(self.pages)]
        self.i += 1
        body = category_page(self.t, category=category, page=page, sort="name", filters=False)
        return search(self.run, self.t, body, "bot_crawl", tags_of(self.t, "bot_crawl", self.scenario), intended, aggs=True, headers={"User-Agent": BOT_UA})
