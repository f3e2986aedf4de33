"""Which ``env`` and ``headers`` values are secrets, and moving them into the keyring on import.

A value is secret-looking when its key names a secret (``KEY``, ``TOKEN``, ``SECRET``, ``PASSWORD``,
``PASSWD``, ``AUTH``, ``CREDENTIAL``, ``COOKIE`` anywhere, ``PAT`` as a word), when the value looks
like a token (``sk-…``, ``ghp_…``, ``github_pat_…``, ``xoxb-…``, ``glpat-…``, ``AKIA…``, a JWT,
``Bearer …``, or a long high-entropy string), and an ``Authorization`` header always is. Values
that are empty, flags (``true``, ``0``) or contain a ``${…}`` reference are left alone: they hold
no literal secret. Keyring names are ``mcp:<server>:<VAR>`` and ``mcp:<server>:header:<Name>``.
Literal secrets in ``args`` (``--token=…``, ``--api-key …``, ``NAME_TOKEN=…``, a bare token) move the same way, to
``mcp:<server>:arg:<N>``, and so do a header given on the command line (mcp-remote's ``--header
"Authorization: Bearer …"``) and a URL's password or secret query value, in ``args`` (``…:arg:<N>:password``,
``…:arg:<N>:query:<name>``) and in ``url`` (``mcp:<server>:url:password``, ``…:url:query:<name>``); the launch
expands ``${keyring:…}`` references in ``args`` and ``url``.
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


_URL_PASSWORD = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://[^:@/\s]*:(?P<password>[^@\s]+)@")
_URL_QUERY = re.compile(r"[?&](?P<key>[^=&#\s]+)=(?P<value>[^&#\s]+)")
_HEADER_FLAGS = frozenset({"--header", "-H", "--headers"})
_HEADER_ARG = re.compile(r"^(?P<name>[!#$%&'*+.^_`|~0-9A-Za-z-]+):\s*(?P<value>.+)$", re.S)


def url_secrets(text: str) -> list[tuple[int, int, str]]:
    """The literal secrets inside a URL: ``(start, end, label)`` of the password in ``scheme://user:pw@host``
    (label ``password``) and of each query value whose name names a secret or that looks like a token (label
    ``query:<name>``), e.g. a Postgres URL's password or ``?api_key=…``. References (``${…}``) are left alone."""
    found: list[tuple[int, int, str]] = []
    password = _URL_PASSWORD.match(text)
    if password and "${" not in password.group("password"):
        found.append((password.start("password"), password.end("password"), "password"))
    if "://" in text:
        for match in _URL_QUERY.finditer(text):
            key, value = match.group("key"), match.group("value")
            if "${" not in value and is_secret(key, value):
                found.append((match.start("value"), match.end("value"), f"query:{key}"))
    return found


def _replace_url_secrets(text: str, prefix: str, store: Callable[[str, str], None], moved: list[str]) -> str:
    pieces: list[str] = []
    pos = 0
    for start, end, label in url_secrets(text):
        name = f"{prefix}:{label}"
        store(name, text[start:end])
        pieces += [text[pos:start], keyring_reference(name)]
        moved.append(name)
        pos = end
    return "".join([*pieces, text[pos:]])


def _header_arg(args: list[Any], index: int) -> tuple[str, str] | None:
    """``(prefix, value)`` when ``args[index]`` is an HTTP header given on the command line (mcp-remote's
    ``--header "Authorization: Bearer …"``, also ``--header=…``) whose value is a secret."""
    arg = args[index]
    if not isinstance(arg, str) or "${" in arg:
        return None
    flag = ""
    previous = args[index - 1] if index > 0 else None
    if arg.startswith("--header="):
        flag, arg = "--header=", arg.removeprefix("--header=")
    elif not (isinstance(previous, str) and previous in _HEADER_FLAGS):
        return None
    match = _HEADER_ARG.match(arg)
    if match is None or not is_secret(match.group("name"), match.group("value"), header=True):
        return None
    return flag + arg[: match.start("value")], match.group("value")


def move_secret_args(server: str, entry: dict[str, Any], store: Callable[[str, str], None]) -> list[str]:
    """Like :func:`move_secrets`, for ``args``: each literal secret (``--token=…``, ``--api-key …``, a bare
    token, a header after ``--header``) is stored as ``mcp:<server>:arg:<N>`` (N its index) and replaced by a
    ``${keyring:…}`` reference, which is expanded when the server starts; a URL's password or secret query
    value goes to ``mcp:<server>:arg:<N>:password`` / ``…:query:<name>``. Returns the keyring names."""
    args = entry.get("args")
    if not isinstance(args, list):
        return []
    moved: list[str] = []
    for index in range(len(args)):
        arg = args[index]
        if isinstance(arg, str) and url_secrets(arg):
            args[index] = _replace_url_secrets(arg, f"mcp:{server}:arg:{index}", store, moved)
            continue
        found = _header_arg(args, index) or _arg_secret(args, index)
        if found is None:
            continue
        prefix, value = found
        name = f"mcp:{server}:arg:{index}"
        store(name, value)
        args[index] = prefix + keyring_reference(name)
        moved.append(name)
    return moved


def move_url_secrets(server: str, entry: dict[str, Any], store: Callable[[str, str], None]) -> list[str]:
    """The ``url``'s password and secret query values to ``mcp:<server>:url:password`` /
    ``mcp:<server>:url:query:<name>`` (``url`` is expanded when the server starts). Returns the keyring names."""
    url = entry.get("url")
    if not isinstance(url, str) or not url_secrets(url):
        return []
    moved: list[str] = []
    entry["url"] = _replace_url_secrets(url, f"mcp:{server}:url", store, moved)
    return moved


def secret_looking_args(entry: dict[str, Any]) -> list[int]:
    """Indexes of ``args`` that still hold a literal secret (see :func:`move_secret_args`)."""
    args = entry.get("args")
    if not isinstance(args, list):
        return []
    return [
        i
        for i in range(len(args))
        if _arg_secret(args, i) is not None
        or _header_arg(args, i) is not None
        or (isinstance(args[i], str) and url_secrets(args[i]))
    ]


__all__ = [
    "is_secret",
    "keyring_name",
    "keyring_reference",
    "looks_like_token",
    "move_secret_args",
    "move_secrets",
    "move_url_secrets",
    "secret_looking_args",
    "url_secrets",
]
