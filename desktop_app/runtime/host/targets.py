"""Where a server lives: a stdio server's launch parameters (command, args, environment, PATH), or a
``url`` server's URL, expanded ``headers`` and declared transport.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from mcp import StdioServerParameters

from desktop_app.runtime.child_env import minimal_environment
from desktop_app.runtime.credentials import Credentials
from desktop_app.runtime.host.config import ServerConfig
from desktop_app.runtime.host.environment import (
    check_env_safety,
    expand_args,
    expand_env,
    expand_headers,
    expand_text,
    login_shell_path,
    resolve_command,
)
from desktop_app.runtime.host.oauth import oauth_provider
from desktop_app.runtime.host.transports import HttpKind, HttpTarget


def stdio_parameters(
    config: ServerConfig,
    *,
    name: str | None = None,
    credentials: Credentials | None = None,
    environ: Mapping[str, str] | None = None,
    search_path: str | None = None,
) -> StdioServerParameters:
    """The stdio launch parameters, computed when the server starts.

    ``env`` is checked for unsafe variables (unless ``allowUnsafeEnv``) and expanded (``${NAME}`` from
    ``environ``, ``${keyring:NAME}`` from ``credentials``, default a new :class:`Credentials`), and so are the
    command and args; ``~`` is expanded in the command and args; a bare command is resolved on ``search_path``
    (default: the server's own ``PATH`` from ``env``, else :func:`login_shell_path`), and the child gets that PATH.
    The environment is the minimal one of :mod:`desktop_app.runtime.child_env` taken from ``environ`` (default
    ``os.environ``: PATH, HOME, locale, TMPDIR …), plus the server's ``env``; nothing else of ours is inherited.
    Raises :class:`~desktop_app.runtime.errors.ServerStartError` with a message for the user.
    """
    label = name or (config.command or "").strip() or "stdio"
    cwd = None
    if config.extension:  # an installed MCP Bundle: ${__dirname}, ${user_config.*} … substituted now
        from desktop_app.runtime.extensions.launch import bundle_folder, resolve_launch

        config = resolve_launch(label, config, (credentials or Credentials()).get)
        cwd = bundle_folder(config.extension or "")  # relative entry points resolve against the bundle, not /
    base = dict(os.environ if environ is None else environ)
    check_env_safety(label, config)
    env = expand_env(label, config, environ=base, credentials=credentials)
    path = env.get("PATH") or search_path or login_shell_path()
    written = expand_text(label, (config.command or "").strip(), where="command", environ=base, credentials=credentials)
    command = resolve_command(label, os.path.expanduser(written), path)
    args = [
        os.path.expanduser(arg) if arg.startswith("~") else arg
        for arg in expand_args(label, config, environ=base, credentials=credentials)
    ]
    environment = minimal_environment(base, {"PATH": path, **env})
    return StdioServerParameters(command=command, args=args, env=environment, cwd=cwd)


def http_target(name: str, config: ServerConfig, *, credentials: Credentials | None = None) -> HttpTarget:
    """The target of a ``url`` server, computed when it starts.

    ``url`` and ``headers`` are expanded (``${NAME}``, ``${NAME:-default}``, ``${keyring:NAME}``). Without an
    explicit ``type`` or ``transport`` the connection tries streamable HTTP, then legacy SSE (``kind=None``).
    With ``oauth`` in the config the target carries the browser sign-in provider (:mod:`.oauth`).
    Raises :class:`~desktop_app.runtime.errors.ServerStartError` for a missing variable or secret.
    """
    headers = expand_headers(name, config, credentials=credentials) if config.headers else {}
    declared = config.declared_type or config.declared_transport
    kind: HttpKind | None = None
    if declared is not None:
        transport = config.transport
        kind = "sse" if transport == "sse" else "http"
    url = expand_text(name, (config.url or "").strip(), where="url", credentials=credentials)
    settings = config.oauth_settings
    auth = oauth_provider(name, url, settings, credentials=credentials) if settings is not None else None
    return HttpTarget(url=url, headers=headers, kind=kind, auth=auth, server=name)


__all__ = ["http_target", "stdio_parameters"]
