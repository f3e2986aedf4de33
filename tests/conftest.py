"""Shared test setup: Qt offscreen, an isolated SWITCHBOARD_HOME, an in-memory keyring, the LLM server."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")  # before any QApplication exists
os.environ.setdefault("SWITCHBOARD_REDUCED_MOTION", "1")  # folds end at once (test_motion.py animates)

from collections.abc import Iterator
from pathlib import Path

import keyring
import keyring.errors
import pytest
from keyring.backend import KeyringBackend

from tests.support.llm_server import ScriptedLLMServer


class MemoryKeyring(KeyringBackend):
    """An in-memory keyring backend, so tests never touch (or need) a real OS keyring."""

    priority = 1  # type: ignore[assignment]

    def __init__(self) -> None:
        super().__init__()
        self.store: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.store.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.store[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        try:
            del self.store[(service, username)]
        except KeyError:
            raise keyring.errors.PasswordDeleteError("not found") from None


@pytest.fixture(autouse=True)
def memory_keyring() -> Iterator[MemoryKeyring]:
    old = keyring.get_keyring()
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    yield backend
    keyring.set_keyring(old)


@pytest.fixture(autouse=True)
def forget_secrets() -> Iterator[None]:
    """Each test starts with no remembered secrets (runtime.redaction keeps them process-wide)."""
    from desktop_app.runtime.redaction import forget_all

    forget_all()
    yield
    forget_all()


@pytest.fixture(autouse=True)
def switchboard_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("SWITCHBOARD_HOME", str(home))
    return home


@pytest.fixture
def llm_server() -> Iterator[ScriptedLLMServer]:
    with ScriptedLLMServer() as server:
        yield server


@pytest.fixture(scope="session")
def packed_bundles(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The test bundles (tests/support/bundles), packed once per session by the official mcpb CLI."""
    from tests.support.bundles import HERE, pack

    out = tmp_path_factory.mktemp("bundles")
    names = ("python-probe", "node-probe", "hello-node", "python-lib", "binary-probe")
    return {name: pack(HERE / name, out) for name in names}
