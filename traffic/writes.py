"""writes: catalog writes through tenant aliases, by the allocator's write contract (whole
documents, `<tenant>:<product>` ids, external_gte versions from updated_at): price/inventory
bulks at WRITE_RATE/s of BULK_SIZE products, and a full catalog re-submission of RESUBMIT=
tenants (lib/scenarios.py).

    make load-writes TENANTS='dev-*' BULK_SIZE=200 WRITE_RATE=2 DURATION=1m
"""
from lib import scenarios
from lib.run import LoadRun, common_thresholds
from lib.tenants import load


def setup(run):
    tenants, everyone = load(run.pool)
    return {"tenants": tenants, "all": everyone, "resubmit": scenarios.resubmit_plan(tenants)}


run = LoadRun("writes", setup=setup, thresholds=common_thresholds())
scenarios.writes(run)
globals().update(run.locust_classes())
