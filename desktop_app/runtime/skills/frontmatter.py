"""Markdown frontmatter as Claude Code reads it: strict YAML first, else one ``key: value`` per line.

Claude Code loads agent, command and skill files whose frontmatter is not strict YAML: the common case is a
``description`` holding ``: `` unquoted (``description: Use it when: the user asks``), which a YAML parser
refuses with "mapping values are not allowed here". :func:`split_lenient` reads such a block line by line
instead — a top-level ``key: value`` (quotes around the value removed), indented ``- item`` lines under an
empty value as a list, any other indented line continuing the value before it — and says so in a warning, so
the file loads as it does in Claude Code and the user still learns that it is not strict YAML. A block that
is not even that (a line that is neither) stays refused with YAML's own message.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from desktop_app.runtime.errors import ConfigError
from desktop_app.runtime.host.jsonfiles import parse_yaml

_FRONTMATTER = re.compile(r"\A---[ \t]*\r?\n(.*?)\r?\n---[ \t]*(?:\r?\n|\Z)(.*)\Z", re.S)
_KEY_LINE = re.compile(r"^([A-Za-z_][\w.-]*)[ \t]*:(?:[ \t]+(.*))?[ \t]*$")


def _scalar(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1]
    return value


def read_lines(block: str) -> dict[str, Any] | None:
    """``block`` read one ``key: value`` per line (see the module); ``None`` when a line is neither a key
    line nor an indented continuation of one."""
    result: dict[str, Any] = {}
    key: str | None = None
    for raw in block.splitlines():
        if not raw.strip() or raw.lstrip().startswith("#"):
            continue
        if raw[0] not in " \t":
            match = _KEY_LINE.match(raw.rstrip())
            if match is None:
                return None
            key = match.group(1)
            result[key] = _scalar(match.group(2) or "")
            continue
        if key is None:
            return None
        item = raw.strip()
        current = result[key]
        if item.startswith("- ") and (current == "" or isinstance(current, list)):
            result[key] = [*(current or []), _scalar(item[2:])]
        elif isinstance(current, str):
            result[key] = f"{current} {item}".strip()
        else:
            return None
    return result


def parse_block(block: str, path: Path, *, line_offset: int = 1) -> tuple[Any, str]:
    """The frontmatter ``block`` as data, and a warning ("" when it is strict YAML). A block that is neither
    YAML nor key/value lines raises YAML's ``ConfigError``. ``line_offset``: the file lines before the block."""
    try:
        return parse_yaml(block, path), ""
    except ConfigError as exc:
        data = read_lines(block)
        if data is None:
            raise
        where = f" at line {exc.line + line_offset}" if exc.line is not None else ""
        return data, (
            f"{path}: the frontmatter is not strict YAML ({exc.problem.removeprefix('invalid YAML: ')}{where}); "
            "read as Claude Code reads it, "
            "one 'key: value' per line (quote the value to make it strict)"
        )


def split_lenient(text: str, path: Path) -> tuple[dict[str, Any] | None, str, str]:
    """``(frontmatter mapping or None, body, warning)`` of a Markdown file (see the module)."""
    match = _FRONTMATTER.match(text.removeprefix("\ufeff"))
    if match is None:
        return None, text, ""
    data, warning = parse_block(match.group(1), path)
    return (data if isinstance(data, dict) else None), match.group(2), warning


__all__ = ["parse_block", "read_lines", "split_lenient"]
