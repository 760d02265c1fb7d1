# Payment orchestration service. `make run` and `make test` work on a fresh clone with Node 20 and npm.
SHELL := /bin/bash
NPM ?= npm
# Two mocha configurations, neither with --exit: a run ends when its event loop drains, and the root hooks fail
# a run that leaves a handle open (test/support/leak-check.ts), so a leak shows up as a failure, not a hang.
MOCHA_UNIT := node_modules/.bin/mocha --config .mocharc.unit.json
MOCHA_INTEGRATION := node_modules/.bin/mocha --config .mocharc.integration.json
UNIT := 'test/unit/**/*.test.ts'
SERVER_SUITES := 'test/integration/**/*.test.ts' 'test/contract/**/*.test.ts' 'test/e2e/**/*.test.ts'
# How the service's processes run Node (README, Deployment): a 64 MB young generation, measured to cut scavenge time
# by about half and raise payments/s (docs/benchmarks.md, notes of the 25 Nov 20:36 run).
SERVICE_NODE := node --max-semi-space-size=64

.PHONY: all install build webhook-verifier client typecheck run test test-unit test-integration bench proto migrate clean

all: build

node_modules/.installed: package.json package-lock.json
	$(NPM) ci --no-audit --no-fund --loglevel=error
	@touch $@

install: node_modules/.installed

## The checkout page's browser code (web/checkout) is bundled into dist/web/checkout (scripts/build-checkout-page.ts).
## Rebuilds only what changed, so a warm `make run` starts in seconds: the stamp skips the build when no source is
## newer than the last good build, and tsc's incremental build info (kept in dist/, so `make clean` drops both)
## re-emits only what a change affects. The stamps are variables so test/integration/build/make-run.test.ts can
## dry-run the rules.
TS_SOURCES := $(shell find domain application infrastructure edge test bench scripts web webhook-verifier/src \( -name '*.ts' -o -name '*.json' \) -not -path '*/node_modules/*' 2>/dev/null)
BUILD_STAMP ?= dist/.built
VERIFIER_BUILD ?= webhook-verifier/dist/cjs/index.js

build: $(BUILD_STAMP)

$(BUILD_STAMP): node_modules/.installed $(VERIFIER_BUILD) $(TS_SOURCES) tsconfig.json
	node_modules/.bin/tsc -p tsconfig.json --incremental --tsBuildInfoFile dist/.tsbuildinfo
	node_modules/.bin/tsx scripts/build-checkout-page.ts
	@mkdir -p $(dir $@) && touch $@

## The webhook verifier package merchants install (webhook-verifier/README.md): CommonJS and declarations in
## webhook-verifier/dist/cjs, re-exported for ESM by webhook-verifier/esm/.
webhook-verifier: $(VERIFIER_BUILD)

$(VERIFIER_BUILD): node_modules/.installed webhook-verifier/src/index.ts webhook-verifier/tsconfig.json
	rm -rf webhook-verifier/dist
	node_modules/.bin/tsc -p webhook-verifier/tsconfig.json

## The typed client (clients/typescript/README.md): writes the OpenAPI document the service serves to
## clients/typescript/openapi.json and regenerates clients/typescript/src/schema.ts from it (openapi-typescript).
## Commit both: test/e2e/clients/typescript-client.test.ts fails when they are out of date.
client: install
	node_modules/.bin/tsx scripts/export-openapi.ts clients/typescript/openapi.json
	cd clients/typescript && ../../node_modules/.bin/openapi-typescript openapi.json --output src/schema.ts

typecheck: install
	node_modules/.bin/tsc --noEmit -p tsconfig.json
	node_modules/.bin/tsc --noEmit -p web/checkout/tsconfig.json

## Starts the whole service on http://127.0.0.1:8080 (PORT). Embedded mode without DATABASE_URL/NATS_URL.
run: build
	$(SERVICE_NODE) dist/infrastructure/main/main.js $(ROLE)

migrate: build
	$(SERVICE_NODE) dist/infrastructure/main/main.js migrate

## Every suite: type check, unit tests (no I/O), then integration, contract and end-to-end tests on the
## real PostgreSQL and NATS JetStream (TEST_DATABASE_URL / TEST_NATS_URL, default loopback).
## Each run prints its own 'N passed, N failed' line; the server suites run even when a unit test failed, and
## the target fails when either run did.
test: typecheck webhook-verifier
	status=0; $(MOCHA_UNIT) $(UNIT) || status=1; $(MOCHA_INTEGRATION) $(SERVER_SUITES) || status=1; exit $$status

test-unit: install
	$(MOCHA_UNIT) $(UNIT)

test-integration: install
	$(MOCHA_INTEGRATION) $(SERVER_SUITES)

## Load benchmark (autocannon) against the running service in embedded mode and on PostgreSQL + NATS.
bench: build
	node dist/bench/run-bench.js

## Regenerates the ts-proto code from proto/ (needs protoc: Debian package protobuf-compiler).
proto: install
	bash scripts/gen-proto.sh

clean:
	rm -rf dist .bench webhook-verifier/dist
