"""What a bundle's install screens (``switchboard install`` and the window's) show before anything is written:
exactly the program, arguments and environment its server will be started with, and whether the bundle comes
from another publisher than the installed one of the same name.

The command is the manifest's ``mcp_config`` (or the host's default for its ``server.type``) for this platform,
with ``${__dirname}`` (the folder it installs into) and the system variables substituted, as
:func:`~desktop_app.runtime.extensions.launch.resolve_launch` does at start; ``${user_config.KEY}`` is shown as
"your setting KEY". A different ``author`` (name or email) is another publisher: the install is then a new
extension under a taken name, not an update, and inherits none of the user's stored secrets.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from desktop_app.runtime.extensions import compat
from desktop_app.runtime.extensions.manifest import Manifest
from desktop_app.runtime.extensions.variables import bundle_command, substitute, system_variables
from desktop_app.runtime.host.launch_view import command_line, environment_lines


def launch_entry(manifest: Manifest, folder: Path) -> dict[str, Any]:
    """The server entry as it will start from ``folder``: command, args and env (user settings as references)."""
    command, args, env = manifest.server.launch().for_platform(compat.current_platform())
    variables: dict[str, str | list[str]] = {**system_variables(), "__dirname": str(folder)}
    command = str(substitute(command, variables))
    if command in ("python", "python3") and shutil.which(command) is None:
        command = "python3" if command == "python" else "python"
    command = bundle_command(folder, command)
    return {"command": command, "args": substitute(list(args), variables), "env": substitute(dict(env), variables)}


def launch_lines(manifest: Manifest, folder: Path) -> tuple[str, list[str]]:
    """``(the command line, one line per env entry)`` that the install screen shows."""
    entry = launch_entry(manifest, folder)
    return command_line(entry), environment_lines(manifest.name, entry)


def publisher(manifest: Manifest) -> str:
    author = manifest.author
    return f"{author.name} <{author.email}>" if author.email else author.name


def same_publisher(previous: Manifest, manifest: Manifest) -> bool:
    a, b = previous.author, manifest.author
    return (
        a.name.strip().casefold() == b.name.strip().casefold()
        and (a.email or "").strip().casefold() == (b.email or "").strip().casefold()
    )


def publisher_warning(previous: Manifest | None, manifest: Manifest) -> str | None:
    """A warning when ``manifest`` replaces an installed bundle of the same name from another publisher."""
    if previous is None or same_publisher(previous, manifest):
        return None
    return (
        f"The installed {manifest.name!r} is by {publisher(previous)}; this bundle is by {publisher(manifest)}. "
        "It is another publisher's extension, not an update: none of your stored values carry over, enter them again."
    )


__all__ = ["launch_entry", "launch_lines", "publisher", "publisher_warning", "same_publisher"]
