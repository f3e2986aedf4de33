"""Hook trust: which hooks may run. Kept by content hash in ``<data>/hooks/trust.json``.

Hooks from the user's own settings and mcp.json are trusted. Hooks from a project folder, a plugin or an
imported file start **untrusted** and never run until the user trusts them; trust records the hook's
content hash, so editing the hook makes it **modified** and inactive again. A command hook's hash also covers
the files its command names (each word that is an existing file, relative to the hook's working folder, with
symlinks resolved: the real path and the file's SHA-256), so editing the script it runs, retargeting a
symlink or a plugin update that replaces the script makes it **modified** too. Any hook can be disabled.

File shape (Whale's): ``{"hooks": {"<key>": {"trusted_hash": "…", "enabled": true}}}``.
"""

from __future__ import annotations

import hashlib
import json
import os
import shlex
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


MAX_HASHED_BYTES = 64 * 1024 * 1024
"""A file a hook runs is hashed up to this size; beyond it, its size and modification time stand in."""


def _file_digest(path: Path) -> str:
    """``sha256:<hex>`` of a regular file (never opening a FIFO or a device), or why it has none."""
    from desktop_app.runtime.errors import ConfigError
    from desktop_app.runtime.files import open_regular

    try:
        fd = open_regular(path)
    except (OSError, ConfigError) as exc:
        return f"unreadable:{type(exc).__name__}"
    digest = hashlib.sha256()
    with os.fdopen(fd, "rb") as handle:
        size = os.fstat(handle.fileno()).st_size
        if size > MAX_HASHED_BYTES:
            return f"large:{size}:{os.fstat(handle.fileno()).st_mtime_ns}"
        while chunk := handle.read(1024 * 1024):
            digest.update(chunk)
    return "sha256:" + digest.hexdigest()


INTERPRETERS = frozenset(
    {"sh", "bash", "zsh", "dash", "ksh", "fish", "python", "python3", "node", "deno", "bun", "ruby", "perl", "php"}
    | {"pwsh", "powershell", "lua", "Rscript", "osascript", "source", "."}
)
"""Programs whose first non-option argument is the script they run."""
_SEPARATORS = frozenset({";", "&", "&&", "|", "||", "(", ")", "\n"})


def _segments(command: str) -> list[list[str]]:
    """The simple commands of a shell command line (split at ``;``, ``&&``, ``|`` …), redirections dropped."""
    lexer = shlex.shlex(command.replace("\n", " ; "), posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    try:
        tokens = list(lexer)
    except ValueError:
        tokens = command.split()
    segments: list[list[str]] = [[]]
    skip = False
    for token in tokens:
        if token in _SEPARATORS or set(token) <= set(";&|()"):
            segments.append([])
        elif set(token) <= set("<>"):
            skip = True  # the next word is a redirection target, not something that runs
        elif skip:
            skip = False
        else:
            segments[-1].append(token)
    return [segment for segment in segments if segment]


def _runs(segment: list[str]) -> list[str]:
    """The words of one simple command that name what runs: the program, and an interpreter's script."""
    words = [w for w in segment if not (w[:1].isalpha() and "=" in w.split("/")[0])]  # drop NAME=value
    while words and Path(words[0]).name in ("env", "exec", "nohup", "command", "time"):
        words = words[1:]
    if not words:
        return []
    found = [words[0]]
    if Path(words[0]).name.rstrip("0123456789.") in INTERPRETERS or Path(words[0]).name in INTERPRETERS:
        rest = words[1:]
        while rest and rest[0].startswith("-"):
            if rest[0] in ("-c", "-e", "-m", "--eval", "-Command"):
                return found  # inline code: the text is in the definition already
            rest = rest[1:]
        if rest:
            found.append(rest[0])
    return found


def executed_files(command: str, cwd: Path | None) -> dict[str, str]:
    """The files a command runs (its programs given as paths, and the scripts interpreters run), relative to
    ``cwd`` unless absolute, by their real path (symlinks resolved), with their digests."""
    found: dict[str, str] = {}
    for segment in _segments(command):
        for word in _runs(segment):
            candidate = Path(os.path.expanduser(word))
            if not candidate.is_absolute():
                if cwd is None or ("/" not in word and os.sep not in word and not (cwd / word).is_file()):
                    continue
                candidate = cwd / candidate
            try:
                if not candidate.exists() or candidate.is_dir():
                    continue
                real = candidate.resolve(strict=True)
            except (OSError, RuntimeError):
                continue
            found[f"{word} -> {real}"] = _file_digest(real)
    return found


def lifecycle_entry(hook: LifecycleHook, cwd: Path | None = None) -> HookEntry:
    """The hook as trust sees it; ``cwd`` is the folder its command runs in (the runner's), for the files it
    names."""
    definition = hook.definition
    source = hook.source
    path = str(source.path or "")
    key = _digest(hook.event, definition.type, source.kind, path, definition.match or "", str(hook.ordinal))[:16]
    files: dict[str, str] = {}
    if definition.type == "command" and definition.command:
        workdir = (cwd or Path.cwd()) / definition.cwd if definition.cwd else cwd
        files = executed_files(definition.command, workdir)
    content = json.dumps(
        {
            "event": hook.event,
            "source": [source.kind, path],
            # Whale's hooks hash as before the format field existed (their trust stays)
            "hook": definition.model_dump(mode="json", exclude={"format"} if definition.format == "whale" else None),
        }
        | ({"files": files} if files else {}),
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
        from desktop_app.runtime.errors import ConfigError
        from desktop_app.runtime.files import loads_json, read_config_text

        try:  # a regular file only (a FIFO or /dev/zero is refused, never waited on), size-capped
            data = loads_json(read_config_text(path), path)
        except FileNotFoundError:
            return  # an empty, non-nil map: project hooks start untrusted
        except ConfigError as exc:
            self.problem = f"{path}: the hook trust file cannot be read ({exc.problem}); untrusted hooks stay off"
            return
        except OSError as exc:
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
