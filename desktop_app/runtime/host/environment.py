"""What a server process is started with: a safe environment, expanded secrets and a usable PATH.

* **Unsafe variables.** ``LD_PRELOAD``, ``LD_LIBRARY_PATH``, any ``DYLD_*``, ``NODE_OPTIONS``,
  ``PYTHONPATH`` and ``PYTHONHOME`` change what code a process loads; setting them through a server's ``env`` is
  refused unless the server says ``"allowUnsafeEnv": true`` (:func:`check_env_safety`).
* **Expansion at start-up.** ``${NAME}`` (``${NAME:-default}``) comes from the process environment and
  ``${keyring:NAME}`` from :class:`~desktop_app.runtime.credentials.Credentials`, in ``command``, ``args``,
  ``env``, ``url`` and ``headers`` (:func:`expand_env`, :func:`expand_args`, :func:`expand_text`,
  :func:`expand_headers`), as Claude Code's ``.mcp.json`` does. A missing secret names the keyring entry.
  All are scoped (:mod:`.secret_scope`): a server reads only its own ``mcp:<server>:…`` entries and never a variable or
  value holding the app's own provider key or bearer token.
* **PATH.** An app started from the desktop inherits a minimal PATH (no Homebrew, nvm, ~/.local/bin),
  so on macOS and Linux :func:`login_shell_path` asks the user's login shell once
  (``$SHELL -lic 'printf "%s%s%s" MARK "$PATH" MARK'``, with a timeout, cached) unless we were started from a
  terminal. Commands are then found with ``shutil.which`` on that PATH (:func:`resolve_command`),
  which honours ``PATHEXT`` on Windows, so ``npx`` finds ``npx.cmd``.

Every problem raises :class:`~desktop_app.runtime.errors.ServerStartError` with a message that says
what to change in ``mcp.json``.
"""

from __future__ import annotations

import logging
import os
import re
import shutil
import subprocess
import sys
import threading
from collections.abc import Callable, Mapping

from desktop_app.runtime.credentials import Credentials
from desktop_app.runtime.errors import ServerStartError
from desktop_app.runtime.host.config import (
    DEFAULT_SEPARATOR,
    KEYRING_PREFIX,
    SecretLookup,
    ServerConfig,
    expand_value,
)
from desktop_app.runtime.secret_scope import check_environment_reference, check_expanded, scoped_lookup

_ANY_REFERENCE = re.compile(r"\$\{([^}]*)\}")

log = logging.getLogger(__name__)

UNSAFE_ENV_VARS = frozenset({"LD_PRELOAD", "LD_LIBRARY_PATH", "NODE_OPTIONS", "PYTHONPATH", "PYTHONHOME"})
UNSAFE_ENV_PREFIXES = ("DYLD_",)
LOGIN_SHELL_TIMEOUT = 5.0
_MARKER = "__SWITCHBOARD_PATH__"

ShellRunner = Callable[[list[str], float], str]
"""Runs ``argv`` with a timeout (seconds) and returns its stdout; raises on failure or timeout."""


# -- unsafe variables ---------------------------------------------------------------------------


def is_unsafe_env_var(key: str) -> bool:
    """Whether setting ``key`` changes what code a process loads (case-insensitive)."""
    upper = key.strip().upper()
    return upper in UNSAFE_ENV_VARS or upper.startswith(UNSAFE_ENV_PREFIXES)


def check_env_safety(server: str, config: ServerConfig) -> None:
    """Refuse ``env`` entries such as ``LD_PRELOAD`` unless the server has ``allowUnsafeEnv``."""
    if config.allow_unsafe_env:
        return
    unsafe = sorted(key for key in config.env if is_unsafe_env_var(key))
    if unsafe:
        names = ", ".join(unsafe)
        raise ServerStartError(
            f"MCP server '{server}': refusing to set {names} through 'env', because it changes what code the "
            f"server loads. Remove it from mcp.json, or add \"allowUnsafeEnv\": true to the '{server}' entry "
            "if you trust this configuration"
        )


# -- expansion ----------------------------------------------------------------------------------


def _lookup(server: str, credentials: Credentials | None) -> SecretLookup:
    """The keyring lookup of ``server``: only its own entries (see :func:`scoped_lookup`)."""
    holder: list[Credentials] = [credentials] if credentials is not None else []

    def lookup(name: str) -> str | None:
        if not holder:  # only touch the keyring when a reference needs it
            holder.append(Credentials())
        return holder[0].get(name)

    return scoped_lookup(server, lookup)


def _expand_scoped(value: str, environ: Mapping[str, str], *, where: str, secrets: SecretLookup) -> str:
    """:func:`expand_value`, refusing references to the app's own secret variables and values carrying them."""
    for match in _ANY_REFERENCE.finditer(value):
        name = match.group(1).strip()
        if name and not name.startswith(KEYRING_PREFIX):
            check_environment_reference(name.partition(DEFAULT_SEPARATOR)[0].strip(), where=where)
    expanded = expand_value(value, environ, where=where, secrets=secrets)
    if expanded != value:
        check_expanded(expanded, where=where)
    return expanded


def _expand_map(
    server: str,
    field: str,
    values: Mapping[str, str],
    environ: Mapping[str, str] | None,
    credentials: Credentials | None,
) -> dict[str, str]:
    source = os.environ if environ is None else environ
    secrets = _lookup(server, credentials)
    try:
        return {
            key: _expand_scoped(value, source, where=f"{field}.{key}", secrets=secrets) for key, value in values.items()
        }
    except ValueError as exc:
        raise ServerStartError(f"MCP server '{server}': {exc}") from None


def expand_env(
    server: str,
    config: ServerConfig,
    *,
    environ: Mapping[str, str] | None = None,
    credentials: Credentials | None = None,
) -> dict[str, str]:
    """The server's ``env`` with ``${NAME}`` and ``${keyring:NAME}`` expanded (default: a new Credentials)."""
    return _expand_map(server, "env", config.env, environ, credentials)


def expand_text(
    server: str,
    value: str,
    *,
    where: str,
    environ: Mapping[str, str] | None = None,
    credentials: Credentials | None = None,
) -> str:
    """One value of ``server``'s entry (its ``command``, an argument, its ``url``) with ``${NAME}``,
    ``${NAME:-default}`` and ``${keyring:NAME}`` expanded under the same guard as ``env``: its own keyring
    entries only, never the app's key or token. A reference that cannot be expanded raises
    :class:`ServerStartError`; no ``${…}`` reaches the server as written."""
    if "${" not in value:
        return value
    try:
        return _expand_scoped(
            value, os.environ if environ is None else environ, where=where, secrets=_lookup(server, credentials)
        )
    except ValueError as exc:
        raise ServerStartError(f"MCP server '{server}': {exc}") from None


def expand_args(
    server: str,
    config: ServerConfig,
    *,
    environ: Mapping[str, str] | None = None,
    credentials: Credentials | None = None,
) -> list[str]:
    """The server's ``args`` with ``${NAME}``, ``${NAME:-default}`` and ``${keyring:NAME}`` expanded, as
    Claude Code's ``.mcp.json`` does (the importer moves tokens found in ``args`` to the keyring)."""
    return [
        expand_text(server, arg, where=f"args[{index}]", environ=environ, credentials=credentials)
        for index, arg in enumerate(config.args)
    ]


def expand_headers(
    server: str,
    config: ServerConfig,
    *,
    environ: Mapping[str, str] | None = None,
    credentials: Credentials | None = None,
) -> dict[str, str]:
    """The server's HTTP ``headers`` with references expanded, for the HTTP and SSE transports."""
    headers = _expand_map(server, "headers", config.headers, environ, credentials)
    for name, value in headers.items():
        if "\r" in value or "\n" in value:
            raise ServerStartError(f"MCP server '{server}': headers.{name}: the expanded value contains a line break")
    return headers


# -- the login-shell PATH -----------------------------------------------------------------------


def _run_shell(argv: list[str], timeout: float) -> str:
    completed = subprocess.run(
        argv,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=timeout,
        check=False,
        start_new_session=True,  # an interactive shell must not grab our terminal
    )
    return completed.stdout.decode("utf-8", errors="replace")


def _started_from_terminal() -> bool:
    try:
        return os.isatty(0)
    except OSError:
        return False


def merge_paths(first: str, second: str) -> str:
    """``first`` followed by the entries of ``second`` it does not already have."""
    entries: list[str] = []
    for part in [*first.split(os.pathsep), *second.split(os.pathsep)]:
        if part and part not in entries:
            entries.append(part)
    return os.pathsep.join(entries)


class LoginShellPath:
    """The user's login-shell PATH, computed once (thread-safe) and cached; every input is injectable.

    Falls back to ``environ["PATH"]`` on Windows, when started from a terminal, without ``$SHELL``,
    or when the shell fails or times out. The result always keeps the current PATH's entries too.
    """

    def __init__(
        self,
        *,
        environ: Mapping[str, str] | None = None,
        platform: str | None = None,
        from_terminal: Callable[[], bool] = _started_from_terminal,
        runner: ShellRunner = _run_shell,
        timeout: float = LOGIN_SHELL_TIMEOUT,
    ) -> None:
        self._environ = environ
        self._platform = platform
        self._from_terminal = from_terminal
        self._runner = runner
        self._timeout = timeout
        self._lock = threading.Lock()
        self._value: str | None = None

    def __call__(self) -> str:
        with self._lock:
            if self._value is None:
                self._value = self._compute()
            return self._value

    def _compute(self) -> str:
        environ = os.environ if self._environ is None else self._environ
        current = environ.get("PATH", os.defpath)
        platform = sys.platform if self._platform is None else self._platform
        if not platform.startswith(("darwin", "linux")) or self._from_terminal():
            return current
        shell = environ.get("SHELL", "").strip()
        if not shell:
            return current
        script = f'printf "%s%s%s" {_MARKER} "$PATH" {_MARKER}'  # valid in sh, bash, zsh and fish
        try:
            output = self._runner([shell, "-lic", script], self._timeout)
        except (OSError, subprocess.SubprocessError) as exc:
            log.warning("could not read the login shell's PATH from %s: %s; using the current PATH", shell, exc)
            return current
        _, found, rest = output.partition(_MARKER)
        value, closed, _ = rest.partition(_MARKER)
        if not found or not closed or not value.strip():
            log.warning("the login shell %s printed no PATH; using the current PATH", shell)
            return current
        return merge_paths(value.strip(), current)


_default_login_path = LoginShellPath()
_override: Callable[[], str] | None = None


def login_shell_path() -> str:
    """The PATH servers are searched on and started with (see :class:`LoginShellPath`)."""
    if _override is not None:
        return _override()
    return _default_login_path()


def set_login_shell_path(provider: Callable[[], str] | None) -> None:
    """Replace the PATH source (tests, or a GUI that computed it earlier); ``None`` restores the default."""
    global _override
    _override = provider


# -- commands -----------------------------------------------------------------------------------


def resolve_command(server: str, command: str, search_path: str) -> str:
    """``command`` as an absolute path found on ``search_path``; a command with a folder part is used as is."""
    if os.path.dirname(command):
        return command  # a relative or absolute path: the launch itself reports a missing file
    found = shutil.which(command, path=search_path)
    if found is None:
        searched = search_path or "(empty)"
        raise ServerStartError(
            f"MCP server '{server}': command '{command}' not found on PATH (searched: {searched}). "
            "Install it or give an absolute path in mcp.json"
        )
    return found


def command_problem(
    command: str, env: Mapping[str, str] | None = None, *, search_path: str | None = None
) -> str | None:
    """What stops ``command`` from starting, found as a launch would find it (the server's own ``PATH`` from
    ``env``, else ``search_path``, else :func:`login_shell_path`), or ``None`` when it is there. For the form
    that adds a server: a warning before saving, never a refusal (a command may be installed later)."""
    text = os.path.expanduser(command.strip())
    if not text:
        return None  # the form's own check says a command is needed
    if os.path.dirname(text):
        if not os.path.exists(text):
            return f"'{text}' does not exist. Check the path, or install the program first."
        if os.path.isdir(text) or not os.access(text, os.X_OK):
            return f"'{text}' is not a program that can be run. Give the path of the program itself."
        return None
    own = (env or {}).get("PATH", "")
    path = own if own and "${" not in own else search_path or login_shell_path()
    if shutil.which(text, path=path) is not None:
        return None
    return (
        f"Command '{text}' was not found on PATH (searched: {path or '(empty)'}). Install it, or give its full "
        "path; the server cannot start until then."
    )


__all__ = [
    "UNSAFE_ENV_PREFIXES",
    "UNSAFE_ENV_VARS",
    "LoginShellPath",
    "ShellRunner",
    "check_env_safety",
    "command_problem",
    "expand_args",
    "expand_env",
    "expand_headers",
    "expand_text",
    "is_unsafe_env_var",
    "login_shell_path",
    "merge_paths",
    "resolve_command",
    "set_login_shell_path",
]
