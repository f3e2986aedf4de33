"""Credentials go to the keyring; without a usable keyring they stay in memory and the app is told."""

from __future__ import annotations

import keyring
import keyring.errors
from keyring.backend import KeyringBackend

from desktop_app.runtime.credentials import SERVICE, Credentials
from tests.conftest import MemoryKeyring


class BrokenKeyring(KeyringBackend):
    priority = 1  # type: ignore[assignment]

    def get_password(self, service: str, username: str) -> str | None:
        raise keyring.errors.NoKeyringError("no backend")

    def set_password(self, service: str, username: str, password: str) -> None:
        raise keyring.errors.NoKeyringError("no backend")

    def delete_password(self, service: str, username: str) -> None:
        raise keyring.errors.NoKeyringError("no backend")


def test_set_get_delete_use_the_keyring(memory_keyring: MemoryKeyring) -> None:
    creds = Credentials()
    creds.set("api-key:x", "sk-secret")
    assert memory_keyring.store[(SERVICE, "api-key:x")] == "sk-secret"
    assert creds.get("api-key:x") == "sk-secret"
    creds.delete("api-key:x")
    assert creds.get("api-key:x") is None
    creds.delete("api-key:x")  # deleting twice is fine


def test_without_a_keyring_secrets_stay_in_memory_and_a_problem_is_reported() -> None:
    old = keyring.get_keyring()
    keyring.set_keyring(BrokenKeyring())
    try:
        creds = Credentials()
        creds.set("api-key:x", "sk-secret")
        assert creds.get("api-key:x") == "sk-secret"
        assert creds.persistent is False
        assert creds.problem is not None and "memory" in creds.problem
    finally:
        keyring.set_keyring(old)
