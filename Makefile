# tenantlab: multitenant Elasticsearch ("index groups") on one laptop.
# Every target is a thin wrapper; the work is in scripts/ and each runtime's bin/lab.
# Settings come from lab.env; any of them can be overridden on the command line or from the
# environment: make up ES_HEAP=1g RUNTIME=native

SHELL := bash
.DEFAULT_GOAL := help
# Node.js: every recipe runs lab.env's NODE_VERSION, its copy in the cache first on PATH as
# scripts/lib/config.sh puts it for every script. $(NODE_READY) installs it there first, for the
# recipes that start node themselves (scripts/install/node.sh: a file test once installed;
# nothing when the machine's node has that major); the others run a script that sources config.sh.
ifndef NODE_VERSION
NODE_VERSION := $(shell sed -n 's/^NODE_VERSION=//p' $(or $(LAB_ENV_FILE),lab.env) 2>/dev/null)
endif
export PATH := $(if $(NODE_VERSION),$(or $(LAB_CACHE),$(CURDIR)/.lab/cache)/node-$(NODE_VERSION)/bin:)$(PATH)
NODE_READY := scripts/install/node.sh >/dev/null
LAB := runtimes/lib/dispatch

.PHONY: help up down status logs clean test check test-compose node-kill node-restart bench-startup bench-shape bench-external render dashboards k8s console \
	tenants hot groups tenant-add tenant-move tenant-rm plan rebalance bench-allocator bench-console \
	seed seed-verify resubmit update querylog bench-seed bench-analysis \
	load load-bot load-writes replay bench-load \
	experiments experiment experiment-compare demo watch

help: ## Show this help
	@echo "tenantlab: multitenant Elasticsearch on one laptop. Usage: make TARGET [VAR=value]"
	@echo
	@awk 'BEGIN {FS = ":.*## "} /^## / {print substr($$0, 4)} /^[a-z][a-z0-9-]*:.*## / {printf "  %-15s %s\n", $$1, $$2}' $(MAKEFILE_LIST)
	@echo
	@echo "Variables: RUNTIME=compose|native|external (default: compose if a Docker engine answers, else native; external: ES_URL= an existing cluster, runtimes/external/README.md),"
	@echo "  NODE= (node-kill, node-restart), SERVICE= (logs), FORCE=1 (clean), and any key of lab.env."

## ---- Lab lifecycle ----
up: ## Start the lab, wait for green, seed PROFILE= (default demo; SEED=0 skips); idempotent
	@$(LAB) up

down: ## Stop the lab (data kept)
	@$(LAB) down

status: ## Each service: runtime, URL, state, RSS
	@$(LAB) status

logs: ## Recent logs of every service, or of SERVICE= (FOLLOW=1 to follow)
	@$(LAB) logs $(SERVICE)

clean: ## Delete all lab data (asks first unless FORCE=1)
	@$(LAB) clean

## ---- Fault drills ----
node-kill: ## Kill NODE= abruptly (SIGKILL / docker kill)
	@$(LAB) kill $(NODE)

node-restart: ## Start NODE= again and wait for green
	@$(LAB) restart $(NODE)

## ---- Seed data (seed-data/bin/tenantlab-seed) ----
SEEDER := scripts/install/npm-deps.sh seed-data && seed-data/bin/tenantlab-seed

seed: ## Load PROFILE= (ci, demo, large; default demo) with SEED= through the allocator; exact counts
	@$(SEEDER) seed

seed-verify: ## Compare every tenant of PROFILE= with its manifest's count
	@$(SEEDER) verify

resubmit: ## TENANT= re-sends its whole catalog (the daily catalog push)
	$(call require,TENANT,TENANT=demo-0001)
	@$(SEEDER) resubmit --tenant "$(TENANT)"

update: ## TENANT= gets price and inventory updates on a share of its products
	$(call require,TENANT,TENANT=demo-0001)
	@$(SEEDER) update --tenant "$(TENANT)"

querylog: ## Write PROFILE='s query log (TIMESTAMP.MS|SEARCH_TYPE|JSON_QUERY) to OUT= (default stdout)
	@$(SEEDER) querylog $(if $(OUT),--out $(OUT))

## ---- Tenants (the allocator's CLI: allocator/bin/tenantlab-allocator) ----
ALLOC := $(NODE_READY) && allocator/bin/tenantlab-allocator
# $(call require,VAR,example): stop with one line when VAR= is missing
require = $(if $(strip $($(1))),,$(error $(1)= is required, e.g. make $@ $(2)))

tenants: ## List tenants: group, index, documents, observed search and write cost, hot
	@$(ALLOC) ls

hot: ## Hot tenants with their evidence, each group's latency against its objective, auto-isolation
	@$(ALLOC) hot

groups: ## Index groups: nodes, indices, tenants, load
	@$(ALLOC) groups

tenant-add: ## Add tenant ID= with PRODUCTS= expected [TRAFFIC= GROUP= DEDICATED=1]
	$(call require,ID,ID=acme PRODUCTS=500)$(call require,PRODUCTS,ID=acme PRODUCTS=500)
	@$(ALLOC) add "$(ID)" "$(PRODUCTS)" $(if $(TRAFFIC),--traffic $(TRAFFIC)) $(if $(GROUP),--group $(GROUP)) $(if $(DEDICATED),--dedicated)

tenant-move: ## Move tenant ID= to GROUP=, INDEX= or DEDICATED=1 (waits for the job)
	$(call require,ID,ID=acme GROUP=g2)
	@$(ALLOC) move "$(ID)" $(if $(GROUP),--group $(GROUP)) $(if $(INDEX),--index $(INDEX)) $(if $(DEDICATED),--dedicated) --wait

tenant-rm: ## Delete tenant ID= (alias and documents)
	$(call require,ID,ID=acme)
	@$(ALLOC) rm "$(ID)"

plan: ## Rebalance dry run [BY=observed|static]: hot tenants to the least busy group, else every group within 15% of the mean
	@$(ALLOC) plan $(if $(BY),--by $(BY))

rebalance: ## Run the rebalance plan [BY=observed|static], one move at a time
	@$(ALLOC) rebalance $(if $(BY),--by $(BY)) --wait

## ---- Traffic (Locust: traffic/) ----
load: ## Load test (Locust; web UI on LOAD_UI_PORT while it runs), default mixed storefront + writes [SCENARIO= DURATION= RATE= VUS= TENANT= BOT=1 UI=0]
	@traffic/run.sh

load-bot: ## A search-bot burst crawling every category page of TENANT= [BOT_RATE= DURATION=]
	@SCENARIO=bot traffic/run.sh

load-writes: ## Catalog writes: price/inventory bulks, catalog re-submission [BULK_SIZE= WRITE_RATE= RESUBMIT=]
	@SCENARIO=writes traffic/run.sh

replay: ## Replay a query log LOG= (TIMESTAMP.MS|SEARCH_TYPE|JSON_QUERY) [SPEED=2|max BAD_LINES=skip|stop TRANSLATE=on|off STORE_MAP=rank|hash|FILE STORE_FIELD=store_id]
	@SCENARIO=replay traffic/run.sh

## ---- Generated files ----
render: ## Regenerate every generated file (compose nodes and k8s/generated/ from lab.env, dashboards); CHECK=1 changes nothing and fails naming each stale file
	@$(NODE_READY) && scripts/render $(if $(filter 1,$(CHECK)),--check)

k8s: ## Render k8s/generated/ from lab.env (ECK Elasticsearch + Kibana, allocator, exporter, Prometheus, Locust master and workers) and validate it offline (kubeconform, strict); CHECK=1 changes nothing
	@$(NODE_READY) && node k8s/render.mjs $(if $(filter 1,$(CHECK)),--check) && k8s/validate

dashboards: ## Rebuild the Grafana dashboards' JSON and datasource from grafana-dashboards/src/; CHECK=1 only checks
	@grafana-dashboards/build $(if $(filter 1,$(CHECK)),--check)

## ---- Experiments (experiments/*.yaml; the runner: experiments/runner) ----
experiments: ## List the experiments: name, hypothesis, source, expected direction, time
	@scripts/experiment list

experiment: ## Run NAME= [QUICK=1] [REPEAT=N] [LAB=own|running] [SPECS=DIR: DIR/NAME.yaml]: repeated, interleaved runs; table, verdict, report
	@scripts/experiment run

demo: ## The noisy neighbour, live on the running lab (~5 min; QUICK=1 about 3 on a warm lab, up to 5 more on one just started; REPEAT=N repetitions, default 1): a bot floods one store, the allocator flags and moves it; at the end how often it did, and the report
	@scripts/experiment demo

console: ## The lab console in a browser (cluster map, live health, moves, experiments): its address, opened when there is a desktop
	@scripts/console

watch: ## Live terminal view: groups side by side (search rate, latency vs objective, queue, CPU), hottest tenants, moves; q quits [URL= another allocator, e.g. the demo's]
	@$(ALLOC) $(if $(URL),--url $(URL)) watch

experiment-compare: ## A=<name>/<run-id> B=<name>/<run-id> (or <name>/committed) [FORMAT=text|json|csv|md]: two runs side by side: spread, ratio with its interval, Mann-Whitney, every environment difference
	@scripts/experiment compare

experiment-runs: ## [NAME=] the stored runs, committed and local, with their verdicts (the A= / B= of experiment-compare)
	@scripts/experiment runs

experiment-plan: ## NAME= the repetitions and window length that detect the article's effect with 80% power within 30 minutes, from the committed run's spread
	@scripts/experiment plan

## ---- Tests and benchmarks ----
test: ## Run every test (starts and stops its own lab); ONLY=PATTERN for some; ends with "N passed, N failed" only when the run reached its end
	@tests/run

check: ## The no-lab tier for the inner loop (static bats, unit suites, the engine's pytest, k8s and promtool tests, two at a time); ONLY=PATTERN
	@tests/check

test-compose: ## The compose runtime for real: an engine (a private one as root), local images, a lab, tests/compose/; "N passed, N failed"
	@tests/compose/run

bench-startup: ## Time `make up` with warm caches (native): SEED=0 to a ready lab, RSS per node, then the demo profile seeded from an empty lab [ROUNDS= BENCH_PROFILE=demo|ci|none BENCH_SAVE=]
	@tests/bench/startup

bench-external: ## RUNTIME=external's cost: the storefront straight to the lab and through a TLS + basic-auth proxy (needs make up with tenants) [BENCH_SAVE=tests/bench/results/bench-external.json]
	@tests/bench/external

bench-shape: ## What node sizes cost: make up -> green, idle RSS and CPU, SHAPE=groups against SHAPE=off (native) [ROUNDS= BENCH_SAVE=tests/bench/results/bench-shape.json]
	@tests/bench/shape

bench-seed: ## Seeder docs/s against a naive loader, the client's bulk helper and a plain-HTTP ceiling (same run), and its CPU share (needs `make up`) [BENCH_SAVE=seed-data/bench/results/bench-seed.json keeps the run make render shows]
	@scripts/install/npm-deps.sh seed-data && cd seed-data && BENCH_SAVE="$(if $(BENCH_SAVE),$(abspath $(BENCH_SAVE)))" node bench/seed.js

bench-analysis: ## Seeding rate, index size and the same hits of the storefront analysis (.partial subfields) against without it and cheaper forms of it, same run (needs `make up`) [BENCH_SAVE=seed-data/bench/results/bench-analysis.json keeps the run make render shows]
	@scripts/install/npm-deps.sh seed-data && cd seed-data && BENCH_SAVE="$(if $(BENCH_SAVE),$(abspath $(BENCH_SAVE)))" node bench/analysis.js

bench-console: ## What one open console costs the allocator (CPU with and without, 1,000 tenants) and its page's time to draw the map (needs `make up`; Chromium) [BENCH_SAVE=allocator/bench/results/bench-console.json keeps the run make render shows]
	@scripts/install/npm-deps.sh allocator && tools="$$(scripts/install/browser.sh)" && cd allocator && \
	  CHROMIUM="$$(sed -n 1p <<<"$$tools")" PUPPETEER_DIR="$$(sed -n 2p <<<"$$tools")" BENCH_ONLY=console \
	  BENCH_SAVE="$(if $(BENCH_SAVE),$(abspath $(BENCH_SAVE)))" node bench/run.js

bench-allocator: ## Placement plan for 100k tenants, API p99 at 200 req/s, move docs/s, the observer's cost with 1,000 tenants (needs `make up`) [BENCH_ONLY= BENCH_SECONDS= BENCH_WARMUP= BENCH_DOCS= BENCH_TENANTS= BENCH_SAVE=allocator/bench/results/bench-allocator.json keeps the run make render shows]
	@scripts/install/npm-deps.sh allocator && cd allocator && BENCH_SAVE="$(if $(BENCH_SAVE),$(abspath $(BENCH_SAVE)))" node bench/run.js

bench-load: ## Highest open-model storefront RATE held (p95 under the threshold, < 1% late arrivals), the generator's CPU at 10, 200, 400/s and in an ingest window, its latency against ES took (needs `make up`)
	@traffic/bench.sh
