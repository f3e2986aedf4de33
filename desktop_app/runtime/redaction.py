"""The one redaction step: every text that can reach the store, the log, the terminal or the UI from a
provider or a server passes through :func:`redact` first.

Two kinds of secret are masked:

* **known secrets** — every secret this process has held: provider API keys (from the environment, the
  keyring or an override), every value read from or written to the keyring (so also resolved
  ``${keyring:…}`` references and OAuth tokens, whose JSON record is searched for token fields). They are
  registered with :func:`remember` where they enter the process (``Credentials``, the provider pool,
  the HTTP providers) and replaced wherever they appear, whole, with ``[redacted]``; also without their vendor
  prefix (``sk-``, ``ghp_`` …) and base64-encoded (alone or inside a longer encoded text).
* **key-shaped strings** — ``Authorization`` values, ``Bearer``/``Basic`` credentials, ``api_key=…``-style
  pairs and the token shapes the importer moves to the keyring (``sk-…``, ``ghp_…``, JWTs …), keeping a
  short prefix so a reader can tell which key it was. A keyword followed by an ordinary word that goes on
  as prose ("Credentials: No usable keyring") is not a key-value pair and is left alone.

:func:`redact_event` applies it to the text fields of run and host events (the Runtime and the Host
publish through it), so the recorder, the UI and the CLI printers all see redacted text.
"""

from __future__ import annotations

import base64
import json
import re
import threading
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:  # not at run time: desktop_app.log imports this module before Qt, and pydantic imported
    # before PySide6 then lazily completed in the runtime's import thread trips shiboken's import hook
    # (a circular "partially initialized module pydantic._internal._validators" at start-up).
    from pydantic import BaseModel

MASK = "[redacted]"
MIN_SECRET_LENGTH = 6
"""Shorter values are not remembered: masking "abc" everywhere would eat ordinary text."""

_lock = threading.Lock()
_known: set[str] = set()
_ordered: list[str] = []  # longest first, so a secret that contains another is masked whole

_SECRET_FIELD = re.compile(r"token|secret|key|password|passwd|credential", re.I)


MIN_VARIANT_LENGTH = 12
"""A secret's other forms (without its prefix, in base64) are masked only when at least this long."""
_PREFIX = re.compile(r"[A-Za-z0-9]{1,10}[-_]")  # sk-, proj-, ghp_, github_pat_ …


def _unprefixed(value: str) -> list[str]:
    """``sk-proj-abc…`` → ``proj-abc…``, ``abc…``: the key as echoed without its vendor prefix."""
    found = []
    rest = value
    while (match := _PREFIX.match(rest)) and len(rest) - match.end() >= MIN_VARIANT_LENGTH:
        rest = rest[match.end() :]
        found.append(rest)
    return found


def _base64_forms(value: str) -> list[str]:
    """The base64 text that encodes ``value`` wherever it sits in a longer encoded text: for each of the three
    alignments, the characters that depend on ``value``'s bytes alone (standard and URL-safe alphabets)."""
    data = value.encode("utf-8")
    forms = [base64.b64encode(data).decode("ascii")]  # the value alone, with its padding
    for offset in range(3):
        encoded = base64.b64encode(b"\0" * offset + data).decode("ascii").rstrip("=")
        start = 4 if offset else 0  # the first group also holds bytes before the value
        end = len(encoded) - (0 if (offset + len(data)) % 3 == 0 else 3)  # the last one those after it
        forms.append(encoded[start:end])
    forms += [form.replace("+", "-").replace("/", "_") for form in forms]
    return [form for form in forms if len(form) >= MIN_VARIANT_LENGTH]


def _add(value: str) -> None:
    value = value.strip()
    if len(value) < MIN_SECRET_LENGTH or value in _known:
        return
    _known.add(value)
    escaped = json.dumps(value)[1:-1]  # how it looks inside a JSON body or a repr
    variants = {value, escaped, repr(value)[1:-1]}
    for form in [value, *_unprefixed(value)]:  # echoed without "sk-", or base64-encoded (Basic auth, a blob)
        variants.add(form)
        variants.update(_base64_forms(form))
    for variant in variants:
        if variant not in _ordered:
            _ordered.append(variant)
    _ordered.sort(key=len, reverse=True)


def _json_secrets(value: Any, field: str = "") -> list[str]:
    if isinstance(value, dict):
        return [s for key, item in value.items() for s in _json_secrets(item, str(key))]
    if isinstance(value, list):
        return [s for item in value for s in _json_secrets(item, field)]
    if isinstance(value, str) and _SECRET_FIELD.search(field):
        return [value]
    return []


def remember(secret: str | None) -> None:
    """Register a secret the process holds, so that :func:`redact` masks it wherever it appears.

    Surrounding whitespace is ignored; a JSON object (an OAuth token record) registers its token fields.
    """
    if not secret:
        return
    stripped = secret.strip()
    with _lock:
        if stripped.startswith("{"):
            try:
                parsed = json.loads(stripped)
            except ValueError:
                parsed = None
            if isinstance(parsed, dict):
                for value in _json_secrets(parsed):
                    _add(value)
                return
        _add(stripped)


def forget_all() -> None:
    """Drop every remembered secret (for tests)."""
    with _lock:
        _known.clear()
        _ordered.clear()


def known_count() -> int:
    with _lock:
        return len(_known)


# ---- key-shaped strings -------------------------------------------------------------------------------

_VALUE = r"[^\s'\",}]+"
_PROSE = re.compile(r"[A-Za-z]+\s+[A-Za-z]")  # "No usable…": a word that a sentence goes on after

_KEYWORD_PATTERNS = [
    # "Authorization: Bearer x", also inside a dict repr ('Authorization': 'Bearer x') and for Basic auth
    re.compile(r"(?i)(authorization[\"']?\s*[:=]\s*[\"']?(?:bearer|basic|token)?\s*)(" + _VALUE + ")"),
    re.compile(r"(\b(?:Bearer|Basic)\s+)([A-Za-z0-9._~+/=-]{8,})"),
    re.compile(r"(?i)((?:api[_-]?key|token|secret|passw(?:or)?d|credentials?)[\"']?\s*[:=]\s*[\"']?)(" + _VALUE + ")"),
]
_SHAPE_PATTERNS = [
    # The token shapes the mcp.json importer moves into the keyring (runtime/host/secrets.py), kept short here
    re.compile(r"\b(sk-[A-Za-z0-9_\-]{8})[A-Za-z0-9_\-]+"),
    re.compile(r"\b(gh[pousr]_|github_pat_|xox[abposr]-|glpat-|AIza)[A-Za-z0-9_\-]{8,}"),
    re.compile(r"\b(AKIA|ASIA)[0-9A-Z]{16}\b"),
    re.compile(r"\b(eyJ)[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*"),
]


_REFERENCE = re.compile(
    r"\$\{(?:keyring:[^\s}]*|[A-Za-z_][A-Za-z0-9_.-]*)\}?"  # ${NAME}, ${keyring:…} (the value stops at "}")
    r"|\$[A-Z_][A-Z0-9_]*|%[A-Za-z_][A-Za-z0-9_]*%"  # $NAME, %NAME%
)
"""A variable's name written as a reference (``${NAME}``, ``$NAME``, ``%NAME%``): a name, never its value."""


def _keyword_sub(match: re.Match[str]) -> str:
    value = match.group(2)
    if value == MASK or value.startswith("[redacted]"):
        return match.group(0)
    if not any(ch.isalnum() for ch in value) or _REFERENCE.fullmatch(value):
        # No value at all ("'CONTEXT7_API_KEY:-'", a shell default left empty) or a reference to a variable
        # ("GITHUB_TOKEN=${GITHUB_TOKEN}"): masking it would garble the names around it and hide nothing.
        return match.group(0)
    header = match.re is _KEYWORD_PATTERNS[0]  # "Authorization: <value>" always holds a credential
    if not header and value.isalpha() and _PROSE.match(match.string, match.start(2)):
        return match.group(0)  # prose, not a key-value pair
    return match.group(1) + MASK


def redact_shapes(text: str) -> str:
    """Mask key-shaped strings only (no known secrets)."""
    for pattern in _KEYWORD_PATTERNS:
        text = pattern.sub(_keyword_sub, text)
    for pattern in _SHAPE_PATTERNS:
        text = pattern.sub(lambda m: m.group(1) + MASK, text)
    return text


def redact_known(text: str) -> str:
    """Mask the secrets this process knows, wherever they appear."""
    with _lock:
        secrets = list(_ordered)
    for secret in secrets:
        if secret in text:
            text = text.replace(secret, MASK)
    return text


def redact(text: str) -> str:
    """Mask every known secret and every key-shaped string in ``text``."""
    if not text:
        return text
    return redact_shapes(redact_known(text))


# ---- events -------------------------------------------------------------------------------------------

E = TypeVar("E", bound="BaseModel")

_ERROR_FIELDS = frozenset({"message", "error", "detail", "details", "text", "line", "reason", "stderr"})
"""Text fields of error-ish events that get the full step (known secrets and key shapes)."""
_ERROR_KINDS = frozenset({"error", "server_log", "server_state", "compaction_failed"})


def redact_event(event: E) -> E:
    """A copy of ``event`` with its text redacted; the same object when nothing changed.

    Error events, failed tool results and server logs/states get the full step; every other event's text
    (streamed model text, successful tool results) only has the known secrets masked, so that a document
    that merely mentions ``api_key = …`` is shown as it is.
    """
    kind = getattr(event, "kind", "")
    full = kind in _ERROR_KINDS or (kind == "tool_result" and bool(getattr(event, "is_error", False)))
    updates: dict[str, Any] = {}
    for name, value in event:
        if isinstance(value, str) and value:
            cleaned: Any = redact(value) if full and name in _ERROR_FIELDS else redact_known(value)
        elif isinstance(value, dict | list):  # tool arguments, structured results, a server log's data
            cleaned = _clean(value, full=full and name == "data")
        elif _is_model(value):  # a nested model: RetryScheduled.retry, ToolResult.hooks' notices, …
            cleaned = _clean(value, full=full)
        else:
            continue
        if cleaned != value:
            updates[name] = cleaned
    return event.model_copy(update=updates) if updates else event


def _clean(value: Any, *, full: bool) -> Any:
    if isinstance(value, str):
        return redact(value) if full else redact_known(value)
    if isinstance(value, dict):
        return {key: _clean(item, full=full) for key, item in value.items()}
    if isinstance(value, list):
        return [_clean(item, full=full) for item in value]
    if _is_model(value):
        updates = {name: _clean(item, full=full) for name, item in value}
        changed = {name: item for name, item in updates.items() if item != getattr(value, name)}
        return value.model_copy(update=changed) if changed else value
    return value


def _is_model(value: Any) -> bool:
    """Whether ``value`` is a pydantic model (pydantic is not imported here, see the imports)."""
    return hasattr(type(value), "model_fields") and hasattr(value, "model_copy")


__all__ = ["MASK", "forget_all", "redact", "redact_event", "redact_known", "redact_shapes", "remember"]
