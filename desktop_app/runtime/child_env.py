"""The environment a child process Switchboard starts gets: a minimal, stated set, never the whole of ours.

A stdio MCP server and a command hook used to inherit every variable of the app's environment, the provider
key from ``--api-key-env`` and any other secret the user exported included. Now they get only
:data:`INHERITED` (where set; plus every ``LC_*`` locale variable), as Claude Desktop and Goose do, and then
what their entry declares (a server's ``env``, ``PATH`` from the login shell). Anything else a server needs
it must ask for in its ``env`` (``"TOKEN": "${MY_TOKEN}"``), where the user sees it before it runs.
"""

from __future__ import annotations

from collections.abc import Mapping

INHERITED = (
    # where things are and who runs them
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "SHELL",
    "TERM",
    # temporary files
    "TMPDIR",
    "TEMP",
    "TMP",
    # language and time
    "LANG",
    "LANGUAGE",
    "TZ",
    # per-user folders (Linux)
    "XDG_RUNTIME_DIR",
    "XDG_CONFIG_HOME",
    "XDG_DATA_HOME",
    "XDG_CACHE_HOME",
    "XDG_STATE_HOME",
    # Windows: a process cannot start or find its folders without these
    "SYSTEMROOT",
    "SYSTEMDRIVE",
    "WINDIR",
    "COMSPEC",
    "PATHEXT",
    "USERPROFILE",
    "USERNAME",
    "HOMEDRIVE",
    "HOMEPATH",
    "APPDATA",
    "LOCALAPPDATA",
    "PROGRAMDATA",
    "PROGRAMFILES",
    "PROGRAMFILES(X86)",
    "COMMONPROGRAMFILES",
)
"""The variables a child inherits from the app when they are set (and every ``LC_*``)."""

_INHERITED_UPPER = frozenset(INHERITED)


def inherited(name: str) -> bool:
    """Whether a child inherits variable ``name`` (case-insensitive, as Windows names are)."""
    upper = name.upper()
    return upper in _INHERITED_UPPER or upper.startswith("LC_")


def minimal_environment(environ: Mapping[str, str], extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The variables of ``environ`` a child inherits (see :data:`INHERITED`), then ``extra`` over them."""
    env = {key: value for key, value in environ.items() if inherited(key) and not value.startswith("()")}
    env.update(extra or {})
    return env


__all__ = ["INHERITED", "inherited", "minimal_environment"]
