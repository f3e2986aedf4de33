"""``switchboard install FILE.mcpb`` and ``switchboard uninstall NAME``: MCP Bundles from the terminal.

    switchboard install FILE.mcpb [--set KEY=VALUE …] [--yes] [--dry-run [--json]] [--home DIR]
    switchboard uninstall NAME [--home DIR]
    switchboard extensions [--home DIR]

``install`` prints what the bundle is and declares, its compatibility and its settings, then asks to
confirm and for each missing required value (sensitive ones without echo). ``--yes`` asks nothing: a
missing required value is then an error. ``--set`` repeats; a ``multiple`` directory or file takes
comma-separated paths. Installing a bundle already installed updates it and keeps the user's values.
The description ends with the compatibility report: one line per manifest part, works as in Claude Desktop /
translated (how) / not available here (why) (:mod:`desktop_app.runtime.extensions.report`). ``--dry-run``
prints it all and writes nothing (``--json``: one JSON object); it exits 0 when the bundle would install, 2
when it is refused. Exit codes: 0 installed (or removed), 1 not confirmed or no usable keyring, 2 a bundle
that is refused (malformed, unsafe, incompatible, a missing value under ``--yes``) or bad usage.
"""

from __future__ import annotations

import argparse
import getpass
import sys
from pathlib import Path
from typing import TextIO

from desktop_app.paths import HOME_ENV, app_paths

EXIT_OK, EXIT_FAILED, EXIT_REFUSED = 0, 1, 2


def add_extension_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    install = sub.add_parser("install", help="Install an MCP Bundle (.mcpb) as an MCP server.")
    install.add_argument("file", type=Path, metavar="FILE.mcpb", help="the bundle to install")
    install.add_argument(
        "--set", action="append", default=[], metavar="KEY=VALUE", help="a user_config value; repeatable"
    )
    install.add_argument("--yes", action="store_true", help="ask nothing; a missing required value is an error")
    install.add_argument(
        "--dry-run", action="store_true", help="show what the bundle is and how each part carries over; write nothing"
    )
    install.add_argument("--json", action="store_true", help="with --dry-run: print one JSON object")
    install.add_argument("--home", type=Path, metavar="DIR", help=f"keep all files under DIR (like ${HOME_ENV})")
    uninstall = sub.add_parser("uninstall", help="Remove an installed MCP Bundle: files, config and keyring entries.")
    uninstall.add_argument("name", metavar="NAME", help="the extension's name (see `switchboard extensions`)")
    uninstall.add_argument("--home", type=Path, metavar="DIR", help=f"keep all files under DIR (like ${HOME_ENV})")
    listing = sub.add_parser("extensions", help="List the installed MCP Bundles.")
    listing.add_argument("--home", type=Path, metavar="DIR", help=f"keep all files under DIR (like ${HOME_ENV})")


def _places(home: Path | None) -> object:
    from desktop_app.runtime.extensions.install import Places

    paths = app_paths(home).ensure()
    return Places(paths.data_dir, paths.settings_file, paths.mcp_config_file)


def _describe(out: TextIO, bundle: object, places: object) -> None:
    from desktop_app.cli.terminal import terminal_safe
    from desktop_app.runtime.extensions.archive import Bundle
    from desktop_app.runtime.extensions.install import Places, installed
    from desktop_app.runtime.extensions.review import launch_lines, publisher_warning
    from desktop_app.runtime.extensions.signature import verify

    assert isinstance(bundle, Bundle) and isinstance(places, Places)
    m = bundle.manifest
    out.write(f"{terminal_safe(m.title)} {terminal_safe(m.version)} by {terminal_safe(m.author.name)}\n")
    out.write(f"  {terminal_safe(m.description)}\n")
    warning = publisher_warning(installed(places).get(m.name), m)
    if warning:
        out.write(f"  WARNING: {terminal_safe(warning)}\n")
    command, environment = launch_lines(m, places.folder(m.name))
    out.write(f"  Runs: {terminal_safe(command)}  ({m.server.type} server; manifest {m.version_of_manifest})\n")
    for line in environment:  # exactly the environment it will be started with
        out.write(f"    {terminal_safe(line)}\n")
    if m.tools:
        out.write("  Tools: " + ", ".join(terminal_safe(t.name) for t in m.tools) + "\n")
    if m.prompts:
        out.write("  Prompts: " + ", ".join(terminal_safe(p.name) for p in m.prompts) + "\n")
    if m.compatibility is not None and m.compatibility.platforms:
        out.write("  Platforms: " + ", ".join(m.compatibility.platforms) + "\n")
    signature = verify(bundle)
    out.write(f"  Signature: {signature.summary} (mcpb verify: {signature.mcpb_verdict})\n")
    for key, option in m.user_config.items():
        flags = [option.type + (" (multiple)" if option.multiple else "")]
        if option.required:
            flags.append("required")
        if option.sensitive:
            flags.append("sensitive: kept in the keyring")
        out.write(f"  Setting {key}: {terminal_safe(option.title)} [{', '.join(flags)}]\n")
    from desktop_app.runtime.extensions.report import bundle_report

    out.write("  Compatibility (works as in Claude Desktop / translated / not available here):\n")
    for part in bundle_report(m, places.folder(m.name)):
        out.write(f"    {terminal_safe(part.text())}\n")


def _dry_run(ns: argparse.Namespace, out: TextIO, err: TextIO, places: object) -> int:
    """``install --dry-run [--json]``: the description and report, nothing written; 0 installable, 2 refused."""
    import json

    from desktop_app.runtime.extensions import compat
    from desktop_app.runtime.extensions.archive import BundleError, read_bundle
    from desktop_app.runtime.extensions.install import Places
    from desktop_app.runtime.extensions.report import bundle_report
    from desktop_app.runtime.extensions.review import launch_entry
    from desktop_app.runtime.extensions.signature import verify

    assert isinstance(places, Places)
    try:
        bundle = read_bundle(ns.file)
    except BundleError as exc:
        err.write(f"switchboard: {exc}\n")
        return EXIT_REFUSED
    m = bundle.manifest
    refusals = compat.refusals(m)
    signature = verify(bundle)
    if signature.state == "invalid":
        refusals.append(f"the signature is {signature.summary}")
    if ns.json:
        entry = launch_entry(m, places.folder(m.name))
        document = {
            "name": m.name,
            "title": m.title,
            "version": m.version,
            "author": m.author.name,
            "manifest_version": m.version_of_manifest,
            "server_type": m.server.type,
            "runs": {"command": entry["command"], "args": entry["args"], "env": entry["env"]},
            "signature": {"state": signature.state, "summary": signature.summary, "mcpb": signature.mcpb_verdict},
            "installable": not refusals,
            "refusals": refusals,
            "compatibility": [line.as_dict() for line in bundle_report(m, places.folder(m.name))],
        }
        out.write(json.dumps(document, indent=2, ensure_ascii=False) + "\n")
    else:
        _describe(out, bundle, places)
        for problem in refusals:
            out.write(f"  Refused: {problem}\n")
        out.write("Dry run: nothing was installed.\n")
    return EXIT_REFUSED if refusals else EXIT_OK


def _ask_missing(bundle: object, places: object, credentials: object, given: dict[str, str]) -> None:
    """On a terminal: ask for each required value that is neither given, kept from before, nor defaulted."""
    from desktop_app.runtime.credentials import Credentials
    from desktop_app.runtime.extensions.archive import Bundle
    from desktop_app.runtime.extensions.install import Places, installed, kept_values
    from desktop_app.runtime.extensions.user_config import default_of

    assert isinstance(bundle, Bundle) and isinstance(places, Places) and isinstance(credentials, Credentials)
    from desktop_app.runtime.extensions.review import same_publisher

    previous = installed(places).get(bundle.manifest.name)
    same = previous is not None and same_publisher(previous, bundle.manifest)
    kept = kept_values(places, previous, credentials) if previous is not None and same else {}
    for key, option in bundle.manifest.user_config.items():
        if key in given or key in kept or not option.required or default_of(key, option) not in (None, "", []):
            continue
        prompt = f"{option.title} ({key}): "
        given[key] = getpass.getpass(prompt) if option.sensitive else input(prompt)


def install_command(ns: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from desktop_app.runtime.credentials import Credentials
    from desktop_app.runtime.errors import ConfigError
    from desktop_app.runtime.extensions.archive import BundleError, read_bundle
    from desktop_app.runtime.extensions.install import Places, check, install

    given: dict[str, str] = {}
    for item in ns.set:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            err.write(f"switchboard: --set {item!r}: write it as KEY=VALUE\n")
            return EXIT_REFUSED
        given[key.strip()] = value
    if ns.json and not ns.dry_run:
        err.write("switchboard: --json goes with --dry-run\n")
        return EXIT_REFUSED
    places = _places(ns.home)
    assert isinstance(places, Places)
    if ns.dry_run:
        return _dry_run(ns, out, err, places)
    credentials = Credentials()
    try:
        bundle = read_bundle(ns.file)
        check(bundle, places)
        _describe(out, bundle, places)
        interactive = not ns.yes and sys.stdin.isatty()
        if not ns.yes and not interactive:
            err.write("switchboard: not installed: confirm with --yes (stdin is not a terminal)\n")
            return EXIT_FAILED
        if interactive:
            _ask_missing(bundle, places, credentials, given)
            if input(f"Install {bundle.manifest.title}? [y/N] ").strip().lower() not in ("y", "yes"):
                err.write("switchboard: not installed\n")
                return EXIT_FAILED
        result = install(bundle, places, credentials, given)
    except BundleError as exc:
        err.write(f"switchboard: {exc}\n")
        return EXIT_FAILED if "no usable keyring" in str(exc) else EXIT_REFUSED
    except ConfigError as exc:
        err.write(f"switchboard: bad config: {exc}\n")
        return EXIT_REFUSED
    verb = f"Updated from {result.updated_from} to" if result.updated_from else "Installed"
    out.write(f"{verb} {result.name} {result.version} in {result.folder}\n")
    out.write(f"Registered as the MCP server {result.name!r} in {places.mcp_file}\n")
    if result.secrets:
        out.write("Sensitive values in the keyring (service 'switchboard'): " + ", ".join(result.secrets) + "\n")
    if result.settings:
        out.write("Other values in the settings: " + ", ".join(result.settings) + "\n")
    return EXIT_OK


def uninstall_command(ns: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from desktop_app.runtime.credentials import Credentials
    from desktop_app.runtime.errors import ConfigError
    from desktop_app.runtime.extensions.install import Places, uninstall

    places = _places(ns.home)
    assert isinstance(places, Places)
    try:
        removed = uninstall(ns.name, places, Credentials())
    except ConfigError as exc:
        err.write(f"switchboard: bad config: {exc}\n")
        return EXIT_REFUSED
    if not removed:
        err.write(f"switchboard: no extension named {ns.name!r} is installed (see `switchboard extensions`)\n")
        return EXIT_REFUSED
    out.write(f"Removed {ns.name}: its files, its mcp.json entry, its settings and its keyring entries\n")
    return EXIT_OK


def extensions_command(ns: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from desktop_app.runtime.extensions.install import Places, installed

    places = _places(ns.home)
    assert isinstance(places, Places)
    found = installed(places)
    if not found:
        out.write("No extensions installed.\n")
    for name, manifest in found.items():
        out.write(f"{name}\t{manifest.version}\t{manifest.server.type}\t{manifest.description}\n")
    return EXIT_OK


__all__ = ["add_extension_parsers", "extensions_command", "install_command", "uninstall_command"]
