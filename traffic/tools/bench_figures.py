"""bench_figures.py [--check]: the figures of `make bench-load` in traffic/README.md (its
Benchmark section; docs/benchmarks.md links there), generated from the committed run
(traffic/bench/bench-load.json, written by BENCH_SAVE=), never typed by hand: the block between
the markers `<!-- bench-load:begin -->` and `<!-- bench-load:end -->`. --check changes nothing
and exits 1 naming a stale file. scripts/render runs it (make render [CHECK=1])."""
import json
import os
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
RESULT = ROOT / "traffic" / "bench" / "bench-load.json"
FILES = [ROOT / "traffic" / "README.md"]
BLOCK = re.compile(r"(<!-- bench-load:begin -->\n).*?(<!-- bench-load:end -->)", re.S)


def pct(v):
    return "-" if v is None else f"{v:.1f}%"


def block(r, result_link):
    rows = {row["rate"]: row for row in r["rates"]}
    default = r["rates"][0]
    best = rows.get(r["highest_sustained_rate"])
    a, ing = r["agreement"], r["ingest"]
    lines = [
        f"Measured by `make bench-load` on {r['machine']['cpus']} CPUs ({r['machine']['cpu_model'] or 'unknown CPU'}), "
        f"Locust {r['engine']['version']}, {r['step']} per rate, {r['measured_at'][:10]} "
        f"([traffic/bench/bench-load.json]({result_link}); shares are of the whole machine):",
        "",
        "| figure | measured | target |",
        "|---|---|---|",
        f"| generator CPU at the default rate ({default['rate']:g} page views/s) | {pct(default['generator_cpu_percent'])} | <= 10% |",
    ]
    for want in (200, 400):
        row = rows.get(want)
        if row:
            lines.append(f"| generator CPU at {want} page views/s asked ({row['rps']:.0f} requests/s served, {100 * (row['late_share'] or 0):.1f}% late) | {pct(row['generator_cpu_percent'])} | reported |")
    lines.append(f"| generator CPU during an ingest window ({ing['clients']} clients, 1,000-document bulks) | {pct(ing['generator_cpu_percent'])} | <= 10% |")
    lines.append(f"| latency agreement at {a['rate']:g}/s: the engine's latency minus Elasticsearch's `took`, median / p95 ({a['searches']} searches) | "
                 f"{a['overhead_median_ms']:.1f} / {a['overhead_p95_ms']:.1f} ms, {100 * (a['overhead_p95_share_of_p95'] or 0):.0f}% of the p95 reported ({a['engine_p95_ms']:.0f} ms) | reported |")
    if best:
        lines.append(f"| highest open-model storefront rate with every threshold and < 1% late arrivals | {best['rate']:g} page views/s (p95 {best['p95_ms']:.0f} ms, generator CPU {pct(best['generator_cpu_percent'])}) | reported |")
    else:
        lines.append("| highest open-model storefront rate with every threshold and < 1% late arrivals | none of the rates tried | reported |")
    over = [row for row in r["rates"] if not row["sustained"]]
    if over:
        o = over[0]
        lines.append(f"| first rate not held | {o['rate']:g} page views/s: {o['rps']:.0f} requests/s served, p95 {o['p95_ms']:.0f} ms, {100 * (o['late_share'] or 0):.1f}% late, generator CPU {pct(o['generator_cpu_percent'])} (the lab, not the generator, is the limit when its CPU stays low) | reported |")
    return "\n".join(lines) + "\n"


def main():
    check = sys.argv[1:] == ["--check"]
    result = json.loads(RESULT.read_text())
    stale = 0
    for f in FILES:
        old = f.read_text()
        if not BLOCK.search(old):
            print(f"error: {f.relative_to(ROOT)} has no bench-load markers", file=sys.stderr)
            return 2
        # the result's link, relative to the file the block is in
        text = block(result, pathlib.Path(os.path.relpath(RESULT, f.parent)).as_posix())
        new = BLOCK.sub(lambda m: m.group(1) + text + m.group(2), old)
        if new != old:
            if check:
                print(f"stale: {f.relative_to(ROOT)} (its bench-load figures; run make render)", file=sys.stderr)
                stale = 1
            else:
                f.write_text(new)
    return stale


if __name__ == "__main__":
    sys.exit(main())
