"""Claude Code plugin folders for tests, written field by field from Claude Code's published references
(plugins reference / manifest reference at code.claude.com/docs/en/plugins, the hooks reference, and the
shapes of the official plugins in the anthropics/claude-code repository's ``plugins/`` folder).

Our own text throughout: only the field names and their shapes follow the references.

* the manifest ``.claude-plugin/plugin.json`` is optional; without it the folder name is the plugin's name and
  the components are found in the standard layout (``commands/``, ``agents/``, ``skills/<name>/SKILL.md``,
  ``hooks/hooks.json``, ``.mcp.json``);
* an agent file is Markdown with YAML frontmatter: ``name``, ``description``, ``tools`` (a comma list or a
  YAML list), ``model`` (``sonnet``, ``inherit`` …), ``color``;
* a command file is Markdown with an optional frontmatter (``description``, ``argument-hint``,
  ``allowed-tools``);
* a skill is ``skills/<name>/SKILL.md`` with ``name`` and ``description``;
* ``hooks/hooks.json`` is ``{"hooks": {"<Event>": [{"matcher": "…", "hooks": [{"type": "command", …}]}]}}``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def manifest(folder: Path, name: str, **fields: Any) -> Path:
    """``.claude-plugin/plugin.json`` with ``name`` and the other fields given (version, description, author…)."""
    return write(folder / ".claude-plugin" / "plugin.json", json.dumps({"name": name, **fields}, indent=2))


def agent(folder: Path, name: str, frontmatter: str, body: str = "You look into the code and report.\n") -> Path:
    """``agents/<name>.md``: ``frontmatter`` is the YAML between the ``---`` lines, verbatim."""
    return write(folder / "agents" / f"{name}.md", f"---\n{frontmatter.strip()}\n---\n\n{body}")


def command(folder: Path, name: str, description: str, body: str = "Work on: $ARGUMENTS\n") -> Path:
    return write(
        folder / "commands" / f"{name}.md",
        f"---\ndescription: {description}\nargument-hint: Optional topic\n---\n\n{body}",
    )


def skill(folder: Path, dirname: str, frontmatter: str, body: str = "Follow these steps.\n") -> Path:
    return write(folder / "skills" / dirname / "SKILL.md", f"---\n{frontmatter.strip()}\n---\n\n{body}")


def hooks(folder: Path, events: dict[str, Any]) -> Path:
    return write(folder / "hooks" / "hooks.json", json.dumps({"hooks": events}, indent=2))


def feature_dev(root: Path) -> Path:
    """A plugin shaped like the official ``feature-dev``: a manifest with an author object, one command and an
    agent whose ``tools`` is a YAML list of Claude Code's own tools, ``model: sonnet`` and a ``color``."""
    folder = root / "feature-dev"
    manifest(
        folder,
        "feature-dev",
        version="1.0.0",
        description="A guided workflow for building a feature, with agents that explore and review",
        author={"name": "Test Author", "email": "author@example.com"},
    )
    agent(
        folder,
        "code-explorer",
        "name: code-explorer\n"
        "description: Traces how an existing feature works, from its entry points to its storage\n"
        "tools:\n  - Glob\n  - Grep\n  - Read\n  - WebFetch\n"
        "model: sonnet\n"
        "color: yellow",
    )
    command(folder, "feature-dev", "Guided feature development")
    return folder


__all__ = ["agent", "command", "feature_dev", "hooks", "manifest", "skill", "write"]
