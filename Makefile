# The two commands of the quick start are `make serve` and `make test`; each installs what it needs.
SHELL := /bin/bash
.DEFAULT_GOAL := help
NPM_STAMP := node_modules/.install-stamp
REDOCLY := npx --no-install redocly
# No usage reports from the CLI, and none from the docs page it renders (Redoc reports to Redocly unless told).
export REDOCLY_TELEMETRY := off
OPENAPI_SOURCES := $(shell find openapi -type f)
# What `make serve` and `make test` need, as files with their sources, so that a second start rebuilds nothing
# that has not changed: the bundle and types from openapi/, the docs page from the bundle, dist/ from the code.
GENERATED := generated/openapi.json generated/openapi.strict.json generated/openapi.ts
DOCS_HTML := dist/docs/index.html
BUILD_STAMP := dist/.build-stamp
# Everything tsc -p tsconfig.build.json reads (bin/ reaches into tests/contract); folders too, since adding or
# removing a file changes its folder's time.
BUILD_SOURCES := $(shell find server client bin tests/contract -name '*.ts' -o -type d) generated/openapi.ts \
  tsconfig.json tsconfig.build.json package-lock.json
# The kit's package is assembled from these files of this repository (its `files`), then packed.
KIT_FILES = $(shell node -p "require('./packages/kit/package.json').files.join(' ')")
KIT_PACK_DIR ?= .

.PHONY: help install chromium postgresql migrate generate check-generated lint typecheck build docs serve test check unit contract fuzz bench clean inventory kit-pack

help:
	@echo "make serve   install, generate, build and start the reference server on http://localhost:3000"
	@echo "make test    install, then check generated files, lint, typecheck, docs and run every test"
	@echo "make check   the inner loop: lint, typecheck, the unit tests and the in-process contract suite"
	@echo "make lint | generate | docs | build | clean | kit-pack"

# `npm ci` in npm 11 rejects lock files that lack other platforms' optional binaries, so install from the lock.
$(NPM_STAMP): package.json package-lock.json
	npm install --no-audit --no-fund
	@touch $@

install: $(NPM_STAMP)

# The browser check of /docs drives Debian's chromium; CI runs as root on a fresh machine, so install it there.
chromium:
	@if [ ! -x /usr/bin/chromium ]; then \
	  sudo=$$([ "$$(id -u)" = 0 ] || echo sudo); \
	  $$sudo apt-get update -q && DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -q --no-install-recommends chromium; \
	fi

# The PostgreSQL store's tests run against a real server too: Debian's, in a throwaway cluster that
# scripts/test-postgres.sh makes for each run. Only the server programs are used, so the package is told not to
# create and start a cluster of its own.
postgresql:
	@if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then \
	  sudo=$$([ "$$(id -u)" = 0 ] || echo sudo); \
	  $$sudo mkdir -p /etc/postgresql-common && echo 'create_main_cluster = false' | $$sudo tee -a /etc/postgresql-common/createcluster.conf >/dev/null && \
	  $$sudo apt-get update -q && DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -q --no-install-recommends postgresql; \
	fi

# The build step that derives the strict twin (every object closed) from the bundle; see server/contract/strict-twin.ts.
TWIN_TOOL := dist/tools/server/contract/write-strict-twin.js
$(TWIN_TOOL): server/contract/strict-twin.ts server/contract/write-strict-twin.ts | $(NPM_STAMP)
	npx --no-install tsc --outDir dist/tools --rootDir . --module NodeNext --moduleResolution NodeNext --target ES2022 \
	  --strict --noUncheckedIndexedAccess --skipLibCheck --types node server/contract/write-strict-twin.ts
	@echo '{"type":"module"}' > dist/tools/package.json

# Bundle the multi-file source into one document, derive its strict twin, then the TypeScript types; again
# only when the source, the lint config, the twin's code or the installed tools (the lock) changed.
generate: $(GENERATED)

$(GENERATED) &: $(OPENAPI_SOURCES) redocly.yaml server/contract/strict-twin.ts server/contract/write-strict-twin.ts \
  package-lock.json | $(NPM_STAMP) $(TWIN_TOOL)
	$(REDOCLY) bundle openapi/openapi.yaml --output generated/openapi.json --ext json
	node $(TWIN_TOOL) generated/openapi.json generated/openapi.strict.json
	npx --no-install openapi-typescript generated/openapi.json --output generated/openapi.ts --default-non-nullable false

# Fails when generated/ does not match what `make generate` makes from openapi/.
check-generated: $(NPM_STAMP) $(TWIN_TOOL)
	@tmp=$$(mktemp -d); \
	$(REDOCLY) bundle openapi/openapi.yaml --output $$tmp/openapi.json --ext json >/dev/null 2>&1 && \
	node $(TWIN_TOOL) $$tmp/openapi.json $$tmp/openapi.strict.json && \
	npx --no-install openapi-typescript $$tmp/openapi.json --output $$tmp/openapi.ts --default-non-nullable false >/dev/null 2>&1 && \
	if diff -q $$tmp/openapi.json generated/openapi.json >/dev/null && diff -q $$tmp/openapi.ts generated/openapi.ts >/dev/null \
	  && diff -q $$tmp/openapi.strict.json generated/openapi.strict.json >/dev/null; then \
	  echo "generated/ is fresh"; rm -rf $$tmp; \
	else echo "generated/ is stale: run 'make generate' and commit the result" >&2; rm -rf $$tmp; exit 1; fi

# Redocly's strict rules on the source and the bundle; then Spectral's own ruleset (.spectral.yaml: spectral:oas,
# as other teams' CI runs it) on the bundle they publish and generate from.
lint: $(NPM_STAMP)
	$(REDOCLY) lint openapi/openapi.yaml generated/openapi.json --max-problems 200
	npx --no-install spectral lint generated/openapi.json --ruleset .spectral.yaml --fail-severity warn

# Incremental: a second run checks only what changed since the first (seconds instead of half a minute); the
# record of the last run lives under node_modules/.cache, which a clean clone does not have.
typecheck: $(NPM_STAMP)
	npx --no-install tsc -p tsconfig.json --noEmit --incremental --tsBuildInfoFile node_modules/.cache/typecheck.tsbuildinfo

build: $(BUILD_STAMP)

# Outputs of deleted sources must not linger in dist/ (the kit's package copies these folders whole).
$(BUILD_STAMP): $(BUILD_SOURCES) | $(NPM_STAMP)
	rm -rf dist/server dist/client dist/generated dist/bin dist/tests
	npx --no-install tsc -p tsconfig.build.json
	chmod +x dist/bin/contract.js dist/bin/launcher.js
	@touch $@

# Redoc's sidebar credit loads Redocly's logo from their CDN, and no option turns that off: the page gets a
# small inline image of the name instead, so it makes no request to another host (the browser test checks).
# Its sidebar is rendered into the page as links to host paths (/vouchers), which only the script turns into the
# in-page routes it uses (#/vouchers): until the script has run, they led to 404s. They are written as those
# routes instead, which work before the script runs and are what it renders anyway.
docs: $(NPM_STAMP)
	$(REDOCLY) build-docs generated/openapi.json --output dist/docs/index.html --inlineBundle
	sed -i -E 's|https://cdn\.redoc\.ly/redoc/logo-mini(-full)?\.svg|data:image/svg+xml,%3Csvg%20xmlns=%27http://www.w3.org/2000/svg%27%20width=%2748%27%20height=%2714%27%3E%3Ctext%20x=%270%27%20y=%2711%27%20font-family=%27sans-serif%27%20font-size=%2711%27%20fill=%27%23808080%27%3ERedocly%3C/text%3E%3C/svg%3E|g' dist/docs/index.html
	@if grep -q 'cdn\.redoc\.ly/redoc/logo' dist/docs/index.html; then echo 'dist/docs/index.html still loads a logo from cdn.redoc.ly' >&2; exit 1; fi
	sed -i -E 's|(<a [^>]*href=")/([^"]*")|\1#/\2|g' dist/docs/index.html
	@if grep -Eq '<a [^>]*href="/' dist/docs/index.html; then echo 'dist/docs/index.html still links to host paths' >&2; exit 1; fi

# The page `make docs` renders, again only when the bundle (or the config it reads) changed.
$(DOCS_HTML): generated/openapi.json redocly.yaml | $(NPM_STAMP)
	@$(MAKE) --no-print-directory docs

# The SQL store's pending migrations, run ahead of a deployment on DATABASE_URL (or the PGlite directory DATA_DIR);
# servers also run them when they start.
migrate: $(BUILD_STAMP)
	node dist/server/store/sql/migrate.js

# Readable log lines for the person at the terminal; LOG_FORMAT=json make serve for the production format.
# Test clocks (/v1/test-clock, an extension for testing) are on here, and off in a server started otherwise;
# TEST_CLOCKS=0 make serve turns them off.
serve: $(BUILD_STAMP) $(DOCS_HTML)
	LOG_FORMAT=$${LOG_FORMAT:-pretty} TEST_CLOCKS=$${TEST_CLOCKS:-1} node dist/server/main.js

unit: $(NPM_STAMP)
	npm test -- --selectProjects unit

contract: $(NPM_STAMP)
	npm test -- --selectProjects contract

# The developers' inner loop, under five minutes on the 2-core machine: the contract generated again if openapi/
# changed, lint and typecheck side by side (each keeps one core busy), then the unit tests and the in-process
# contract suite in one Jest run beside a throwaway PostgreSQL cluster (the SQL store's unit tests need it).
# The docs page is rendered again first when the bundle changed (the contract suite reads it at /docs).
# `make test` runs all of this and the rest: the kit, several instances, hardening, generators, packaging, docs.
check: $(GENERATED) $(DOCS_HTML) postgresql
	@$(MAKE) --no-print-directory -j2 lint typecheck
	scripts/test-postgres.sh run -- npm test -- --selectProjects unit contract --maxWorkers=100%

# check-generated compares a fresh bundle with generated/ before anything is built from generated/.
# A test file per core (Jest's own default leaves one core to itself, and its parent process is idle): an
# in-process suite keeps one core busy, so on the 2-core CI machine one worker left the other core idle, and
# the whole run took 67 minutes against 38 with two.
test: install chromium postgresql check-generated lint typecheck $(DOCS_HTML) $(BUILD_STAMP)
	scripts/test-postgres.sh run -- npm test -- --maxWorkers=100%

# The contract kit's package, promo-loyalty-contract-kit (packages/kit/package.json: its files and dependencies),
# packed to KIT_PACK_DIR. It is assembled in a temporary folder from this repository's files, so the repository
# keeps one layout and the light package (`npm pack` here) keeps out the kit's suite, server and dependencies.
kit-pack: $(BUILD_STAMP) $(DOCS_HTML)
	@stage=$$(mktemp -d) && trap 'rm -rf "$$stage"' EXIT && \
	cp packages/kit/package.json packages/kit/README.md "$$stage/" && \
	for part in $(KIT_FILES); do mkdir -p "$$stage/$$(dirname $$part)" && cp -R "$$part" "$$stage/$$part" || exit 1; done && \
	(cd "$$stage" && npm pack --pack-destination "$(abspath $(KIT_PACK_DIR))")

clean:
	rm -rf dist node_modules

# Schema-driven fuzzing at length: many generated requests per operation (make test runs a few).
# FUZZ_STORE=pglite fuzzes the server on PGlite (an in-memory PostgreSQL) instead of the memory store.
fuzz: $(NPM_STAMP)
	FUZZ_RUNS=$${FUZZ_RUNS:-300} npm test -- --selectProjects contract --runTestsByPath tests/contract/fuzz$(if $(filter pglite,$(FUZZ_STORE)),-pglite).test.ts

# Throughput and latency of the reference server against bare Express 5, memory per voucher, and list
# latency at 1k and 1M vouchers, and the voucher list and customer creation on PostgreSQL with one and two instances
# (beside a throwaway cluster). Prints figures; asserts nothing. Settings: see bench/run.ts.
bench: $(NPM_STAMP) postgresql
	npx --no-install tsc -p tsconfig.bench.json
	scripts/test-postgres.sh run -- node dist/bench/run.js

# Every gap between the contract and the public API's field inventory (tests/inventory/data), by operation:
# `make inventory` for errors, `make inventory WARNINGS=1` with warnings, `make inventory ONLY="list-vouchers Vouchers"`
# for some operations or tags. The unit test public-api-coverage fails on the same errors.
inventory: $(NPM_STAMP)
	@npx --no-install tsc --outDir dist/tools --rootDir . --module NodeNext --moduleResolution NodeNext --target ES2022 \
	  --strict --noUncheckedIndexedAccess --skipLibCheck --types node tests/inventory/report.ts
	@echo '{"type":"module"}' > dist/tools/package.json
	@CONTRACT_FILE=generated/openapi.json PUBLIC_API_INVENTORY=tests/inventory/data WARNINGS=$(WARNINGS) node dist/tools/tests/inventory/report.js $(ONLY)
