"""Settings of every scenario, from the environment (traffic/run.sh sets them from lab.env; any
of them can be given by hand: RATE=20 locust -f traffic/storefront.py --headless).

Only loopback and the compose/Kubernetes service names are accepted as targets: the lab runs
without security and a load test must never leave the machine. RUNTIME=external (ES_EXTERNAL=1)
is the exception: the cluster the user named, with its credentials.
"""
import base64
import os
import re
from urllib.parse import urlsplit


class ConfigError(Exception):
    """A bad setting: one line saying what is wrong and what to give instead."""


def env(key, default=None):
    v = os.environ.get(key)
    return default if v is None or v == "" else v


def env_number(key, default, minimum=0.0, integer=False, maximum=None):
    raw = env(key)
    if raw is None:
        return default
    try:
        n = float(raw)
    except ValueError:
        n = float("nan")
    if n != n or n < minimum or (maximum is not None and n > maximum) or (integer and not n.is_integer()):
        bound = f"from {minimum:g} to {maximum:g}" if maximum is not None else f">= {minimum:g}"
        raise ConfigError(f"{key}={raw}: want {'a whole number' if integer else 'a number'} {bound}")
    return int(n) if integer else n


def env_choice(key, default, choices):
    """One of a few words (BURST_KIND=bot|resubmit); ConfigError naming them otherwise."""
    v = env(key, default)
    if v not in choices:
        raise ConfigError(f"{key}={v}: want one of {', '.join(choices)}")
    return v


def env_list(key):
    return [s.strip() for s in str(env(key, "")).split(",") if s.strip()]


_DURATION = re.compile(r"^(?:\d+(?:\.\d+)?(?:h|ms|m|s))+$")
_PART = re.compile(r"(\d+(?:\.\d+)?)(h|ms|m|s)")
_UNIT = {"h": 3600, "m": 60, "s": 1, "ms": 0.001}


def seconds(duration):
    """'90s', '2m', '1h30m', '500ms', '1.5s' (the experiment specs' form) -> seconds (a whole
    number when it is one); ConfigError when malformed."""
    text = str(duration)
    if not _DURATION.match(text):
        raise ConfigError(f"duration '{duration}': want one like 30s, 2m, 1h30m, 500ms")
    total = sum(float(n) * _UNIT[u] for n, u in _PART.findall(text))
    return int(total) if float(total).is_integer() else total


def env_seconds(key, default):
    v = env(key, default)
    try:
        return seconds(v)
    except ConfigError:
        raise ConfigError(f"{key}={v}: want a duration like 30s, 2m, 1h30m") from None


ES_EXTERNAL = env("ES_EXTERNAL", "") == "1"
_LOCAL_HOSTS = re.compile(r"^(127\.\d+\.\d+\.\d+|localhost|\[::1\]|::1|[a-z][a-z0-9-]*)$")


def checked_url(key, url, external=False):
    """A target URL: loopback or a one-word service name (compose, Kubernetes); any host when
    the user named an external cluster."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigError(f"{key}={url}: want an http(s) URL")
    if not external and not _LOCAL_HOSTS.match(parts.hostname):
        raise ConfigError(f"{key}={url}: load goes only to loopback or the lab's service names (the lab runs without security)")
    return url.rstrip("/")


ES_URL = checked_url("ES_URL", env("ES_URL", "http://127.0.0.1:9200"), ES_EXTERNAL)
ALLOCATOR_URL = checked_url("ALLOCATOR_URL", env("ALLOCATOR_URL", "http://127.0.0.1:8080"))
RESULTS_DIR = env("RESULTS_DIR", "")
RESULTS_DIR_SHOWN = env("RESULTS_DIR_SHOWN", RESULTS_DIR)
RUN_ID = env("RUN_ID", "")


def authorization():
    """The Authorization header for the cluster ('' without credentials): ES_AUTHORIZATION as
    the connection module gives it, else a Basic header from ES_USERNAME / ES_PASSWORD (the
    Kubernetes workers get ECK's elastic user that way)."""
    header = env("ES_AUTHORIZATION", "")
    if header:
        return header
    user, password = env("ES_USERNAME", ""), env("ES_PASSWORD", "")
    if user:
        return "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()
    return ""


ES_CA_CERT = env("ES_CA_CERT", "")
ES_TLS_VERIFY = env("ES_TLS_VERIFY", "true") != "false"
