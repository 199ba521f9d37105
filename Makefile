# tenantlab: multitenant Elasticsearch ("index groups") on one laptop.
# Every target is a thin wrapper; the work is in scripts/ and each runtime's bin/lab.
# Settings come from lab.env; any of them can be overridden on the command line or from the
# environment: make up ES_HEAP=1g RUNTIME=native

SHELL := bash
.DEFAULT_GOAL := help
LAB := scripts/lab

.PHONY: help up down status logs clean test node-kill node-restart bench-startup \
	tenants groups tenant-add tenant-move tenant-rm plan rebalance bench-allocator

help: ## Show this help
	@echo "tenantlab: multitenant Elasticsearch on one laptop. Usage: make TARGET [VAR=value]"
	@echo
	@awk 'BEGIN {FS = ":.*## "} /^## / {print substr($$0, 4)} /^[a-z][a-z0-9-]*:.*## / {printf "  %-15s %s\n", $$1, $$2}' $(MAKEFILE_LIST)
	@echo
	@echo "Variables: RUNTIME=compose|native (default: compose if a Docker engine answers, else native),"
	@echo "  NODE= (node-kill, node-restart), SERVICE= (logs), FORCE=1 (clean), and any key of lab.env."

## ---- Lab lifecycle ----
up: ## Start the lab and wait for green (idempotent)
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

## ---- Tenants (the allocator's CLI: allocator/bin/tenantlab-allocator) ----
ALLOC := allocator/bin/tenantlab-allocator

tenants: ## List tenants: group, index, documents
	@$(ALLOC) ls

groups: ## Index groups: nodes, indices, tenants, load
	@$(ALLOC) groups

tenant-add: ## Add tenant ID= with PRODUCTS= expected [TRAFFIC= GROUP= DEDICATED=1]
	@$(ALLOC) add "$(ID)" "$(PRODUCTS)" $(if $(TRAFFIC),--traffic $(TRAFFIC)) $(if $(GROUP),--group $(GROUP)) $(if $(DEDICATED),--dedicated)

tenant-move: ## Move tenant ID= to GROUP=, INDEX= or DEDICATED=1 (waits for the job)
	@$(ALLOC) move "$(ID)" $(if $(GROUP),--group $(GROUP)) $(if $(INDEX),--index $(INDEX)) $(if $(DEDICATED),--dedicated) --wait

tenant-rm: ## Delete tenant ID= (alias and documents)
	@$(ALLOC) rm "$(ID)"

plan: ## Rebalance dry run: the moves that bring every group within 15% of the mean
	@$(ALLOC) plan

rebalance: ## Run the rebalance plan, one move at a time
	@$(ALLOC) rebalance --wait

## ---- Tests and benchmarks ----
test: ## Run every test (starts and stops its own lab); ONLY=PATTERN for some; ends with "N passed, N failed"
	@tests/run

bench-startup: ## Seconds from `make up` to green (native) and RSS per node
	@tests/bench/startup

bench-allocator: ## Placement plan for 100k tenants, API p99 at 200 req/s, move docs/s (needs `make up`)
	@scripts/install/npm-deps.sh allocator && cd allocator && node bench/run.js
