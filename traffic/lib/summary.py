"""The run's verdict: thresholds evaluated on the summary's metrics, and the compact block the
terminal shows (requests, latency per scenario, late arrivals, checks, thresholds, verdict)."""
import operator

_OPS = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge, "==": operator.eq}


def evaluate(thresholds, metrics, shares):
    """thresholds: [(metric, stat, op, limit)]; stat 'share' reads shares[metric] = (part, whole).
    A metric the run never produced holds its threshold (nothing was measured against it)."""
    out = []
    for metric, stat, op, limit in thresholds:
        if stat == "share":
            part, whole = shares.get(metric, (0, 0))
            value = part / whole if whole else None
        else:
            value = (metrics.get(metric) or {}).get("values", {}).get(stat)
        ok = True if value is None else _OPS[op](value, limit)
        out.append({"metric": metric, "expr": f"{stat}{op}{limit:g}", "ok": bool(ok), "value": value})
    return out


def _ms(v):
    if v is None:
        return "-"
    return f"{v / 1000:.2f}s" if v >= 1000 else f"{v:.1f}ms"


def text_summary(summary, results_shown=""):
    m = summary["metrics"]
    lines = ["", f"tenantlab load {summary['run_id']}: {summary['state']['testRunDurationMs'] / 1000:.1f}s (Locust {summary['engine']['version']})"]
    models = ", ".join(f"{k} {v}" for k, v in summary["models"].items())
    kinds = set(summary["models"].values())
    why = "; ".join(w for k, w in (("open", "open: arrivals on a schedule, latency from the intended start"),
                                   ("closed", "closed: fixed concurrency, each client waits for its answer")) if k in kinds)
    lines.append(f"  model         {models} ({why})")
    reqs = (m.get("http_reqs") or {}).get("values", {"count": 0, "rate": 0})
    lines.append(f"  requests      {reqs['count']} ({reqs['rate']:.1f}/s)")
    arrivals = (m.get("arrivals") or {}).get("values", {}).get("count", 0)
    if arrivals:
        late = (m.get("late_arrivals") or {}).get("values", {}).get("count", 0)
        lines.append(f"  late arrivals {late} of {arrivals} ({100 * late / arrivals:.2f}%) started over {summary['late_ms']:g} ms after their time"
                     + (" (the lab or the generator could not keep up)" if late else ""))
    f = (m.get("http_req_failed") or {}).get("values")
    if f:
        lines.append(f"  failed        {100 * f['rate']:.2f}% ({f['passes']} of {reqs['count']})")
    d = (m.get("http_req_duration") or {}).get("values")
    if d and d.get("count"):
        lines.append(f"  latency       avg {_ms(d['avg'])}  p95 {_ms(d['p(95)'])}  p99 {_ms(d['p(99)'])}  max {_ms(d['max'])}")
    for k in sorted(m):
        if k.startswith("http_req_duration{") and (k.count(":") == 1 or "query_type" in k):
            v = m[k]["values"]
            if v.get("count"):
                lines.append(f"    {k[len('http_req_duration'):]:<40} avg {_ms(v['avg'])}  p95 {_ms(v['p(95)'])}  p99 {_ms(v['p(99)'])}  n {v['count']}")
    leaks = (m.get("cross_tenant_hits") or {}).get("values", {}).get("count", 0)
    if leaks:
        lines.append(f"  CROSS-TENANT HITS: {leaks}")
    if summary["checks"]:
        rate = (m.get("checks") or {}).get("values", {}).get("rate")
        lines.append(f"  checks        {'-' if rate is None else f'{100 * rate:.2f}%'} passed")
        for c in summary["checks"]:
            lines.append(f"    {'✗' if c['fails'] else '✓'} {c['name']:<22} {c['passes']} passed, {c['fails']} failed")
    lines.append("  thresholds")
    for t in summary["thresholds"]:
        shown = "-" if t["value"] is None else f"{t['value']:.4g}"
        lines.append(f"    {'✓' if t['ok'] else '✗'} {t['metric']}: {t['expr']} (is {shown})")
    breached = sum(1 for t in summary["thresholds"] if not t["ok"])
    lines.append(f"verdict: FAIL ({breached} threshold(s) breached)" if breached else "verdict: PASS (every threshold held)")
    if results_shown:
        lines.append(f"summary: {results_shown}/summary.json")
    return "\n".join(lines) + "\n\n"
