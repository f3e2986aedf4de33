# Two commands: `make run` (bootstrap, then launch the app) and `make test` (bootstrap, then every check).
VENV := .venv/bin
TEST_TIMEOUT ?= 840

.PHONY: run test bootstrap test-servers lint typecheck contracts pytest smoke bench bench-tiny package clean

bootstrap:
	@scripts/bootstrap.sh

# Real MCP servers for the integration tests (npm, pinned, project-local).
test-servers:
	@scripts/install-test-servers.sh

run: bootstrap
	$(VENV)/switchboard

smoke: bootstrap
	QT_QPA_PLATFORM=offscreen $(VENV)/switchboard --smoke-test

lint:
	$(VENV)/ruff check .
	$(VENV)/ruff format --check .

contracts:
	$(VENV)/lint-imports

typecheck:
	$(VENV)/mypy

# `timeout` guards against a hung qasync test (pytest-timeout cannot interrupt a stuck Qt event loop).
pytest:
	QT_QPA_PLATFORM=offscreen timeout --signal=KILL $(TEST_TIMEOUT) $(VENV)/pytest -q

# Every benchmark against its baseline, one table (benchmarks/bench.py; docs/performance.md).
bench: bootstrap test-servers
	QT_QPA_PLATFORM=offscreen $(VENV)/python benchmarks/bench.py

# Each benchmark once on tiny inputs, budgets not judged: keeps the scripts working (part of `make test`).
bench-tiny:
	QT_QPA_PLATFORM=offscreen timeout --signal=KILL 600 $(VENV)/python benchmarks/bench.py --tiny

test: bootstrap test-servers lint contracts typecheck pytest bench-tiny

# The frozen app, the .deb, the .tar.gz and the NSIS stand-in, then the checks on each (packaging/build.sh).
package: bootstrap
	packaging/build.sh

clean:
	rm -rf build dist .package-tools .venv .mypy_cache .ruff_cache .pytest_cache .import_linter_cache
