"""Model-facing names for MCP tools, exactly as Whale builds them (seed-behaviours §1.5).

This module owns the pure string rules: sanitising a server or tool name into a name component,
qualifying ``mcp__<server>__<tool>`` within 64 bytes (SHA-1 suffix when longer), parsing a
qualified name back, and breaking collisions deterministically. No I/O, no state.

One deliberate difference from the Go original: Go slices strings by byte and may cut a
multibyte character in half; Python strings cannot hold half a character, so a cut character
is dropped (the result is then a few bytes shorter than 64, never longer).
"""

from __future__ import annotations

import hashlib
import unicodedata
from collections.abc import MutableSet

TOOL_PREFIX = "mcp__"
TOOL_DELIMITER = "__"
MAX_TOOL_NAME_BYTES = 64
_HASH_LEN = 10


def sanitize_component(value: str, fallback: str) -> str:
    """Keep ``_``, Unicode letters and decimal digits; any run of other characters becomes one ``_``.

    The result is stripped of leading and trailing ``_``; an empty result becomes ``fallback``.
    A kept ``_`` followed by an invalid character yields ``__`` (``a_-b`` -> ``a__b``), as in Whale.
    """
    out: list[str] = []
    prev_replaced = False
    for ch in value.strip():
        category = unicodedata.category(ch)
        if ch == "_" or category.startswith("L") or category == "Nd":
            out.append(ch)
            prev_replaced = False
        elif not prev_replaced:
            out.append("_")
            prev_replaced = True
    result = "".join(out).strip("_")
    return result or fallback


def short_hash(value: str) -> str:
    """The first 10 hex characters of SHA-1 over the UTF-8 bytes of ``value``."""
    return hashlib.sha1(value.encode("utf-8"), usedforsecurity=False).hexdigest()[:_HASH_LEN]


def _byte_prefix(value: str, limit: int) -> str:
    """``value`` cut to at most ``limit`` UTF-8 bytes, dropping a character cut in half."""
    return value.encode("utf-8")[:limit].decode("utf-8", errors="ignore")


def _byte_len(value: str) -> int:
    return len(value.encode("utf-8"))


def qualify_tool_name(server: str, tool: str) -> str:
    """``mcp__<server>__<tool>`` with both parts sanitised; over 64 bytes, truncated plus a SHA-1 suffix."""
    raw = TOOL_PREFIX + sanitize_component(server, "server") + TOOL_DELIMITER + sanitize_component(tool, "tool")
    if _byte_len(raw) <= MAX_TOOL_NAME_BYTES:
        return raw
    prefix_len = MAX_TOOL_NAME_BYTES - _HASH_LEN - 1
    return _byte_prefix(raw, prefix_len).rstrip("_") + "_" + short_hash(raw)


def parse_qualified_tool_name(name: str) -> tuple[str, str] | None:
    """Split ``mcp__S__T`` at the first ``__`` after the prefix into ``(S, T)``; ``None`` if it is not one.

    ``mcp__a__b__x`` parses as ``("a", "b__x")``. Hashed (truncated) names do not parse back to
    the original parts; route calls through the host's name table, not through this function.
    """
    if not name.startswith(TOOL_PREFIX):
        return None
    server, found, tool = name[len(TOOL_PREFIX) :].partition(TOOL_DELIMITER)
    if not found or not server or not tool:
        return None
    return server, tool


def unique_tool_name(base: str, seen: MutableSet[str]) -> str:
    """Return ``base`` the first time, then a deterministic variant; records the result in ``seen``."""
    if base not in seen:
        seen.add(base)
        return base
    suffix_hash = short_hash(base)
    candidate = base
    if _byte_len(candidate) + 1 + _HASH_LEN > MAX_TOOL_NAME_BYTES:
        candidate = _byte_prefix(candidate, MAX_TOOL_NAME_BYTES - _HASH_LEN - 1).rstrip("_")
    candidate = candidate + "_" + suffix_hash
    i = 2
    while candidate in seen:
        suffix = f"_{i}"
        limit = MAX_TOOL_NAME_BYTES - len(suffix)
        if limit < 1:
            limit = MAX_TOOL_NAME_BYTES
        candidate = _byte_prefix(base, limit).rstrip("_") + suffix
        i += 1
    seen.add(candidate)
    return candidate
