"""Model-facing tool names: every name sent to a provider matches ``^[a-zA-Z0-9_-]{1,64}$`` (issue 22).

This module owns the pure string rules: sanitising a server or tool name into a name component,
qualifying ``mcp__<server>__<tool>`` within 64 bytes (SHA-1 suffix when longer), making a built-in's bare
name safe (:func:`model_safe_name`), parsing a qualified name back, and breaking collisions
deterministically. No I/O, no state.

The shape is Whale's (seed-behaviours §1.5), with the strictest provider rule on top: OpenAI documents
``^[a-zA-Z0-9_-]{1,64}$`` (a 400 otherwise) and Anthropic enforces it too. So, unlike Whale, a hyphen is
kept (``resolve-library-id`` stays ``resolve-library-id``, as Claude Code names it), and letters outside
ASCII are never sent: an accented letter loses its accent (``é`` -> ``e``); a component that loses any other
letter or digit gets a short hash of its original text, so two such names never meet. Every rule is a pure
function of the name: the same name comes out after every restart, and the host's tool table maps it back.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import MutableSet

TOOL_PREFIX = "mcp__"
TOOL_DELIMITER = "__"
MAX_TOOL_NAME_BYTES = 64
PROVIDER_NAME_PATTERN = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
"""What every provider accepts as a tool name (OpenAI's documented rule; Anthropic's is the same)."""
_HASH_LEN = 10
_LOSS_HASH_LEN = 8


def _ascii_ok(ch: str) -> bool:
    return ch.isascii() and (ch.isalnum() or ch in "_-")


def sanitize_component(value: str, fallback: str) -> str:
    """Keep ASCII letters, digits, ``_`` and ``-``; any run of other characters becomes one ``_``.

    An accented letter keeps its base letter (NFKD: ``é`` -> ``e``). When any other letter or digit had to go
    (``日本``), ``_<8 hex of SHA-1 of the trimmed value>`` is appended, so distinct names stay distinct. The
    result is stripped of leading and trailing ``_`` and ``-``; an empty result becomes ``fallback``.
    """
    trimmed = value.strip()
    out: list[str] = []
    prev_replaced = False
    lost = False
    for ch in trimmed:
        kept = ch if _ascii_ok(ch) else "".join(c for c in unicodedata.normalize("NFKD", ch) if _ascii_ok(c))
        if kept:
            out.append(kept)
            prev_replaced = False
            continue
        category = unicodedata.category(ch)
        lost = lost or category.startswith("L") or category == "Nd"
        if not prev_replaced:
            out.append("_")
            prev_replaced = True
    result = "".join(out).strip("_-") or fallback
    if lost:
        result = f"{result}_{short_hash(trimmed)[:_LOSS_HASH_LEN]}"
    return result


def _capped(raw: str) -> str:
    """``raw`` itself within 64 bytes; longer, its first 53 bytes (right-stripped of ``_``) plus ``_<SHA-1>``."""
    if _byte_len(raw) <= MAX_TOOL_NAME_BYTES:
        return raw
    prefix_len = MAX_TOOL_NAME_BYTES - _HASH_LEN - 1
    return _byte_prefix(raw, prefix_len).rstrip("_") + "_" + short_hash(raw)


def model_safe_name(name: str) -> str:
    """A bare (built-in) tool name as every provider accepts it: unchanged when it already is one, else
    sanitised like a component (``chat-with-kit.scout`` -> ``chat-with-kit_scout``) and capped at 64."""
    if PROVIDER_NAME_PATTERN.match(name):
        return name
    return _capped(sanitize_component(name, "tool"))


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
    server_part, tool_part = sanitize_component(server, "server"), sanitize_component(tool, "tool")
    return _capped(TOOL_PREFIX + server_part + TOOL_DELIMITER + tool_part)


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
