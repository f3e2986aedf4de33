"""Fixtures for the built-in server tests: a host that is closed after the test, and app paths in a temp folder."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from desktop_app.paths import AppPaths
from desktop_app.runtime.host import Host


@pytest_asyncio.fixture
async def host() -> AsyncIterator[Host]:
    host = Host(call_timeout=10)
    yield host
    await host.aclose()


@pytest.fixture
def paths(tmp_path: Path) -> AppPaths:
    return AppPaths(tmp_path / "config", tmp_path / "data", tmp_path / "logs").ensure()
