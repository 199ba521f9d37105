"""storefront: shoppers on tenants picked by traffic weight: category pages with facets, next
pages and sorts, keyword search (the .partial fields, half-typed words, SKU prefixes), product
detail (ids query), autocomplete (lib/shop.py). RATE= page views/s (open model, default 10) or
VUS= shoppers with think times (closed model, THINK_MS, default 1000).

    make load SCENARIO=storefront RATE=40 DURATION=2m
    RATE=20 DURATION=30s locust -f traffic/storefront.py --headless
"""
from lib import scenarios
from lib.run import LoadRun, common_thresholds
from lib.tenants import load


def setup(run):
    tenants, everyone = load(run.pool)
    return {"tenants": tenants, "all": everyone}


run = LoadRun("storefront", setup=setup, thresholds=common_thresholds())
scenarios.storefront(run)
globals().update(run.locust_classes())
