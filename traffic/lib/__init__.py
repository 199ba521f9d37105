"""tenantlab's load engine library: what every locustfile of traffic/ shares.

A bad setting found while a locustfile is loaded (lib.config.ConfigError, lib.tenants.SetupError)
ends the process with one line and exit 2, as every command of the lab does, not a traceback."""
import os
import sys

_previous_hook = sys.excepthook


def _one_line(kind, err, tb):
    if kind.__name__ in ("ConfigError", "SetupError"):
        sys.stderr.write(f"load: error: {err}\n")
        sys.stderr.flush()
        os._exit(2)
    _previous_hook(kind, err, tb)


sys.excepthook = _one_line
