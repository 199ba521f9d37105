"""experiment: the workload of one repetition of `make experiment` (experiments/runner runs it,
one Locust process per repetition): the storefront's page views in two windows, so warm-up
samples never reach the figures (Rally marks them `warmup`):
  warmup   ramps up to the load over RAMP_UP, then holds it for WARMUP: discarded
  measure  the measured window: MEASURE at the full load, right after
Every request is tagged scenario=warmup|measure by its intended start. Open model (RATE= page
views/s: arrivals on a schedule, latency from the intended start, late arrivals counted) or
closed model (VUS= shoppers, THINK_MS= between page views, like a JMeter thread group). Tenants
and their aliases in the variant measured come from TENANTS_FILE (the runner writes it); each
store's searches go through a node of its group, followed when the allocator moves it
(GROUP_URLS, FOLLOW_S: lib/routing.py).

A burst (BOT_TENANT= one store, BURST_AT= into the measured window, BURST_FOR= long) as a
scenario of its own (`burst`), never in the figures; every shopper's request is then tagged
phase=before|during|after the burst. BURST_KIND=bot (the default): the bot's crawler on that store
at BOT_RATE= pages/s (reached over a tenth of the burst, held to its end). BURST_KIND=resubmit: the store's whole catalogue written back in a loop
(lib/resubmit.py, through its alias only) by BURST_WRITERS= concurrent loops (2) in bulks of
BURST_BULK= documents (500), stopping at the burst's end: the noisy writer.

ENGINE_ROLE=all (the default) runs both in this process. A burst in a process of its own, as a
bot is a client of its own: ENGINE_ROLE=measure runs the shoppers only (their requests still
tagged before|during|after) and writes its clock's start to T0_FILE; ENGINE_ROLE=burst runs the
burst only, on that clock (it waits for T0_FILE), so the measuring engine's event loop never
carries the bot's requests: in one process they queue behind each other, and the shoppers'
latency then rises with the burst whatever the cluster does.

The only threshold is the cross-tenant rule (exit 99, figures still count): an experiment
measures, its verdict is computed by the runner."""
import random

from lib import config, resubmit, routing
from lib.arrivals import ramp
from lib.run import LoadRun
from lib.shop import Crawler, Shopper, bot_plan
from lib.tenants import load, weighted_picker

RAMP_UP = config.env_seconds("RAMP_UP", "10s")
WARMUP = config.env_seconds("WARMUP", "20s")
MEASURE = config.env_seconds("MEASURE", "45s")
RATE = config.env_number("RATE", 0)
VUS = config.env_number("VUS", 0, integer=True)
THINK_MS = config.env_number("THINK_MS", 1000)
BOT_TENANT = config.env("BOT_TENANT", "")
BOT_RATE = config.env_number("BOT_RATE", 30, minimum=1)
BURST_AT = config.env_seconds("BURST_AT", "0s")
BURST_FOR = config.env_seconds("BURST_FOR", "0s")
BURST = resubmit.settings()  # BURST_KIND, BURST_WRITERS, BURST_BULK
ROLE = config.env_choice("ENGINE_ROLE", "all", ("all", "measure", "burst"))
T0_FILE = config.env("T0_FILE", "")
if ROLE != "all" and not T0_FILE:
    raise config.ConfigError(f"ENGINE_ROLE={ROLE}: needs T0_FILE, the file the measuring engine writes its clock's start to and the burst's engine reads it from")
SHOPPERS = ROLE != "burst"
BURSTING = bool(BOT_TENANT) and ROLE != "measure"
WARM_S = RAMP_UP + WARMUP
# where the burst lies, in seconds since the run started
BURST_FROM = WARM_S + BURST_AT
BURST_TO = BURST_FROM + BURST_FOR


def window(t):
    return "warmup" if t < WARM_S else "measure"


def phase(t):
    if not BOT_TENANT:
        return None
    return "before" if t < BURST_FROM else "during" if t < BURST_TO else "after"


def setup(run):
    tenants, everyone = load(run.pool)
    # each store through a node of its group, and of its new group once the allocator moved it
    # (GROUP_URLS, FOLLOW_S: lib/routing.py)
    routing.start(run, tenants)
    data = {"tenants": tenants, "all": everyone, "shoppers": [Shopper(run, tenants, weighted_picker(tenants)) for _ in range(max(1, VUS))] if SHOPPERS else []}
    if not BURSTING:
        return data
    if BURST["kind"] == "resubmit":
        t = next((x for x in tenants if x["id"] == BOT_TENANT), None)
        if not t:
            raise config.ConfigError(f"BOT_TENANT={BOT_TENANT}: not among the stores of TENANTS_FILE; its catalogue cannot be re-submitted")
        data["writer"] = resubmit.Resubmitter(run, t, BURST["writers"], BURST["bulk_size"], "burst", until_s=BURST_TO)
    else:
        t, pages = bot_plan(tenants, BOT_TENANT, config.env_number("BOT_MAX_PAGES", 50, minimum=1, integer=True))
        data["crawler"] = Crawler(run, t, pages, scenario="burst")
    return data


def page_view(intended):
    t = intended - run.t0
    shopper = random.choice(run.data["shoppers"])
    shopper.page_view(intended, window(t), phase=phase(t))


run = LoadRun("experiment", setup=setup, thresholds=[("cross_tenant_hits", "count", "==", 0)],
              t0_out=T0_FILE if ROLE == "measure" else None, t0_in=T0_FILE if ROLE == "burst" else None)
if SHOPPERS and RATE:
    rate = ramp(RATE, RAMP_UP)
    run.open("shoppers", rate, WARM_S + MEASURE, page_view, cap=max(20, int(RATE * 2)),
             tags=lambda due: {"scenario": window(due - run.t0)})
elif SHOPPERS:
    users = VUS or 8
    run.closed("shoppers", users, WARM_S + MEASURE, page_view, think=(lambda: THINK_MS * (0.5 + random.random()) / 1000) if THINK_MS else None, ramp_s=RAMP_UP)
if BURSTING and BURST["kind"] == "resubmit":
    # closed: each writer sends its next bulk when the last is answered, from the burst's start
    # to its end (a page read after the end is not written)
    run.closed("burst", BURST["writers"], BURST_FOR, lambda intended: run.data["writer"].step(intended), start_s=BURST_FROM)
elif BURSTING:
    # the bot ramps up over a tenth of the burst, then crawls at its full rate to the burst's end:
    # a bot that slowed down before the end would let neighbours left with it recover by themselves
    # (an `after` window partly without the bot)
    up = max(1.0, round(BURST_FOR * 0.1))
    run.open("burst", ramp(BOT_RATE, up, start_rate=1), BURST_FOR,
             lambda intended: run.data["crawler"].crawl(intended), cap=max(20, int(BOT_RATE * 2)), start_s=BURST_FROM)
globals().update(run.locust_classes())
