"""Reading foreign config files with positioned errors, and writing JSON atomically.

* :func:`parse_json` accepts plain JSON and, failing that, JSON with comments and trailing commas
  (VS Code's ``mcp.json``); errors carry line and column.
* :func:`parse_yaml` needs ``pyyaml`` (imported lazily, so JSON-only installs work); errors carry
  line and column.
* :func:`write_json_atomically` writes through a temporary file in the same folder and renames it,
  so a crash never leaves a half-written ``mcp.json``.
"""

from __future__ import annotations

import importlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from desktop_app.runtime.errors import ConfigError


def strip_jsonc(text: str) -> str:
    """JSON with comments and trailing commas → JSON; positions are kept (removed text becomes spaces)."""
    out = list(text)
    i, n, in_string = 0, len(text), False
    last_comma, last_significant = -1, ""
    while i < n:
        c = text[i]
        if in_string:
            if c == "\\":
                i += 1
            elif c == '"':
                in_string = False
            i += 1
            continue
        if text.startswith("//", i) or text.startswith("/*", i):
            line = text[i + 1] == "/"
            end = text.find("\n", i) if line else text.find("*/", i + 2)
            end = n if end == -1 else (end if line else end + 2)
            for j in range(i, end):
                out[j] = text[j] if text[j] == "\n" else " "
            i = end
            continue
        if c in "}]" and last_comma != -1:
            out[last_comma] = " "
        if not c.isspace():
            last_comma = i if c == "," and last_significant not in ("", "{", "[", ",") else -1
            last_significant = c
        in_string = c == '"'
        i += 1
    return "".join(out)


def parse_json(text: str, path: Path) -> Any:
    """The one JSON reader of config files (``mcp.json``, imports): JSON, else JSON with comments and
    trailing commas; errors carry line and column, and nesting too deep for the parser is an error."""
    from desktop_app.runtime.files import loads_json

    try:
        return json.loads(text)
    except json.JSONDecodeError:
        pass
    except RecursionError:
        raise ConfigError(path, "the JSON is nested too deeply to be a config file; check the file") from None
    return loads_json(strip_jsonc(text), path)


def parse_yaml(text: str, path: Path) -> Any:
    try:
        yaml: Any = importlib.import_module("yaml")
    except ImportError:
        raise ConfigError(path, "reading YAML needs the 'pyyaml' package; install it and try again") from None
    try:
        return yaml.safe_load(text)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line, column = (mark.line + 1, mark.column + 1) if mark is not None else (None, None)
        raise ConfigError(path, f"invalid YAML: {exc.problem or exc}", line=line, column=column) from None
    except yaml.YAMLError as exc:
        raise ConfigError(path, f"invalid YAML: {exc}") from None
    except RecursionError:  # 10,000 nested brackets: this file is refused, the others keep working
        raise ConfigError(path, "the YAML is nested too deeply to be read; check the file") from None


def write_bytes_atomically(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a flushed, synced temporary file in the same folder (mode 0600),
    renamed over the target: readers see the old file or the new one, never a torn write."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def write_json_atomically(path: Path, document: Any) -> None:
    """Write ``document`` (indented JSON) to ``path`` with :func:`write_bytes_atomically`."""
    write_bytes_atomically(path, (json.dumps(document, indent=2, ensure_ascii=False) + "\n").encode("utf-8"))


__all__ = ["parse_json", "parse_yaml", "strip_jsonc", "write_bytes_atomically", "write_json_atomically"]
