"""``switchboard.artifacts``: text the model saves for the user, kept as files in ``<data_dir>/artifacts/``.

Tools (bare names):

* ``save_artifact(name, content, mime_type="text/plain")`` writes, so it is *not* read-only and asks for
  approval like any tool that changes something. An existing artifact of that name is replaced.
* ``list_artifacts()`` and ``read_artifact(name)`` only read (``readOnlyHint``) and never ask.

Names are plain file names: no ``..``, no path separators, no absolute or drive paths, no leading dot, no
control or reserved characters; anything else is refused with an error that says why. Content is capped
at :data:`MAX_ARTIFACT_BYTES` (UTF-8). Writes are atomic (a temporary file in the same folder, flushed,
synced and renamed over the target); the MIME types live in a small index file, ``.index.json``, written
the same way. :class:`ArtifactStore` is the plain file logic; :func:`make_artifacts_server` puts the
tools on top of it.
"""

from __future__ import annotations

import asyncio
import json
import mimetypes
import os
import re
from datetime import UTC, datetime
from pathlib import Path

import mcp_types as mtypes
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import BaseModel

from desktop_app import __version__
from desktop_app.runtime.host.jsonfiles import write_bytes_atomically
from desktop_app.runtime.in_process import in_process_server

SERVER_NAME = "switchboard.artifacts"
FOLDER_NAME = "artifacts"
INDEX_NAME = ".index.json"
MAX_ARTIFACT_BYTES = 1024 * 1024
MAX_NAME_LENGTH = 128
DEFAULT_MIME = "text/plain"
READ_ONLY = mtypes.ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True)
WRITES = mtypes.ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=True)

_MIME = re.compile(r"^[A-Za-z0-9][\w.+-]*/[A-Za-z0-9][\w.+-]*(\s*;\s*[\w.+-]+=[^;\s]+)*$")
_RESERVED_CHARS = set('<>:"|?*')
_WINDOWS_DEVICES = {"CON", "PRN", "AUX", "NUL", *(f"COM{i}" for i in range(1, 10)), *(f"LPT{i}" for i in range(1, 10))}
_NAME_RULE = "use a plain file name such as 'notes.md' (letters, digits, spaces, '-', '_', '.')"


class ArtifactError(ValueError):
    """A refused artifact operation; the message is meant for the model and the user."""


class ArtifactInfo(BaseModel):
    name: str
    size_bytes: int
    modified: str
    mime_type: str


class ArtifactList(BaseModel):
    """What ``list_artifacts`` returns."""

    folder: str
    artifacts: list[ArtifactInfo]


def _size_label(size: int) -> str:
    return f"{size / (1024 * 1024):g} MiB" if size % (1024 * 1024) == 0 else f"{size:,} bytes"


def check_name(name: str) -> str:
    """``name`` if it is a safe plain file name; otherwise :class:`ArtifactError` saying why."""
    shown = repr(name)
    if not name or not name.strip():
        raise ArtifactError(f"The artifact name is empty; {_NAME_RULE}.")
    if "/" in name or "\\" in name or os.sep in name or (os.altsep and os.altsep in name):
        raise ArtifactError(f"Invalid artifact name {shown}: path separators are not allowed; {_NAME_RULE}.")
    if name in (".", "..") or ".." in name:
        raise ArtifactError(f"Invalid artifact name {shown}: '..' is not allowed; {_NAME_RULE}.")
    if os.path.isabs(name) or re.match(r"^[A-Za-z]:", name):
        raise ArtifactError(f"Invalid artifact name {shown}: absolute paths are not allowed; {_NAME_RULE}.")
    if name.startswith("."):
        raise ArtifactError(f"Invalid artifact name {shown}: names may not start with '.'; {_NAME_RULE}.")
    if any(ord(c) < 32 or ord(c) == 127 or c in _RESERVED_CHARS for c in name):
        raise ArtifactError(
            f'Invalid artifact name {shown}: control characters and <>:"|?* are not allowed; {_NAME_RULE}.'
        )
    if name != name.strip() or name.endswith("."):
        raise ArtifactError(f"Invalid artifact name {shown}: it may not start or end with a space or end with '.'.")
    if name.split(".", 1)[0].upper() in _WINDOWS_DEVICES:
        raise ArtifactError(f"Invalid artifact name {shown}: it is a reserved device name on Windows.")
    if len(name) > MAX_NAME_LENGTH:
        raise ArtifactError(f"The artifact name is {len(name)} characters long; the limit is {MAX_NAME_LENGTH}.")
    return name


def check_mime(mime_type: str) -> str:
    mime = mime_type.strip() or DEFAULT_MIME
    if not _MIME.match(mime):
        raise ArtifactError(f"Invalid MIME type {mime_type!r}; use a type such as 'text/plain' or 'text/markdown'.")
    return mime


class ArtifactStore:
    """Artifacts as files in ``folder`` (created on first save), with their MIME types in an index file."""

    def __init__(self, folder: Path, *, max_bytes: int = MAX_ARTIFACT_BYTES) -> None:
        self.folder = folder
        self.max_bytes = max_bytes

    def _path(self, name: str) -> Path:
        return self.folder / check_name(name)

    def _index(self) -> dict[str, str]:
        try:
            data = json.loads((self.folder / INDEX_NAME).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}

    def _mime_of(self, name: str, index: dict[str, str]) -> str:
        return index.get(name) or mimetypes.guess_type(name)[0] or "application/octet-stream"

    def save(self, name: str, content: str, mime_type: str = DEFAULT_MIME) -> ArtifactInfo:
        """Write (or replace) an artifact atomically; refuses unsafe names and content over the cap."""
        path = self._path(name)
        mime = check_mime(mime_type)
        data = content.encode("utf-8")
        if len(data) > self.max_bytes:
            raise ArtifactError(
                f"The artifact is {len(data):,} bytes; the limit is {_size_label(self.max_bytes)}. "
                "Save a shorter text, or split it into several artifacts."
            )
        self.folder.mkdir(parents=True, exist_ok=True)
        if path.is_symlink() or (path.exists() and not path.is_file()):
            raise ArtifactError(f"{name!r} exists in the artifacts folder but is not a plain file; pick another name.")
        write_bytes_atomically(path, data)
        index = self._index()
        if index.get(name) != mime:
            index[name] = mime
            write_bytes_atomically(
                self.folder / INDEX_NAME, json.dumps(index, indent=2, sort_keys=True).encode("utf-8")
            )
        return self._info(path, index)

    def _info(self, path: Path, index: dict[str, str]) -> ArtifactInfo:
        stat = path.stat()
        modified = datetime.fromtimestamp(stat.st_mtime, UTC).astimezone().isoformat(timespec="seconds")
        return ArtifactInfo(
            name=path.name, size_bytes=stat.st_size, modified=modified, mime_type=self._mime_of(path.name, index)
        )

    def list(self) -> list[ArtifactInfo]:
        """Every artifact (plain files only, no hidden or temporary ones), sorted by name."""
        if not self.folder.is_dir():
            return []
        index = self._index()
        found = [
            self._info(entry, index)
            for entry in self.folder.iterdir()
            if not entry.name.startswith(".") and not entry.is_symlink() and entry.is_file()
        ]
        return sorted(found, key=lambda info: info.name)

    def read(self, name: str) -> str:
        """The artifact's text; unknown names, non-files and non-UTF-8 content are refused."""
        path = self._path(name)
        if path.is_symlink() or not path.is_file():
            known = ", ".join(info.name for info in self.list()[:20]) or "none yet"
            raise ArtifactError(f"There is no artifact named {name!r} (artifacts: {known}).")
        try:
            return path.read_bytes().decode("utf-8")
        except UnicodeDecodeError:
            raise ArtifactError(f"The artifact {name!r} is not UTF-8 text and cannot be shown.") from None


def make_artifacts_server(folder: Path, *, max_bytes: int = MAX_ARTIFACT_BYTES) -> MCPServer:
    """A new ``switchboard.artifacts`` server storing files in ``folder``."""
    store = ArtifactStore(folder, max_bytes=max_bytes)
    lock = asyncio.Lock()  # one save at a time: the index file is read, changed and replaced
    server = in_process_server(SERVER_NAME, version=__version__, log_level="WARNING")

    @server.tool(
        description=(
            "Save text as a named artifact (a file in the user's Switchboard artifacts folder) so that the user "
            "can keep it. name: a plain file name such as 'plan.md'; an artifact with that name is replaced. "
            f"content: the text (at most {_size_label(max_bytes)}). mime_type: e.g. text/markdown, text/csv."
        ),
        annotations=WRITES,
        structured_output=False,
    )
    async def save_artifact(name: str, content: str, mime_type: str = DEFAULT_MIME) -> str:
        async with lock:
            try:
                info = await asyncio.to_thread(store.save, name, content, mime_type)
            except (ArtifactError, OSError) as exc:
                raise ToolError(str(exc)) from None
        return (
            f"Saved artifact {info.name!r} ({info.size_bytes:,} bytes, {info.mime_type}) to {store.folder / info.name}."
        )

    @server.tool(
        description="List the saved artifacts with their size in bytes, last modification time and MIME type.",
        annotations=READ_ONLY,
        structured_output=False,
    )
    async def list_artifacts() -> ArtifactList:
        try:
            items = await asyncio.to_thread(store.list)
        except OSError as exc:
            raise ToolError(f"The artifacts folder cannot be read: {exc}") from None
        return ArtifactList(folder=str(store.folder), artifacts=items)

    @server.tool(
        description="Read a saved artifact's text, by its name (see list_artifacts).",
        annotations=READ_ONLY,
        structured_output=False,
    )
    async def read_artifact(name: str) -> str:
        try:
            return await asyncio.to_thread(store.read, name)
        except (ArtifactError, OSError) as exc:
            raise ToolError(str(exc)) from None

    return server
