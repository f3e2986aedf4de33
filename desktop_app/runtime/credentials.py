"""Secrets in the OS keyring (service ``switchboard``), never in files or logs.

When no keyring backend works, secrets are kept in memory for this session only and ``persistent``
turns False, so the UI can warn once. Plaintext on disk is never a silent fallback.

``keyring`` itself is imported with the first use of a secret (``discover_backend``), not with this module:
its import (``importlib_metadata``, ``jaraco``; ~30 ms) is not on the way to ``runtime: ready`` (issue 27).
"""

from __future__ import annotations

import logging
import sys
import threading
import types

from desktop_app.runtime.redaction import remember

SERVICE = "switchboard"
PROBE_NAME = "switchboard:keyring-probe"
"""Read (never written) by ``Credentials.check`` to see whether the keyring answers at all."""
log = logging.getLogger(__name__)
_discovery = threading.Lock()


def discover_backend() -> object:
    """keyring's backend, found once per process: keyring loads every installed backend through entry points
    and asks each whether it works here (on Linux the macOS backend's import alone runs
    ``ctypes.util.find_library`` three times, each a subprocess: 0.2-0.4 s of wall time, ~0.13 s of it CPU).
    The app starts this in a thread right after ``runtime: ready`` (``start_discovery``); every keyring use
    here goes through it, so a use that comes first waits for that discovery instead of running a second one."""
    with _discovery:
        _leave_out_macos_binding()
        return _import_keyring().get_keyring()


def start_discovery() -> None:
    """Run ``discover_backend`` in a daemon thread (the app: right after ``runtime: ready``); a secret read
    before it ends waits for it rather than running a second one."""

    def discover() -> None:
        try:
            discover_backend()
        except Exception:  # the first use of the keyring reports it (as "no usable keyring")
            log.debug("keyring discovery failed", exc_info=True)

    threading.Thread(target=discover, name="keyring-discovery", daemon=True).start()


def _keyring() -> types.ModuleType:
    """``keyring``, its backend found (``discover_backend``)."""
    discover_backend()
    return _import_keyring()


def _import_keyring() -> types.ModuleType:
    """``keyring`` with the modules used here (its errors, the null and fail backends), imported on first use."""
    import keyring
    import keyring.backends.fail
    import keyring.backends.null
    import keyring.errors

    return keyring


def _leave_out_macos_binding() -> None:
    """Away from macOS, keyring's macOS backend is never chosen (its priority raises "macOS required"), but its
    import loads its Security framework binding, whose ``ctypes.util.find_library`` calls run three
    subprocesses (~30 ms of CPU, more of wall time, on the way to ``runtime: ready``; issue 27). An empty
    stand-in for that binding module leaves the same backends to choose from, without the subprocesses."""
    if sys.platform != "darwin":
        sys.modules.setdefault("keyring.backends.macOS.api", types.ModuleType("keyring.backends.macOS.api"))


class Credentials:
    """Get, set and delete named secrets; falls back to memory (with ``persistent=False``) without a keyring."""

    def __init__(self, service: str = SERVICE) -> None:
        self._service = service
        self._memory: dict[str, str] = {}
        self.persistent = True
        self.problem: str | None = None

    def _fallback(self, exc: Exception) -> None:
        if self.persistent:
            self.persistent = False
            self.problem = (
                f"No usable system keyring ({type(exc).__name__}): secrets are kept in memory for this "
                "session only. Install and unlock a keyring (e.g. GNOME Keyring or KWallet) to remember them."
            )
            log.warning("%s", self.problem)

    def check(self) -> bool:
        """Whether secrets set now outlive this session. Probes the keyring once (a read of a name that is
        never set), so the UI can say "kept for this session only" *before* the user relies on a key. The
        ``null`` and ``fail`` backends count as no keyring."""
        if not self.persistent:
            return False
        backend = discover_backend()
        keyring = _import_keyring()
        if isinstance(backend, keyring.backends.null.Keyring | keyring.backends.fail.Keyring):
            self._fallback(keyring.errors.NoKeyringError(f"the {type(backend).__module__} backend stores nothing"))
            return False
        try:
            keyring.get_password(self._service, PROBE_NAME)
        except keyring.errors.KeyringError as exc:
            self._fallback(exc)
        return self.persistent

    def get(self, name: str) -> str | None:
        value = self._get(name)
        remember(value)  # whatever the keyring hands out is masked in every error text from now on
        return value

    def _get(self, name: str) -> str | None:
        if name in self._memory:
            return self._memory[name]
        if not self.persistent:
            return None
        keyring = _keyring()
        try:
            value: str | None = keyring.get_password(self._service, name)
        except keyring.errors.KeyringError as exc:
            self._fallback(exc)
            return None
        return value

    def set(self, name: str, value: str) -> None:
        remember(value)
        if self.persistent:
            keyring = _keyring()
            try:
                keyring.set_password(self._service, name, value)
                self._memory.pop(name, None)
                return
            except keyring.errors.KeyringError as exc:
                self._fallback(exc)
        self._memory[name] = value

    def delete(self, name: str) -> None:
        self._memory.pop(name, None)
        if not self.persistent:
            return
        keyring = _keyring()
        try:
            keyring.delete_password(self._service, name)
        except keyring.errors.PasswordDeleteError:
            pass
        except keyring.errors.KeyringError as exc:
            self._fallback(exc)
