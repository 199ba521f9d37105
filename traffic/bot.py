"""bot: a search-bot burst (the crawler spike that used to take down neighbours): an arrival
rate ramping up to BOT_RATE pages/s crawling every category page of one tenant (TENANT=,
default: the tenant with the most documents), page after page, name order, facets rendered.

    make load-bot TENANT=acme BOT_RATE=50 DURATION=1m
"""
from lib import scenarios
from lib.run import LoadRun, common_thresholds
from lib.tenants import load


def setup(run):
    tenants, everyone = load(run.pool)
    run.data = {"tenants": tenants, "all": everyone}
    scenarios.check_bot_tenant(run)
    return run.data


run = LoadRun("bot", setup=setup, thresholds=common_thresholds())
scenarios.bot(run)
globals().update(run.locust_classes())
