"""Which tools had a view (``app-views.json`` in the data folder), so that a reopened conversation can say
why a view is missing when its server is gone, instead of silently showing text only."""

from __future__ import annotations

import json
import logging
from pathlib import Path

log = logging.getLogger(__name__)


class KnownViews:
    """``{server: {tool: ui uri}}``, remembered when a view is shown (``path`` ``None``: in memory only)."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path
        self._views: dict[str, dict[str, str]] = {}
        if path is not None and path.is_file():
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError) as exc:
                log.warning("could not read %s: %s", path, exc)
                data = {}
            if isinstance(data, dict):
                self._views = {
                    str(s): {str(t): str(u) for t, u in tools.items()}
                    for s, tools in data.items()
                    if isinstance(tools, dict)
                }

    def remember(self, server: str, tool: str, uri: str) -> None:
        if self._views.get(server, {}).get(tool) == uri:
            return
        self._views.setdefault(server, {})[tool] = uri
        if self.path is not None:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self.path.write_text(json.dumps(self._views, indent=1, sort_keys=True), encoding="utf-8")
            except OSError as exc:
                log.warning("could not write %s: %s", self.path, exc)

    def view(self, server: str, tool: str) -> str | None:
        return self._views.get(server, {}).get(tool)


__all__ = ["KnownViews"]
