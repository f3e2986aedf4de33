"""Which ``env`` and ``headers`` values are secrets, and moving them into the keyring on import.

A value is secret-looking when its key names a secret (``KEY``, ``TOKEN``, ``SECRET``, ``PASSWORD``,
``PASSWD``, ``AUTH``, ``CREDENTIAL``, ``COOKIE`` anywhere, ``PAT`` as a word), when the value looks
like a token (``sk-…``, ``ghp_…``, ``github_pat_…``, ``xoxb-…``, ``glpat-…``, ``AKIA…``, a JWT,
``Bearer …``, or a long high-entropy string), and an ``Authorization`` header always is. Values
that are empty, flags (``true``, ``0``) or contain a ``${…}`` reference are left alone: they hold
no literal secret. Keyring names are ``mcp:<server>:<VAR>`` and ``mcp:<server>:header:<Name>``.
Literal secrets in ``args`` (``--token=…``, ``--api-key …``, ``NAME_TOKEN=…``, a bare token) move the same way, to
``mcp:<server>:arg:<N>``; the launch expands ``${keyring:…}`` references in ``args``.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable
from typing import Any

_SECRET_KEY = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|PASSWD|AUTH|CREDENTIAL|COOKIE|(?:^|[^A-Z])PAT(?:[^A-Z]|$)", re.I)
_TOKEN_VALUE = re.compile(
    r"""^(?:
        sk-[A-Za-z0-9_-]{16,}                     # OpenAI, Anthropic (sk-ant-…), DeepSeek …
      | gh[pousr]_[A-Za-z0-9]{20,}                # GitHub tokens
      | github_pat_[A-Za-z0-9_]{20,}
      | xox[abposr]-[A-Za-z0-9-]{10,}             # Slack
      | glpat-[A-Za-z0-9_-]{16,}                  # GitLab
      | (?:AKIA|ASIA)[0-9A-Z]{16}                 # AWS access key ids
      | AIza[0-9A-Za-z_-]{30,}                    # Google API keys
      | eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*   # JWTs
      | (?:Bearer|Basic|token)\s+\S{8,}
    )$""",
    re.X,
)
_FLAGS = frozenset({"true", "false", "yes", "no", "on", "off", "none", "null"})
_ALWAYS_SECRET_HEADERS = frozenset({"authorization", "proxy-authorization"})
MIN_ENTROPY_LENGTH = 32
MIN_ENTROPY_BITS = 3.5


def _entropy(value: str) -> float:
    counts = Counter(value)
    return -sum(n / len(value) * math.log2(n / len(value)) for n in counts.values())


def looks_like_token(value: str) -> bool:
    """A known token shape, or a long string without spaces, slashes or dots that is high in entropy."""
    value = value.strip()
    if _TOKEN_VALUE.match(value):
        return True
    if len(value) < MIN_ENTROPY_LENGTH or any(c.isspace() for c in value) or "/" in value or "\\" in value:
        return False
    if "." in value and value.count(".") != 2:  # host names, versions; JWTs have exactly two dots
        return False
    classes = sum((any(c.islower() for c in value), any(c.isupper() for c in value), any(c.isdigit() for c in value)))
    return classes >= 2 and _entropy(value) >= MIN_ENTROPY_BITS


def is_secret(key: str, value: str, *, header: bool = False) -> bool:
    """Whether the ``env`` (or, with ``header``, HTTP header) entry ``key = value`` should live in the keyring."""
    stripped = value.strip()
    if not stripped or "${" in value:
        return False
    if header and key.strip().lower() in _ALWAYS_SECRET_HEADERS:
        return True
    if stripped.lower() in _FLAGS or stripped.lstrip("+-").replace(".", "", 1).isdigit():
        return looks_like_token(stripped)
    return bool(_SECRET_KEY.search(key)) or looks_like_token(stripped)


def keyring_name(server: str, key: str, *, header: bool = False) -> str:
    """``mcp:<server>:<VAR>`` for ``env``, ``mcp:<server>:header:<Name>`` for headers."""
    return f"mcp:{server}:header:{key}" if header else f"mcp:{server}:{key}"


def keyring_reference(name: str) -> str:
    return "${keyring:" + name + "}"


def move_secrets(server: str, entry: dict[str, Any], store: Callable[[str, str], None]) -> list[str]:
    """Replace secret ``env``/``headers`` values of ``entry`` (in place) by keyring references.

    ``store(name, value)`` saves each one; returns the keyring names, in the order stored.
    """
    moved: list[str] = []
    for field, header in (("env", False), ("headers", True)):
        values = entry.get(field)
        if not isinstance(values, dict):
            continue
        for key, value in list(values.items()):
            if isinstance(value, str) and is_secret(key, value, header=header):
                name = keyring_name(server, key, header=header)
                store(name, value)
                values[key] = keyring_reference(name)
                moved.append(name)
    return moved


_FLAG_VALUE = re.compile(r"^(--?[A-Za-z][A-Za-z0-9_.-]*=)(.+)$", re.S)
_NAME_VALUE = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*=)(.+)$", re.S)
_SECRET_FLAG = re.compile(r"^--?[A-Za-z0-9_.-]*(?:token|secret|key|password|passwd|credential|auth|pat)$", re.I)


def _arg_secret(args: list[Any], index: int) -> tuple[str, str] | None:
    """``(prefix, value)`` when ``args[index]`` holds a literal secret: a token as a whole argument, the value
    of ``--flag=…`` when the flag names a secret or the value looks like a token, or the argument after a
    ``--token``-style flag. ``None`` otherwise."""
    arg = args[index]
    if not isinstance(arg, str) or "${" in arg or not arg.strip():
        return None
    match = _FLAG_VALUE.match(arg)
    if match:
        flag, value = match.group(1), match.group(2)
        if (_SECRET_FLAG.match(flag[:-1]) and value.strip().lower() not in _FLAGS) or looks_like_token(value):
            return flag, value
        return None
    if arg.startswith("-"):
        return None
    assignment = _NAME_VALUE.match(arg)  # docker-style "-e GITHUB_TOKEN=ghp_…"
    if assignment and assignment.group(2).strip() and is_secret(assignment.group(1)[:-1], assignment.group(2)):
        return assignment.group(1), assignment.group(2)
    previous = args[index - 1] if index > 0 else None
    if isinstance(previous, str) and "=" not in previous and _SECRET_FLAG.match(previous):
        return "", arg
    if looks_like_token(arg):
        return "", arg
    return None


def move_secret_args(server: str, entry: dict[str, Any], store: Callable[[str, str], None]) -> list[str]:
    """Like :func:`move_secrets`, for ``args``: each literal secret (``--token=…``, ``--api-key …``, a bare
    token) is stored as ``mcp:<server>:arg:<N>`` (N its index) and replaced by a ``${keyring:…}`` reference,
    which is expanded when the server starts. Returns the keyring names."""
    args = entry.get("args")
    if not isinstance(args, list):
        return []
    moved: list[str] = []
    for index in range(len(args)):
        found = _arg_secret(args, index)
        if found is None:
            continue
        prefix, value = found
        name = f"mcp:{server}:arg:{index}"
        store(name, value)
        args[index] = prefix + keyring_reference(name)
        moved.append(name)
    return moved


def secret_looking_args(entry: dict[str, Any]) -> list[int]:
    """Indexes of ``args`` that still hold a literal secret (see :func:`move_secret_args`)."""
    args = entry.get("args")
    if not isinstance(args, list):
        return []
    return [i for i in range(len(args)) if _arg_secret(args, i) is not None]


__all__ = [
    "is_secret",
    "keyring_name",
    "keyring_reference",
    "looks_like_token",
    "move_secret_args",
    "move_secrets",
    "secret_looking_args",
]
