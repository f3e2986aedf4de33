"""A bundle's compatibility report: one :class:`~desktop_app.runtime.compat.CompatLine` per part of its manifest.

Every field the manifest sets gets a line: it **works** as in Claude Desktop, it is **translated** (how), or it
is **not available** here (why); each ``user_config`` setting, each loader variable in ``env`` and the
``${…}`` variables ``mcp_config`` uses get their own. The install screen, ``switchboard install`` and
``switchboard install --dry-run [--json]`` show these lines. :data:`BUNDLE_SUPPORT` is the summary the guide's
table (docs/bundles.md) is generated from (:func:`support_markdown`), the same statuses the lines use.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable
from pathlib import Path

from desktop_app.runtime.compat import TRANSLATED, UNAVAILABLE, WORKS, CompatLine, Status, support_rows
from desktop_app.runtime.extensions import compat
from desktop_app.runtime.extensions.launch import inside_bundle, is_loader_var, system_variables
from desktop_app.runtime.extensions.manifest import Manifest

_VARIABLE = re.compile(r"\$\{([^}]+)\}")
_SHOWN = "shown on the install screen"
_KEPT = "kept in the manifest (not shown)"
_FIELDS: dict[str, tuple[Status, str]] = {
    "manifest_version": (WORKS, "versions 0.1 to 0.4 are read"),
    "dxt_version": (WORKS, "read as manifest_version (its deprecated name)"),
    "$schema": (WORKS, "ignored, as in Claude Desktop"),
    "name": (WORKS, "the server's name in mcp.json and its folder's"),
    "display_name": (WORKS, _SHOWN),
    "version": (WORKS, _SHOWN + "; installing a newer one is an update that keeps your values"),
    "description": (WORKS, _SHOWN),
    "long_description": (TRANSLATED, _SHOWN + " as plain text (its Markdown is not rendered)"),
    "author": (WORKS, _SHOWN + "; another author under the same name is called out and inherits nothing"),
    "repository": (WORKS, _KEPT),
    "homepage": (WORKS, _KEPT),
    "documentation": (WORKS, _KEPT),
    "support": (WORKS, _KEPT),
    "keywords": (WORKS, _KEPT),
    "license": (WORKS, _KEPT),
    "icon": (WORKS, _SHOWN),
    "icons": (TRANSLATED, "the single icon is shown; size and theme variants are not used"),
    "screenshots": (UNAVAILABLE, "not shown here"),
    "localization": (UNAVAILABLE, "translated strings are not read; the manifest's own texts are shown"),
    "tools": (WORKS, _SHOWN + "; the model gets the tools the server lists when it starts"),
    "tools_generated": (WORKS, "the server's tools are listed when it starts"),
    "prompts": (
        TRANSLATED,
        "names shown on the install screen; the prompts offered are the ones the server lists (prompts/list), "
        "the manifest's prompt texts are not used",
    ),
    "prompts_generated": (WORKS, "the server's prompts are listed when it starts"),
    "_meta": (UNAVAILABLE, "client-specific metadata (e.g. com.microsoft.windows) is not used here"),
}
_SYSTEM = ("__dirname", "HOME", "DESKTOP", "DOCUMENTS", "DOWNLOADS", "pathSeparator", "/")

BUNDLE_SUPPORT: dict[str, list[tuple[str, Status, str]]] = {
    "MCP Bundle (.mcpb)": [
        (
            "manifest_version 0.1–0.4 (dxt_version)",
            WORKS,
            "read; unknown fields inside a part are refused, as the official schema does; unknown top-level "
            "fields are named and not used",
        ),
        ("server.type node, python, binary", WORKS, "run from the bundle's folder"),
        (
            "server.type uv (0.4)",
            WORKS,
            "uv run --directory <bundle> ENTRY when uv is installed; uv provides the Python runtimes.python asks for",
        ),
        ("server.mcp_config: command, args, env", WORKS, "as written; a relative command is the bundle's file"),
        ("server.mcp_config left out", TRANSLATED, "the host's way to run the entry point for its type"),
        ("platform_overrides", WORKS, "this platform's command, args and env replace the base ones"),
        ("${__dirname}, ${HOME}, ${DESKTOP}, ${DOCUMENTS}, ${DOWNLOADS}, ${pathSeparator}, ${/}", WORKS, "substituted"),
        ("${user_config.KEY}", WORKS, "substituted when the server starts; multiple values one argument each"),
        (
            "an optional user_config value left unset",
            TRANSLATED,
            "its env entry and argument (with the option before a bare reference) are left out, never passed "
            "as a literal ${user_config.KEY}",
        ),
        (
            "user_config types string, number, boolean, directory, file",
            WORKS,
            "a form (window) or --set; required, default, multiple, min and max checked",
        ),
        ("user_config sensitive", WORKS, "kept in the keyring; an optional one can be left unset without a keyring"),
        ("PYTHONPATH, LD_LIBRARY_PATH, DYLD_* inside the bundle", WORKS, "allowed (server/lib on PYTHONPATH)"),
        ("loader variables outside the bundle, NODE_OPTIONS", UNAVAILABLE, "refused unless allowUnsafeEnv"),
        ("compatibility.platforms, compatibility.runtimes", WORKS, "checked before installing; refused with why"),
        (
            "compatibility.claude_desktop",
            UNAVAILABLE,
            "a Claude Desktop version; not checked here (Switchboard is not Claude Desktop)",
        ),
        ("tools, tools_generated, prompts_generated", WORKS, "shown; the model gets the server's own lists"),
        ("prompts", TRANSLATED, "names shown; the server's own prompts are offered, the manifest's texts are not used"),
        ("privacy_policies", WORKS, "listed on the install screen and in install --dry-run"),
        ("icon", WORKS, "shown"),
        ("icons", TRANSLATED, "the single icon is shown; variants are not used"),
        ("localization, screenshots, _meta", UNAVAILABLE, "not read here; the manifest's own texts are shown"),
        ("signature (mcpb sign)", WORKS, "checked; an INVALID one is never installed"),
    ],
}


def support_markdown() -> str:
    """The guide's table (docs/bundles.md) of what the bundle format supports, from :data:`BUNDLE_SUPPORT`."""
    return support_rows(BUNDLE_SUPPORT)


def _server_lines(manifest: Manifest, folder: Path, which: Callable[[str], str | None]) -> list[CompatLine]:
    server = manifest.server
    lines: list[CompatLine] = []
    kinds = {
        "node": (WORKS, "run with node from your PATH"),
        "python": (WORKS, "run with python from your PATH (python3 where only that exists)"),
        "binary": (WORKS, "the bundle's own executable"),
        "uv": (
            (WORKS, "uv run --directory <bundle> ENTRY")
            if which("uv")
            else (UNAVAILABLE, "uv is not installed; install uv (https://docs.astral.sh/uv/)")
        ),
    }
    status, detail = kinds[server.type]
    lines.append(CompatLine("", f"server.type {server.type}", status, detail))
    lines.append(CompatLine("", "server.entry_point", WORKS, "a file inside the bundle; the server starts there"))
    config = server.launch()
    if server.mcp_config is None:
        shown = " ".join([config.command, *config.args])
        lines.append(CompatLine("", "server.mcp_config", TRANSLATED, f"left out: the host runs {shown}"))
    else:
        lines.append(
            CompatLine(
                "",
                "server.mcp_config",
                WORKS,
                "command, args and env as written; a relative command is the bundle's file",
            )
        )
    if config.platform_overrides:
        here = compat.current_platform()
        which_ones = ", ".join(sorted(config.platform_overrides))
        used = "used here" if here in config.platform_overrides else f"none for {here}: the base entry is used"
        lines.append(CompatLine("", "server.mcp_config.platform_overrides", WORKS, f"{which_ones}; {used}"))
    texts = [config.command, *config.args, *config.env.values()]
    for override in config.platform_overrides.values():
        texts += [str(v) for v in [override.get("command", ""), *override.get("args", [])]]
        texts += [str(v) for v in dict(override.get("env", {})).values()]
    used_vars = sorted({m.group(1) for text in texts for m in _VARIABLE.finditer(text)})
    system = [v for v in used_vars if v in _SYSTEM]
    if system:
        lines.append(CompatLine("", "variables " + ", ".join(f"${{{v}}}" for v in system), WORKS, "substituted"))
    for name in used_vars:
        if name in _SYSTEM or name.startswith("user_config."):
            continue
        lines.append(
            CompatLine(
                "",
                f"variable ${{{name}}}",
                TRANSLATED,
                "not an mcpb variable: read from the environment "
                "when the server starts (the start is refused when it is unset)",
            )
        )
    variables = {**system_variables(), "__dirname": str(folder)}
    for key, value in config.env.items():
        if not is_loader_var(key):
            continue
        resolved = _VARIABLE.sub(lambda m: str(variables.get(m.group(1), m.group(0))), value)
        if inside_bundle(folder, key, resolved):
            lines.append(CompatLine("", f"env {key}", WORKS, "points inside the bundle: allowed"))
        else:
            lines.append(
                CompatLine(
                    "",
                    f"env {key}",
                    UNAVAILABLE,
                    "changes what code the server loads from outside the "
                    "bundle: the start is refused (unless the mcp.json entry says allowUnsafeEnv)",
                )
            )
    return lines


def _user_config_lines(manifest: Manifest) -> list[CompatLine]:
    config = manifest.server.launch()
    texts = [config.command, *config.args, *config.env.values()]
    lines: list[CompatLine] = []
    for key, option in manifest.user_config.items():
        facts = [option.type + (", several" if option.multiple else "")]
        if option.required:
            facts.append("required")
        if option.default is not None:
            facts.append("with a default")
        if option.min is not None or option.max is not None:
            low = "" if option.min is None else f"{option.min:g}"
            high = "" if option.max is None else f"{option.max:g}"
            facts.append(f"range {low}..{high}")
        facts.append("kept in the keyring" if option.sensitive else "kept in settings.json")
        part = f"user_config.{key}"
        referenced = any(f"${{user_config.{key}}}" in text for text in texts)
        if not option.required and option.default is None and referenced:
            detail = "; ".join(facts) + "; when not set, the env entry or argument using it is left out"
            lines.append(CompatLine("", part, TRANSLATED, detail))
        else:
            lines.append(CompatLine("", part, WORKS, "; ".join(facts)))
    return lines


def _compatibility_lines(manifest: Manifest, probe: compat.RuntimeProbe) -> list[CompatLine]:
    found = manifest.compatibility
    if found is None:
        return []
    lines: list[CompatLine] = []
    here = compat.current_platform()
    if found.platforms is not None:
        if not found.platforms or here in found.platforms:
            lines.append(CompatLine("", "compatibility.platforms", WORKS, f"{here} is supported"))
        else:
            supported = ", ".join(found.platforms)
            lines.append(CompatLine("", "compatibility.platforms", UNAVAILABLE, f"{supported} only; this is {here}"))
    if found.runtimes is not None:
        for runtime, spec in (("python", found.runtimes.python), ("node", found.runtimes.node)):
            if not spec:
                continue
            part = f"compatibility.runtimes.{runtime}"
            if runtime == "python" and manifest.server.type == "uv":
                lines.append(CompatLine("", part, TRANSLATED, f"{spec}: uv finds or downloads a Python that fits"))
                continue
            version = probe(runtime)
            if version is None:
                lines.append(CompatLine("", part, UNAVAILABLE, f"{spec}: {runtime} is not installed"))
                continue
            have = ".".join(map(str, version))
            try:
                fits = compat.satisfies(version, spec)
            except ValueError as exc:
                lines.append(CompatLine("", part, UNAVAILABLE, str(exc)))
                continue
            status = WORKS if fits else UNAVAILABLE
            lines.append(CompatLine("", part, status, f"{spec}: {have} {'fits' if fits else 'does not fit'}"))
    if not lines and not found.claude_desktop:
        lines.append(CompatLine("", "compatibility", WORKS, "no requirements: runs anywhere"))
    if found.claude_desktop:
        lines.append(
            CompatLine(
                "",
                "compatibility.claude_desktop",
                UNAVAILABLE,
                f"{found.claude_desktop}: a Claude Desktop version; not checked here",
            )
        )
    return lines


def bundle_report(
    manifest: Manifest,
    folder: Path,
    *,
    probe: compat.RuntimeProbe = compat.probe_runtime,
    which: Callable[[str], str | None] = shutil.which,
) -> list[CompatLine]:
    """One line per part of ``manifest`` (to be installed in ``folder``)."""
    lines: list[CompatLine] = []
    fields = type(manifest).model_fields
    present = {fields[f].alias or f for f in manifest.model_fields_set if f in fields}  # not the unknown ones
    for field, (status, detail) in _FIELDS.items():
        if field in present:
            lines.append(CompatLine("", field, status, detail))
    lines += [
        CompatLine("", field, UNAVAILABLE, "not a field of the MCP Bundle manifest spec: not used here")
        for field in manifest.unknown_fields
    ]
    lines += _server_lines(manifest, folder, which)
    lines += _user_config_lines(manifest)
    lines += _compatibility_lines(manifest, probe)
    if manifest.privacy_policies:
        lines.append(CompatLine("", "privacy_policies", WORKS, "read them: " + ", ".join(manifest.privacy_policies)))
    elif "privacy_policies" in present:
        lines.append(CompatLine("", "privacy_policies", WORKS, "none listed"))
    return lines


__all__ = ["BUNDLE_SUPPORT", "bundle_report", "support_markdown"]
