"""Which HTTP transport (streamable HTTP or legacy SSE) each server URL spoke last time, remembered in
``transports.json`` so the next connection tries that one first.

Apart from :mod:`.transports` (which imports the MCP SDK's client transports): the host builds its memory
when it is created, before any server connects and before the SDK is imported.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
from pathlib import Path
from typing import Literal

from desktop_app.runtime.host.jsonfiles import write_json_atomically

logger = logging.getLogger(__name__)

HttpKind = Literal["http", "sse"]


class TransportMemory:
    """Which HTTP transport worked per URL: in memory, and in ``path`` (JSON) when given.

    URLs are stored as SHA-256 digests, so a token in a query string never reaches the disk.
    """

    def __init__(self, path: Path | None = None) -> None:
        self._path = path
        self._known: dict[str, HttpKind] = {}
        if path is not None:
            with contextlib.suppress(OSError, ValueError):
                data = json.loads(path.read_text(encoding="utf-8"))
                if isinstance(data, dict):
                    self._known = {k: v for k, v in data.items() if v in ("http", "sse")}

    @staticmethod
    def _key(url: str) -> str:
        return hashlib.sha256(url.encode("utf-8")).hexdigest()

    def order(self, url: str) -> list[HttpKind]:
        """The transports to try, the one that worked last time first."""
        return ["sse", "http"] if self._known.get(self._key(url)) == "sse" else ["http", "sse"]

    def remember(self, url: str, kind: HttpKind) -> None:
        key = self._key(url)
        if self._known.get(key, "http") == kind:
            return
        self._known[key] = kind
        if self._path is not None:
            try:
                write_json_atomically(self._path, self._known)
            except OSError as exc:  # a read-only data folder must not break connecting
                logger.warning("could not save the MCP transport cache %s: %s", self._path, exc)


__all__ = ["HttpKind", "TransportMemory"]
