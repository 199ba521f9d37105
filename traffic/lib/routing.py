"""Where a store's searches go: a node of its index group, as an index-groups platform routes a
store to its group, so that no node outside the group coordinates the group's work; and, when
the allocator moves a store, the node of its new group from then on.

  GROUP_URLS  JSON {group: [node URL, ...]}: the nodes that may coordinate each group's searches
              (the experiment runner writes it from the lab's nodes); a store of a group not
              listed, or with no group, keeps its own es_url (else ES_URL)
  FOLLOW_S    every this many seconds, the stores' groups are read again from the allocator
              (ALLOCATOR_URL, GET /tenants) and a moved store is routed to its new group (said on
              stdout, and listed in summary.json's `routes`); 0 (the default): the groups of the
              start stand

Without it, a store whose index changed group would keep its coordinating node in the old group,
and its requests' index_group tag would name the old group: the allocator's per-group latency
would count a moved store's requests against the neighbours it left."""
import json
import time

import gevent

from . import config


def group_urls(raw, external=False):
    """GROUP_URLS' text -> {group: [url, ...]}; ConfigError (one line) when it is not that."""
    if not raw:
        return {}
    try:
        parsed = json.loads(raw)
    except ValueError:
        parsed = None
    if not isinstance(parsed, dict) or not all(isinstance(v, list) and v and all(isinstance(u, str) for u in v) for v in parsed.values()):
        raise config.ConfigError('GROUP_URLS: want a JSON object of index groups to lists of node URLs, like {"g1": ["http://127.0.0.1:9201"]}')
    return {str(g): [config.checked_url(f"GROUP_URLS {g}", u, external) for u in urls] for g, urls in parsed.items()}


GROUP_URLS = group_urls(config.env("GROUP_URLS", ""), config.ES_EXTERNAL)
FOLLOW_S = config.env_number("FOLLOW_S", 0, minimum=0, maximum=60)


def route(tenants, urls, groups=None):
    """Gives each tenant a node of its group: the i-th tenant of the list the i-th node, round
    the group's list (so stores spread over the nodes and keep theirs); with `groups` {tenant id:
    group}, only the stores whose group changed are routed again. -> [(tenant, old group, new
    group)] of those. Pure but for the tenants it updates."""
    moved = []
    for i, t in enumerate(tenants):
        old = t.get("group") or ""
        g = old if groups is None else groups.get(t["id"], old)
        if groups is not None and g == old:
            continue
        if g != old:
            moved.append((t, old, g))
            t["group"] = g
        nodes = urls.get(g)
        if nodes:
            t["es_url"] = nodes[i % len(nodes)]
    return moved


def current_groups(pool, allocator_url):
    """{tenant id: group} from the allocator, or None when it does not answer (the groups stand)."""
    a = pool.request("GET", f"{allocator_url}/tenants", timeout=5)
    if a.status != 200:
        return None
    try:
        return {t["id"]: t.get("group") or "" for t in json.loads(a.body)["tenants"]}
    except (ValueError, KeyError, TypeError):
        return None


def start(run, tenants, urls=None, follow_s=None, allocator_url=None):
    """Routes `tenants` now, then (follow_s > 0) follows their moves for the rest of the run."""
    urls = GROUP_URLS if urls is None else urls
    follow_s = FOLLOW_S if follow_s is None else follow_s
    allocator_url = allocator_url or config.ALLOCATOR_URL
    route(tenants, urls)
    if not follow_s:
        return None

    def loop():
        while True:
            gevent.sleep(follow_s)
            groups = current_groups(run.pool, allocator_url)
            if groups is None:
                continue
            for t, old, new in route(tenants, urls, groups):
                run.routes.append({"tenant": t["id"], "from": old, "to": new, "es_url": t.get("es_url") or config.ES_URL, "at_ms": round(time.time() * 1000)})
                print(f"routing: {t['id']} moved from {old or 'no group'} to {new or 'no group'}; its searches now go through {t.get('es_url') or config.ES_URL}", flush=True)
    return gevent.spawn(loop)
