#!/usr/bin/env bash
# make bench-load: the load engine on this machine against the running lab: the highest
# open-model storefront rate held (every threshold, < 1% late arrivals), the generator's own CPU
# share at each rate and during an ingest window, and its latency against Elasticsearch's own
# `took` (traffic/tools/bench.py says how). Native runtime; TENANTS= / TENANT= choose the tenants;
# BENCH_RATES= (page views/s), BENCH_STEP= (20s), BENCH_SAVE=FILE keeps the JSON there too.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
source "$here/../scripts/lib/config.sh"

es="$(es_url)" allocator="http://$LAB_BIND:$ALLOCATOR_PORT"
curl -fsS --max-time 5 "$es/" >/dev/null 2>&1 || die "the cluster does not answer at $es: make up first"
curl -fsS --max-time 5 "$allocator/readyz" >/dev/null 2>&1 || die "the allocator does not answer at $allocator: make up first"
lab_is_external && die "make bench-load measures the lab's own runtime: it does not run against RUNTIME=external"
locust="$("$LAB_ROOT/scripts/install/locust.sh")" || die "the load engine could not be installed (scripts/install/locust.sh)"
out="$LAB_DIR/results/$(date -u +%Y%m%dT%H%M%SZ)-bench-load"
mkdir -p "$out"
unset VUS RATE DURATION
LOCUST_BIN="$locust" BENCH_DIR="$out" ES_URL="$es" ALLOCATOR_URL="$allocator" exec "${locust%/locust}/python" "$here/tools/bench.py"
