"""The make-load scenarios as building blocks: each adds itself to a LoadRun with its settings
and thresholds, so a locustfile is one scenario (storefront.py, bot.py, writes.py) or several
(mixed.py) without a copy."""
import random
import time

from . import config
from .arrivals import ramp
from .contract import document_id
from .queries import pick
from .resubmit import bulk, resubmit_page, touched
from .shop import Crawler, Shopper, bot_plan, search, tags_of
from .tenants import TENANT, weighted_picker

DURATION_S = config.env_seconds("DURATION", "1m")


def storefront(run):
    """Shoppers: RATE= page views/s (open model, default 10) or VUS= shoppers with think times
    (closed model, THINK_MS). Threshold: p95 < P95_STOREFRONT_MS (1000)."""
    rate = config.env_number("RATE", 0)
    vus = config.env_number("VUS", 0, integer=True)
    think_ms = config.env_number("THINK_MS", 1000)
    p95 = config.env_number("P95_STOREFRONT_MS", 1000)
    shoppers = []

    def shopper():
        tenants = run.data["tenants"]
        return Shopper(run, tenants, weighted_picker(tenants))

    if vus:
        # one Shopper per user: each keeps its own "next page"
        def session(intended):
            if not shoppers:
                shoppers.extend(shopper() for _ in range(vus))
            shoppers[random.randrange(vus)].page_view(intended, "storefront")
        run.closed("storefront", vus, DURATION_S, session, think=lambda: think_ms * (0.5 + random.random()) / 1000)
    else:
        rate = rate or 10

        def page_view(intended):
            if not shoppers:
                shoppers.append(shopper())
            shoppers[0].page_view(intended, "storefront")
        run.open("storefront", rate, DURATION_S, page_view, cap=max(20, int(rate * 2)))
    run.thresholds.append(("http_req_duration{scenario:storefront}", "p(95)", "<", p95))


def bot(run, start_s=0.0, duration_s=None):
    """A search-bot burst: an arrival rate ramping up to BOT_RATE (30) pages/s over 20% of the
    time, held 60%, down 20%, crawling every category page (up to BOT_MAX_PAGES=50 each) of
    BOT_TENANT, else TENANT, else the largest tenant. Threshold: p95 < P95_BOT_MS (1500)."""
    bot_rate = config.env_number("BOT_RATE", 30, minimum=1)
    max_pages = config.env_number("BOT_MAX_PAGES", 50, minimum=1, integer=True)
    p95 = config.env_number("P95_BOT_MS", 1500)
    s = max(3.0, duration_s if duration_s is not None else config.env_seconds("BOT_DURATION", config.env("DURATION", "1m")))
    up = max(1.0, round(s * 0.2))
    crawler = {}

    def crawl(intended):
        if "c" not in crawler:
            t, pages = bot_plan(run.data["tenants"], config.env("BOT_TENANT", "") or TENANT, max_pages)
            print(f"bot: crawling {t['id']} ({t['group']}): {len(t['categories'])} categories, {len(pages)} pages, up to {bot_rate:g}/s", flush=True)
            crawler["c"] = Crawler(run, t, pages)
        crawler["c"].crawl(intended)
    run.open("bot", ramp(bot_rate, up, max(1.0, s - 2 * up), up, start_rate=1), s, crawl, cap=max(20, int(bot_rate * 2)), start_s=start_s)
    run.thresholds.append(("http_req_duration{scenario:bot}", "p(95)", "<", p95))


def check_bot_tenant(run):
    """The bot's tenant exists among the profiled ones (a clear line before the run starts)."""
    bot_plan(run.data["tenants"], config.env("BOT_TENANT", "") or TENANT, 1)


# ---- Catalog writes, by the allocator's write contract (allocator/README.md) -------------------
# Whole documents only (no _update), _id "<tenant>:<product>", version = updated_at in epoch ms
# with version_type=external_gte; current documents are read with an ids query (never GET _doc),
# searches carry the tenant's stats group. So they stay safe while the allocator moves a tenant.
# The contract's writes (touched, bulk) and a catalogue page are lib/resubmit.py's, shared with
# the experiments' write-heavy burst.


def _price_inventory_update(src):
    """A price/inventory change, as a store's back office makes it."""
    d = dict(src)
    if isinstance(d.get("price"), (int, float)):
        f = 0.9 + random.random() * 0.2
        d["price"] = round(max(0.01, d["price"] * f), 2)
        if isinstance(d.get("sale_price"), (int, float)) and d["sale_price"] > 0:
            d["sale_price"] = round(min(d["price"] * 0.95, d["sale_price"] * f), 2)
    if d.get("inventory_tracking") != "none" and isinstance(d.get("inventory_level"), (int, float)):
        d["inventory_level"] = random.randrange(200)
    if isinstance(d.get("variants"), list):
        d["variants"] = [{**v, "inventory_level": random.randrange(50) if isinstance(v.get("inventory_level"), (int, float)) else v.get("inventory_level")} for v in d["variants"]]
    return d


def writes(run):
    """Price/inventory updates: WRITE_RATE (1) bulks/s of BULK_SIZE (100) products of tenants
    picked by traffic weight, read by ids, changed, written back whole (open model); and the
    full catalog re-submission of RESUBMIT= tenants (default TENANT, else the smallest; none for
    none), page by page (closed model: one user, one pass). Threshold: p95 < P95_WRITES_MS (2000)."""
    bulk_size = config.env_number("BULK_SIZE", 100, minimum=1, integer=True)
    write_rate = config.env_number("WRITE_RATE", 1, minimum=0.01)
    p95 = config.env_number("P95_WRITES_MS", 2000)
    picker = {}

    def update(intended):
        if "p" not in picker:
            picker["p"] = weighted_picker(run.data["tenants"])
        t = picker["p"]()
        if not t["products"]:
            return
        want = min(bulk_size, len(t["products"]))
        ids = set()
        while len(ids) < want:
            ids.add(document_id(t["id"], pick(t["products"])))
        body = search(run, t, {"size": want, "query": {"ids": {"values": sorted(ids)}}}, "read_ids", tags_of(t, "read_ids", "writes"), intended, expect_hits=1)
        if not body:
            return
        items = []
        for h in body["hits"]["hits"]:
            doc, version = touched(_price_inventory_update(h["_source"]))
            items.append((h["_id"], doc, version))
        bulk(run, t, items, "bulk_update", "writes", time.time())

    run.open("writes", write_rate, DURATION_S, update, cap=max(4, int(write_rate * 4)))
    run.thresholds.append(("http_req_duration{scenario:writes}", "p(95)", "<", p95))

    wanted = config.env_list("RESUBMIT")
    if wanted == ["none"]:
        return

    def resubmit(_intended):
        for t in run.data["resubmit"]:
            cursor, pages = {"after": None}, 0
            while run.elapsed() < DURATION_S:
                n = resubmit_page(run, t, cursor, bulk_size, "resubmit")
                if not n:
                    break
                pages += 1
                if n < bulk_size:
                    break
            print(f"writes: re-submitted the catalog of {t['id']} ({pages} bulks of up to {bulk_size})", flush=True)

    run.closed("resubmit", 1, DURATION_S, resubmit, iterations=1)
    run.thresholds.append(("http_req_duration{scenario:resubmit}", "p(95)", "<", p95))


def resubmit_plan(tenants):
    """The tenants whose whole catalog is re-sent."""
    wanted = config.env_list("RESUBMIT")
    if wanted == ["none"]:
        return []
    if wanted:
        out = []
        for i in wanted:
            t = next((x for x in tenants if x["id"] == i), None)
            if not t:
                raise config.ConfigError(f"RESUBMIT: tenant '{i}' is not among the selected tenants with documents")
            out.append(t)
        return out
    if TENANT:
        return [t for t in tenants if t["id"] == TENANT]
    return sorted(tenants, key=lambda t: t["documents"])[:1]
