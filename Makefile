# Two commands: `make run` (bootstrap, then launch the app) and `make test` (bootstrap, then every check).
VENV := .venv/bin
TEST_TIMEOUT ?= 840

.PHONY: run test bootstrap test-servers lint typecheck contracts pytest smoke clean

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

test: bootstrap test-servers lint contracts typecheck pytest

clean:
	rm -rf .venv .mypy_cache .ruff_cache .pytest_cache .import_linter_cache
