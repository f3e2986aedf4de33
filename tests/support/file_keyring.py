"""A keyring backend that keeps secrets in a JSON file named by ``$SWITCHBOARD_TEST_KEYRING_FILE``.

Tests put that file outside ``SWITCHBOARD_HOME`` and select the backend in a child process with
``PYTHON_KEYRING_BACKEND=tests.support.file_keyring.FileKeyring``, so a real ``switchboard``
process can store secrets that the test reads back, without touching the user's keyring.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import keyring.errors
from keyring.backend import KeyringBackend
from keyring.compat import properties

FILE_ENV = "SWITCHBOARD_TEST_KEYRING_FILE"


class FileKeyring(KeyringBackend):
    """Secrets as ``{"service\\u0000name": value}`` in one JSON file (for tests only)."""

    @properties.classproperty
    def priority(cls) -> float:
        """Only viable where the test configured a file, so keyring's auto-detection never picks it."""
        if not os.environ.get(FILE_ENV):
            raise RuntimeError(f"{FILE_ENV} is not set")
        return 1

    def __init__(self, path: Path | None = None) -> None:
        super().__init__()
        configured = path or os.environ.get(FILE_ENV)
        if not configured:
            raise keyring.errors.InitError(f"set {FILE_ENV} to the file this test keyring uses")
        self.path = Path(configured)

    def _load(self) -> dict[str, str]:
        try:
            data: dict[str, str] = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        return data

    def _save(self, data: dict[str, str]) -> None:
        self.path.write_text(json.dumps(data), encoding="utf-8")

    def get_password(self, service: str, username: str) -> str | None:
        return self._load().get(f"{service}\0{username}")

    def set_password(self, service: str, username: str, password: str) -> None:
        data = self._load()
        data[f"{service}\0{username}"] = password
        self._save(data)

    def delete_password(self, service: str, username: str) -> None:
        data = self._load()
        if data.pop(f"{service}\0{username}", None) is None:
            raise keyring.errors.PasswordDeleteError("not found")
        self._save(data)
