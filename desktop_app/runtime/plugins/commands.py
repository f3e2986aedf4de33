"""A plugin's commands as prompts (:class:`PluginPrompt`, :func:`read_prompts`): ``commands/*.md`` (and the
manifest's command paths), Whale's commands and ``[[prompts]]``; placeholders filled when one runs. The
server that offers them is :mod:`.prompts` (which re-exports these names)."""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from pathlib import Path

from desktop_app.runtime.plugins.plugin import Plugin, PluginError, read_inside, whale_entries

SERVER_NAME = "switchboard.plugins"
MAX_PROMPT_BYTES = 256 * 1024
_POSITIONAL = re.compile(r"\$([1-9][0-9]*)")
_WHALE_ARGS = "{{args}}"
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class PluginPrompt:
    plugin: str
    command: str
    description: str
    text: str
    argument_hint: str = ""
    allowed_tools: tuple[str, ...] = ()
    """Front matter ``allowed-tools`` (Claude Code): which ``!`…` `` commands may run."""
    root: str = ""
    """The plugin's folder, for ``${CLAUDE_PLUGIN_ROOT}`` and the context commands' environment."""
    fields: tuple[str, ...] = ()
    """The front matter's keys as written (the compatibility report says what each does here)."""
    timeout_s: float = 30.0
    """How long a context command may run (Whale's ``timeout_ms``; else Claude Code's bash default)."""

    @property
    def name(self) -> str:
        return f"{self.plugin}:{self.command}"

    def render(self, arguments: str = "") -> str:
        """The text with ``$ARGUMENTS``, ``{{args}}``, ``$1`` … ``$N`` and the plugin root filled in (arguments
        appended when it has no placeholder). ``!`…` `` context lines stay for the client to run."""
        from desktop_app.runtime.plugins.context_commands import refuse_uncovered
        from desktop_app.runtime.plugins.plugin import substitute_root

        words = arguments.split()
        has_placeholder = any(p in self.text for p in ("$ARGUMENTS", _WHALE_ARGS)) or bool(
            _POSITIONAL.search(self.text)
        )
        text = substitute_root(self.text, Path(self.root)) if self.root else self.text
        text = text.replace("$ARGUMENTS", arguments).replace(_WHALE_ARGS, arguments)
        text = _POSITIONAL.sub(lambda m: words[int(m.group(1)) - 1] if int(m.group(1)) <= len(words) else "", text)
        if arguments and not has_placeholder:
            text = f"{text.rstrip()}\n\n{arguments}"
        return refuse_uncovered(text.strip(), self.allowed_tools)


def _first_line(text: str) -> str:
    return next((line.strip().lstrip("#").strip() for line in text.splitlines() if line.strip()), "")


def _command_file(plugin: Plugin, path: Path) -> PluginPrompt | None:
    from desktop_app.runtime.errors import ConfigError
    from desktop_app.runtime.skills.frontmatter import split_lenient

    try:  # inside the plugin (symlinks resolved), a regular file, size-capped; frontmatter as Claude Code reads it
        meta, body, warning = split_lenient(read_inside(plugin.folder, path, limit=MAX_PROMPT_BYTES), path)
    except (OSError, ConfigError, PluginError) as exc:
        plugin.problems.append(f"{path}: cannot be read as a prompt ({exc})")
        return None
    if warning:
        plugin.problems.append(f"{warning}; the prompt is served")
    meta = meta or {}
    from desktop_app.runtime.plugins.context_commands import allowed_tools

    description = str(meta.get("description") or _first_line(body))
    hint_value = meta.get("argument-hint") or meta.get("argument_hint") or ""
    if isinstance(hint_value, list):  # YAML reads Claude Code's `argument-hint: [message] [n]` as lists
        hint_value = " ".join(f"[{v}]" for v in hint_value)
    hint = str(hint_value)
    command = path.stem
    if path.is_relative_to(plugin.folder / "commands"):
        command = ":".join(path.relative_to(plugin.folder / "commands").with_suffix("").parts)
    if plugin.format == "claude":  # Claude Code: a subfolder organises, the name is the file's
        command = path.stem
    if plugin.format == "whale" and isinstance(meta.get("name"), str) and meta["name"].strip():
        command = meta["name"].strip()  # Whale: "set name: xxx in the frontmatter to override"
    tools = tuple(allowed_tools(meta.get("allowed-tools")))
    fields = tuple(str(k) for k in meta)
    return PluginPrompt(plugin.id, command, description, body, hint, tools, str(plugin.folder), fields)


def _whale_shell_commands(plugin: Plugin) -> list[PluginPrompt]:
    """Whale's ``commands/commands.toml`` ``[[commands]]``: each a prompt that runs its command (approved)."""
    import tomllib

    path = plugin.folder / "commands" / "commands.toml"
    try:
        document = tomllib.loads(read_inside(plugin.folder, path))
    except FileNotFoundError:
        return []
    except (OSError, ValueError, RecursionError, PluginError) as exc:
        plugin.problems.append(f"{path}: cannot be read as TOML ({exc}); its commands are skipped")
        return []
    found = []
    entries = document.get("commands", [])
    for index, entry in enumerate(entries if isinstance(entries, list) else []):
        name, command = (entry.get("name"), entry.get("command")) if isinstance(entry, dict) else (None, None)
        if not isinstance(name, str) or not name.strip() or not isinstance(command, str) or not command.strip():
            plugin.problems.append(f"{path}: commands[{index}]: needs a name and a command; skipped")
            continue
        if "`" in command or "\n" in command:
            plugin.problems.append(f"{path}: commands[{index}]: a command with a backtick or a newline; skipped")
            continue
        description = str(entry.get("description") or f"Runs `{command}`")
        text = f"Output of `{command}`:\n\n!`{command}`"
        timeout_ms = entry.get("timeout_ms")
        timeout = timeout_ms / 1000 if isinstance(timeout_ms, int) and timeout_ms > 0 else 30.0
        found.append(
            PluginPrompt(plugin.id, name.strip(), description, text, root=str(plugin.folder), timeout_s=timeout)
        )
    return found


def _whale_prompts(plugin: Plugin) -> list[PluginPrompt]:
    found: list[PluginPrompt] = []
    for where, entry, text in whale_entries(plugin, "prompts", "text"):
        if not isinstance(text, str):
            plugin.problems.append(f"{where}: needs a text or a file")
            continue
        description = str(entry.get("description") or _first_line(text))
        found.append(PluginPrompt(plugin.id, entry["name"].strip(), description, text, root=str(plugin.folder)))
    return found


def _declared_commands(plugin: Plugin) -> list[Path]:
    """Claude Code's manifest ``commands``: a path or paths (files or folders) that supplement ``commands/``."""
    from desktop_app.runtime.plugins.plugin import CLAUDE_MANIFEST, _json

    manifest = _json(plugin.folder / CLAUDE_MANIFEST, plugin.folder) if plugin.format == "claude" else None
    value = manifest.get("commands") if isinstance(manifest, dict) else None
    paths: list[Path] = []
    for entry in [value] if isinstance(value, str) else value if isinstance(value, list) else []:
        path = (plugin.folder / str(entry)).resolve()
        if not path.is_relative_to(plugin.folder) or not path.exists():
            plugin.problems.append(f"{CLAUDE_MANIFEST}: commands: {entry!r} is not a file or folder in the plugin")
        elif path.is_dir():
            paths += sorted(p for p in path.glob("**/*.md") if not p.is_relative_to(plugin.folder / "commands"))
        elif not path.is_relative_to(plugin.folder / "commands"):
            paths.append(path)
    return paths


def read_prompts(plugin: Plugin) -> list[PluginPrompt]:
    """The plugin's prompts: ``commands/**/*.md`` (Claude Code names one by its file, Whale by its path), then Whale's
    ``commands/commands.toml`` and ``[[prompts]]`` (the first of a name wins)."""
    found: dict[str, PluginPrompt] = {}
    for path in [*sorted((plugin.folder / "commands").glob("**/*.md")), *_declared_commands(plugin)]:
        prompt = _command_file(plugin, path)
        if prompt is not None:
            found.setdefault(prompt.command, prompt)
    if plugin.format == "whale":
        for prompt in [*_whale_shell_commands(plugin), *_whale_prompts(plugin)]:
            found.setdefault(prompt.command, prompt)
    return list(found.values())
