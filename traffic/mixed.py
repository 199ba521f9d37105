"""mixed (the default of `make load`): the storefront's shoppers and the catalog writes together;
BOT=1 adds a search-bot burst from 40% to 70% of the run (on BOT_TENANT, else TENANT, else the
largest tenant)."""
from lib import config, scenarios
from lib.run import LoadRun, common_thresholds
from lib.tenants import load

BOT = config.env("BOT", "0") == "1"


def setup(run):
    tenants, everyone = load(run.pool)
    run.data = {"tenants": tenants, "all": everyone, "resubmit": scenarios.resubmit_plan(tenants)}
    if BOT:
        scenarios.check_bot_tenant(run)
    return run.data


run = LoadRun("mixed", setup=setup, thresholds=common_thresholds())
scenarios.storefront(run)
scenarios.writes(run)
if BOT:
    scenarios.bot(run, start_s=int(scenarios.DURATION_S * 0.4), duration_s=max(3, int(scenarios.DURATION_S * 0.3)))
globals().update(run.locust_classes())
