"""asyncio without ``ssl`` until something asks for ``ssl`` (issue 27: ~6 ms off the way to ``runtime: ready``).

asyncio imports ``ssl`` as it loads (``base_events``, ``selector_events`` and ``sslproto`` each do
``try: import ssl``), and ``ssl`` is the costliest part of it: OpenSSL's shared libraries and a dozen enums,
~6 ms of the ~15 ms asyncio costs on the way from the first paint to ready, where nothing speaks TLS. The
first HTTPS request imports ``ssl`` anyway (httpx does, with the provider stack, after ready).

``import_asyncio`` therefore imports asyncio while ``ssl`` is marked missing (asyncio then keeps ``ssl =
None``, its own fallback for a Python built without it), and puts a finder in front of ``sys.meta_path``
that, when ``ssl`` is really imported — by any module, in any thread — hands the module to those three
asyncio modules (and ``sslproto.SSLAgainErrors``, which asyncio sets from ``ssl`` at import) before the
import returns, and then leaves. From then on asyncio is exactly as if ``ssl`` had come first. Anything that
asks asyncio for TLS has imported ``ssl`` to make its context, so it never sees the gap.
"""

from __future__ import annotations

import sys
import types
from collections.abc import Sequence
from typing import Any

ASYNCIO_USERS = ("asyncio.base_events", "asyncio.selector_events", "asyncio.sslproto")
"""The asyncio modules that bind ``ssl`` when they load."""


def join_asyncio(ssl: types.ModuleType) -> None:
    """Give asyncio the ``ssl`` module it went without (a module that has it already is left alone)."""
    for name in ASYNCIO_USERS:
        module = sys.modules.get(name)
        if module is not None and getattr(module, "ssl", None) is None:
            module.ssl = ssl  # type: ignore[attr-defined]
    sslproto = sys.modules.get("asyncio.sslproto")
    if sslproto is not None and not hasattr(sslproto, "SSLAgainErrors"):
        sslproto.SSLAgainErrors = (ssl.SSLWantReadError, ssl.SSLSyscallError)  # type: ignore[attr-defined]


class _JoiningLoader:
    """``ssl``'s own loader, then ``join_asyncio``; the finder leaves once ``ssl`` has loaded."""

    def __init__(self, inner: Any, finder: SslFinder) -> None:
        self.inner = inner
        self.finder = finder

    def create_module(self, spec: Any) -> types.ModuleType | None:
        module: types.ModuleType | None = self.inner.create_module(spec)
        return module

    def exec_module(self, module: types.ModuleType) -> None:
        self.inner.exec_module(module)
        join_asyncio(module)
        # A new list, not remove(): another thread may be walking the old one for another import.
        sys.meta_path = [finder for finder in sys.meta_path if finder is not self.finder]


class SslFinder:
    """First on ``sys.meta_path`` until ``ssl`` has loaded: asks the other finders for it and has it loaded by
    ``_JoiningLoader``. It stays until then, so a mere ``importlib.util.find_spec("ssl")`` does not disarm it."""

    def find_spec(self, name: str, path: Sequence[str] | None = None, target: Any = None) -> Any:
        if name != "ssl":
            return None
        spec = None
        for finder in list(sys.meta_path):  # as the import system asks them (a frozen app's own finder too)
            find = getattr(finder, "find_spec", None) if finder is not self else None
            spec = find(name, path, target) if find is not None else None
            if spec is not None:
                break
        if spec is None or spec.loader is None:
            return None  # the other finders answer (as without this one)
        spec.loader = _JoiningLoader(spec.loader, self)
        return spec


def import_asyncio() -> types.ModuleType:
    """Import asyncio without ``ssl`` (see the module's docstring); asyncio as it is when either is loaded."""
    if "asyncio" in sys.modules or "ssl" in sys.modules:
        import asyncio

        return asyncio
    sys.modules["ssl"] = None  # type: ignore[assignment]  # "not installed": asyncio keeps ssl = None
    try:
        import asyncio
    finally:
        if sys.modules.get("ssl", 0) is None:
            del sys.modules["ssl"]
    sys.meta_path.insert(0, SslFinder())
    return asyncio


__all__ = ["ASYNCIO_USERS", "SslFinder", "import_asyncio", "join_asyncio"]
