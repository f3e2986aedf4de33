"""Hook trust: which hooks may run. Kept by content hash in ``<data>/hooks/trust.json``.

Hooks from the user's own settings and mcp.json are trusted. Hooks from a project folder, a plugin or an
imported file start **untrusted** and never run until the user trusts them; trust records the hook's
content hash, so editing the hook makes it **modified** and inactive again. Any hook can be disabled.

File shape (Whale's): ``{"hooks": {"<key>": {"trusted_hash": "…", "enabled": true}}}``.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from desktop_app.runtime.hooks.message import HookMapping, HookTarget
from desktop_app.runtime.hooks.model import HookSource, LifecycleHook

TrustState = Literal["trusted", "untrusted", "modified", "disabled"]


@dataclass(frozen=True)
class HookEntry:
    """One hook as the review screen and the trust store see it (a message hook target is one entry)."""

    key: str
    content_hash: str
    event: str
    type: str
    source: HookSource
    body: str
    """The full command, URL or ``server/tool`` target."""
    match: str = ""
    scope: str | None = None
    description: str = ""


def _digest(*parts: str) -> str:
    return hashlib.sha256("\0".join(parts).encode("utf-8")).hexdigest()


def lifecycle_entry(hook: LifecycleHook) -> HookEntry:
    definition = hook.definition
    source = hook.source
    path = str(source.path or "")
    key = _digest(hook.event, definition.type, source.kind, path, definition.match or "", str(hook.ordinal))[:16]
    content = json.dumps(
        {"event": hook.event, "source": [source.kind, path], "hook": definition.model_dump(mode="json")},
        sort_keys=True,
    )
    return HookEntry(
        key=key,
        content_hash=hashlib.sha256(content.encode("utf-8")).hexdigest(),
        event=hook.event,
        type=definition.type,
        source=source,
        body=definition.body,
        match=definition.match or "",
        description=definition.description or "",
    )


def message_entry(mapping: HookMapping, index: int, target: HookTarget) -> HookEntry:
    source = mapping.source
    path = str(source.path or "")
    scope = mapping.scope or ""
    key = _digest("message", source.kind, path, scope, mapping.key, str(index))[:16]
    content = _digest("message", source.kind, path, scope, mapping.key, str(target))
    return HookEntry(
        key=key,
        content_hash=content,
        event=mapping.key,
        type="mcp",
        source=source,
        body=str(target),
        scope=mapping.scope,
    )


class TrustStore:
    """Trust and enabled flags by hook key; saved on every change. ``path=None`` keeps them in memory."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path
        self.problem: str | None = None
        self._hooks: dict[str, dict[str, Any]] = {}
        if path is not None:
            self._load(path)

    def _load(self, path: Path) -> None:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return  # an empty, non-nil map: project hooks start untrusted
        except (OSError, ValueError) as exc:
            self.problem = f"{path}: the hook trust file cannot be read ({exc}); untrusted hooks stay off"
            return
        hooks = data.get("hooks") if isinstance(data, dict) else None
        if isinstance(hooks, dict):
            self._hooks = {str(k): dict(v) for k, v in hooks.items() if isinstance(v, dict)}

    def _save(self) -> None:
        if self.path is None or self.problem is not None:
            return  # never overwrite a file we could not read
        from desktop_app.runtime.settings import write_text_atomically

        write_text_atomically(self.path, json.dumps({"hooks": self._hooks}, indent=2, sort_keys=True) + "\n")

    def state(self, entry: HookEntry) -> TrustState:
        record = self._hooks.get(entry.key, {})
        if record.get("enabled") is False:
            return "disabled"
        if entry.source.trusted_by_default:
            return "trusted"
        trusted = record.get("trusted_hash")
        if not trusted:
            return "untrusted"
        return "trusted" if trusted == entry.content_hash else "modified"

    def active(self, entry: HookEntry) -> bool:
        return self.state(entry) == "trusted"

    def trust(self, entry: HookEntry) -> None:
        """Trust this exact content (and enable it)."""
        record = self._hooks.setdefault(entry.key, {})
        record["trusted_hash"] = entry.content_hash
        record["enabled"] = True
        self._save()

    def revoke(self, entry: HookEntry) -> None:
        """Forget the trust: an untrusted-by-default hook becomes untrusted (and inactive)."""
        record = self._hooks.setdefault(entry.key, {})
        record.pop("trusted_hash", None)
        self._save()

    def forget(self, keys: list[str]) -> None:
        """Drop every record of these hooks (their source is gone: a removed plugin leaves nothing here)."""
        if any(key in self._hooks for key in keys):
            for key in keys:
                self._hooks.pop(key, None)
            self._save()

    def set_enabled(self, entry: HookEntry, enabled: bool) -> None:
        record = self._hooks.setdefault(entry.key, {})
        record["enabled"] = enabled
        self._save()
