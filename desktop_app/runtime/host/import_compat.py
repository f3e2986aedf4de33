"""The compatibility report of an import: one line per part of the source, and the table of what each source
format supports.

Every field of every server entry (and each file-level part such as VS Code's ``inputs``) gets a
:class:`CompatLine`: it **works** as in its source app, it was **translated** (and how), or it is **not available**
here (and why). The importer, the preview (window and ``switchboard import-config --dry-run [--json]``) and the
result dialog show these lines; nothing is dropped without one.

:data:`FORMAT_SUPPORT` is the per-format summary docs/import.md's table is generated from (:func:`support_markdown`).
"""

from __future__ import annotations

from desktop_app.runtime.compat import TRANSLATED, UNAVAILABLE, WORKS, CompatLine, Status, support_rows


class CompatLog:
    """The lines of one server entry (or the file, with ``server=""``) as they are found."""

    def __init__(self, lines: list[CompatLine], server: str) -> None:
        self._lines = lines
        self.server = server
        self.parts: set[str] = set()
        """Top-level fields already reported (the generic pass reports the rest)."""

    def add(self, part: str, status: Status, detail: str, *, field: str | None = None) -> None:
        self._lines.append(CompatLine(self.server, part, status, detail))
        if field is None or part == field:  # a whole field; a sub-part (one env entry, one argument) is not
            self.parts.add(part.split(" ", 1)[0])

    def works(self, part: str, detail: str = "as in the source app", *, field: str | None = None) -> None:
        self.add(part, WORKS, detail, field=field)

    def translated(self, part: str, detail: str, *, field: str | None = None) -> None:
        self.add(part, TRANSLATED, detail, field=field)

    def unavailable(self, part: str, detail: str, *, field: str | None = None) -> None:
        self.add(part, UNAVAILABLE, detail, field=field)


_ENTER_IT = "enter it before the server starts (Enter secret… in View → Servers, or `keyring set switchboard {name}`)"


def enter_it(name: str) -> str:
    """The step that sets keyring entry ``name`` (a value the source app asked for, or kept in its own keyring)."""
    return _ENTER_IT.format(name=name)


FORMAT_SUPPORT: dict[str, list[tuple[str, Status, str]]] = {
    "Claude Desktop": [
        ("command, args, env", WORKS, "as written"),
        ("literal secrets in env, args, URLs", TRANSLATED, "moved to the keyring"),
        ("${VAR} in any field", TRANSLATED, "Claude Desktop passes it as written; Switchboard reads the variable"),
    ],
    "Claude Code (.mcp.json)": [
        ("type, command, args, env, url, headers, oauth", WORKS, "as written"),
        ("${VAR}, ${VAR:-default} in command, args, env, url, headers", WORKS, "expanded when the server starts"),
        ("literal secrets in env, args, URLs, headers", TRANSLATED, "moved to the keyring"),
        ("headersHelper", UNAVAILABLE, "no helper command runs; set the headers instead"),
    ],
    "Cursor": [
        ("command, args, env, url, headers, type", WORKS, "as written"),
        ("${env:NAME}", TRANSLATED, "becomes ${NAME}"),
        ("${userHome}, ${workspaceFolder}, ${workspaceFolderBasename}, ${pathSeparator}", TRANSLATED, "filled in"),
        ("envFile", TRANSLATED, "its variables are copied into env (secrets to the keyring)"),
        ("auth (OAuth client)", TRANSLATED, "becomes oauth (clientId, clientSecret in the keyring, scopes)"),
    ],
    "VS Code": [
        ("servers: type stdio/http/sse, command, args, env, url, headers", WORKS, "as written"),
        (
            "inputs, ${input:id}",
            TRANSLATED,
            "a password or open input becomes a keyring entry you enter once; an input with a default takes it",
        ),
        ("${env:NAME}", TRANSLATED, "becomes ${NAME}"),
        ("${userHome}, ${workspaceFolder}, ${workspaceFolderBasename}, ${pathSeparator}", TRANSLATED, "filled in"),
        ("envFile", TRANSLATED, "its variables are copied into env (secrets to the keyring)"),
        ("dev (watch, debug)", UNAVAILABLE, "VS Code's development mode; the server runs normally"),
        ("${command:…}, ${config:…} and other editor variables", UNAVAILABLE, "no editor here; the server is skipped"),
    ],
    "Goose": [
        ("stdio extensions: cmd, args, envs", TRANSLATED, "command, args, env"),
        ("env_keys", TRANSLATED, "keyring entries you enter once (Goose keeps their values in its own keyring)"),
        ("streamable_http (and sse) extensions: uri, headers", TRANSLATED, "url, headers"),
        ("enabled", TRANSLATED, "enabled: false becomes disabled"),
        ("timeout", TRANSLATED, "timeout and startupTimeout"),
        ("builtin and platform extensions", UNAVAILABLE, "they run inside Goose"),
        ("available_tools", UNAVAILABLE, "every tool is offered; hide others with excludedTools"),
    ],
    "nanobot": [
        ("command, args, env, url, headers", WORKS, "as written"),
        (
            "workdir, image, dockerfile, source, sandboxing, ports, toolOverrides",
            UNAVAILABLE,
            "the command runs directly, in Switchboard's folder",
        ),
    ],
    "Whale": [
        ("servers, mcpServers, transport", WORKS, "as written"),
        ("disabled_tools, timeout", TRANSLATED, "excludedTools, timeout and startupTimeout"),
    ],
}


def support_markdown() -> str:
    """docs/import.md's table of what each source format supports, from :data:`FORMAT_SUPPORT`."""
    return support_rows(FORMAT_SUPPORT)


__all__ = [
    "FORMAT_SUPPORT",
    "TRANSLATED",
    "UNAVAILABLE",
    "WORKS",
    "CompatLine",
    "CompatLog",
    "Status",
    "enter_it",
    "support_markdown",
]
