"""describe.py LOCUSTFILE: what a locustfile would run, as JSON, without running it (no lab
needed): its scenarios (model, users or rate now, start and duration) and thresholds. The static
tests read it; a bad setting is the same one line and exit 2 the run would give."""
import json
import pathlib
import runpy
import sys

here = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(here))
import lib  # noqa: E402,F401 - its one-line errors

# a bad setting: one line and exit 2 (lib/__init__.py), as the run would give
g = runpy.run_path(str(here / sys.argv[1]), run_name="locustfile")
run = g["run"]
print(json.dumps({
    "scenario": run.scenario,
    "scenarios": {sc.name: {"model": sc.model, "start_s": sc.start_s, "duration_s": sc.duration_s,
                            "users": getattr(sc, "users", None),
                            "rate": (sc.rate(0) if callable(sc.rate) else sc.rate) if sc.model == "open" and sc.rate is not None else None,
                            "cap": getattr(sc, "cap", None)} for sc in run.scenarios},
    "thresholds": [f"{m}: {stat}{op}{limit:g}" for m, stat, op, limit in run.thresholds],
}))
