# Concord: `make demo` runs a short demo on real temporary stores; `make test` runs the test suite.
# `make docs` builds the DocC site into .build/docs-site; `make example` runs the three-process example.
# Each installs what it needs (liblmdb-dev, libsqlite3-dev for the benchmark, libpq-dev, postgresql,
# pgbouncer and openssl for the hub) when it is missing.

SWIFT ?= swift
BIN := $(shell $(SWIFT) build --show-bin-path 2>/dev/null)

.PHONY: deps build test lint format demo docs surface example bench stress clean

deps:
	@Scripts/install-deps.sh

build: deps
	$(SWIFT) build --build-tests

# The toolchain's swift-format, with the checked-in .swift-format configuration.
FORMATTED := Sources Tools Tests Examples Package.swift

lint:
	$(SWIFT) format lint --strict --recursive $(FORMATTED)

format:
	$(SWIFT) format format --in-place --recursive $(FORMATTED)

# The tests run in two passes. Swift Testing runs every test on Swift's cooperative pool, which has one
# thread per core (two on the CI machine); the tests that start real processes (sync-tool, sshd,
# PostgreSQL) block a thread while they wait, and with enough of them at once the in-process tests that
# await deliveries from observers, streams and actors get no thread for minutes and hit their time
# limits. So the in-process library tests run first on their own, then everything else.
IN_PROCESS_TESTS := ^(ConcordTests|ConcordStoreTests|ConcordTestingTests|LMDBTests)\.

test: build lint
	@Scripts/layers.sh "$(BIN)"
	$(SWIFT) test --skip-build --filter '$(IN_PROCESS_TESTS)'
	$(SWIFT) test --skip-build --skip '$(IN_PROCESS_TESTS)'
	@Scripts/docs.sh "$(BIN)"
	@Scripts/doc-examples.sh "$(BIN)"
	@Scripts/example.sh "$(BIN)" --check
	@Scripts/smoke-tools.sh "$(BIN)"

demo: deps
	$(SWIFT) build --product sync-tool
	@Scripts/demo.sh "$(BIN)"

docs: deps
	$(SWIFT) build --target Concord
	$(SWIFT) build --target ConcordTesting
	$(SWIFT) build --target ConcordHub
	$(SWIFT) build --product doc-check
	$(SWIFT) build --product api-surface
	@Scripts/docs.sh "$(BIN)"

# Rewrites the list of public types in docs/ARCHITECTURE.md from the symbol graphs (then checks the docs).
surface: deps
	$(SWIFT) build --target Concord
	$(SWIFT) build --target ConcordTesting
	$(SWIFT) build --target ConcordHub
	$(SWIFT) build --product doc-check
	$(SWIFT) build --product api-surface
	@SURFACE_WRITE=1 Scripts/docs.sh "$(BIN)"

example: deps
	$(SWIFT) build --product example-app
	$(SWIFT) build --product example-widget
	$(SWIFT) build --product example-watch
	@Scripts/example.sh "$(BIN)"

# The sync workload compares merging with pycrdt (PyPI), installed into a virtual environment of its own.
# The run's figures are also saved as JSON and drawn as an SVG chart in .build/bench (bench --save, --svg).
BENCH_VENV := .build/bench-venv

$(BENCH_VENV)/installed:
	python3 -m venv $(BENCH_VENV)
	$(BENCH_VENV)/bin/pip install --quiet --disable-pip-version-check pycrdt
	touch $@

bench: deps $(BENCH_VENV)/installed
	$(SWIFT) build -c release --product bench
	$(SWIFT) build -c release --product sync-tool
	@mkdir -p .build/bench
	BENCH_PYTHON=$(CURDIR)/$(BENCH_VENV)/bin/python3 $$($(SWIFT) build -c release --show-bin-path)/bench \
		--save .build/bench/report.json --svg .build/bench/report.svg
	@echo "bench: the chart is .build/bench/report.svg, the figures .build/bench/report.json"

stress: deps
	$(SWIFT) build -c release --product stress-test
	$(SWIFT) build -c release --product sync-tool
	$$($(SWIFT) build -c release --show-bin-path)/stress-test --seconds 60 --kill-rate 2
	$$($(SWIFT) build -c release --show-bin-path)/stress-test --encrypted --hub --seconds 30 --kill-rate 2

clean:
	rm -rf .build
