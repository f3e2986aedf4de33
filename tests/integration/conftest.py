"""Fixtures of the integration tests (the session-wide ones are in ``tests/conftest.py``)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.register_assert_rewrite("tests.support.cli_ask")  # its assert_* helpers report like test asserts

from tests.support.cli_ask import time_server_config  # noqa: E402  (after the rewrite hook)


@pytest.fixture
def time_config(tmp_path: Path) -> Path:
    """An ``mcp.json`` with the real mcp-server-time as ``time``."""
    return time_server_config(tmp_path / "mcp.json")
