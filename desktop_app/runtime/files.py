"""Reading the user's files defensively: regular files only, with a size cap, as UTF-8, and JSON that cannot
exhaust the parser.

A FIFO, a device (``/dev/zero``), a socket or a folder is refused before anything is read, so it can never
hang or flood the process; a file over the cap is refused on its size. Every problem is a ``ConfigError``
naming the path and what to do (``switchboard`` prints it as one line and exits 2).
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

from desktop_app.runtime.errors import ConfigError

MAX_CONFIG_BYTES = 8 * 1024 * 1024
"""settings.json, mcp.json, grants and imported configs are small; anything bigger is not one of them."""


def file_kind(mode: int) -> str:
    """What a non-regular file is, in words."""
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def open_regular(path: Path) -> int:
    """Open ``path`` for reading without blocking on a FIFO, and refuse anything but a regular file.

    Returns the file descriptor (the caller closes it). Raises ``FileNotFoundError`` for a missing file,
    ``ConfigError`` for a FIFO, device, socket or folder, ``OSError`` for the rest."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags)
    except IsADirectoryError:
        raise ConfigError(path, "this is a folder, not a file; give the path of the file itself") from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise ConfigError(path, f"this is {file_kind(mode)}, not a regular file; give the path of a file")
    if hasattr(os, "set_blocking"):
        os.set_blocking(fd, True)
    return fd


def read_regular_file(path: Path, *, limit: int = MAX_CONFIG_BYTES) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes (see :func:`open_regular`)."""
    fd = open_regular(path)
    with os.fdopen(fd, "rb") as handle:
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise ConfigError(path, f"the file is larger than {limit // (1024 * 1024)} MiB; this is not a config file")
    return data


def decode_utf8(data: bytes, path: Path) -> str:
    """``data`` as UTF-8 text (a BOM is dropped); invalid bytes give a ``ConfigError`` with their place."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        before = data[: exc.start]
        line = before.count(b"\n") + 1
        column = exc.start - (before.rfind(b"\n") + 1) + 1
        raise ConfigError(
            path, f"the file is not valid UTF-8 (byte {exc.start}); save it as UTF-8", line=line, column=column
        ) from None


def read_config_text(path: Path, *, limit: int = MAX_CONFIG_BYTES) -> str:
    """A config file's text: regular file, size-capped, UTF-8. ``FileNotFoundError`` when it is missing;
    ``ConfigError`` for everything else that is wrong with it."""
    try:
        data = read_regular_file(path, limit=limit)
    except (FileNotFoundError, ConfigError):
        raise
    except PermissionError:
        raise ConfigError(path, "permission denied; make the file readable (or run as its owner)") from None
    except OSError as exc:
        raise ConfigError(path, f"cannot read the file: {exc.strerror or exc}") from None
    return decode_utf8(data, path)


def loads_json(text: str, path: Path) -> Any:
    """Strict JSON; errors carry line and column, and nesting too deep for the parser is an error too."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(path, f"invalid JSON: {exc.msg}", line=exc.lineno, column=exc.colno) from None
    except RecursionError:
        raise ConfigError(path, "the JSON is nested too deeply to be a config file; check the file") from None


__all__ = [
    "MAX_CONFIG_BYTES",
    "decode_utf8",
    "file_kind",
    "loads_json",
    "open_regular",
    "read_config_text",
    "read_regular_file",
]
