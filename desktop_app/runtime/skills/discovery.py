"""Finding skills: each a folder with a ``SKILL.md`` whose YAML frontmatter names and describes it.

Frontmatter (seed-behaviours §1.8): ``name`` (required, at most 64 characters, ``^[a-zA-Z0-9]+(-[a-zA-Z0-9]+)*$``,
equal to the folder's name ignoring case), ``description`` (required, at most 1024 characters), ``when``
(optional), ``requires`` (optional: ``commands``, ``env``, ``mcp``, each a list). A skill without a name or a
description, or with a broken ``when``/``requires``, is skipped with a problem naming its file and the field;
one that breaks only the name or length rules loads with a warning (issue 22: official plugins ship such
skills, and Claude Code loads them), as does a frontmatter Claude Code reads that is not strict YAML.
Roots are read in order: the user's skills folder,
the folders the user added, then, with ``skills_read_external`` on, ``~/.claude/skills`` and
``~/.agents/skills`` (only read, never written). The first occurrence of a name wins; later ones are noted.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from desktop_app.runtime.errors import ConfigError
from desktop_app.runtime.host.jsonfiles import parse_yaml

SERVER_NAME = "switchboard.skills"
"""The lazy built-in server that offers ``load_skill`` (``skills.server``)."""

SKILL_FILE = "SKILL.md"
MAX_NAME = 64
MAX_DESCRIPTION = 1024
MAX_SKILL_BYTES = 512 * 1024
_NAME = re.compile(r"^[a-zA-Z0-9]+(-[a-zA-Z0-9]+)*$")
_FRONTMATTER = re.compile(r"\A---[ \t]*\r?\n(.*?)\r?\n---[ \t]*(?:\r?\n|\Z)(.*)\Z", re.S)
EXTERNAL_ROOTS = ("~/.claude/skills", "~/.agents/skills")


@dataclass(frozen=True)
class Requires:
    """What a skill needs to be offered: commands on the PATH, environment variables, MCP servers."""

    commands: tuple[str, ...] = ()
    env: tuple[str, ...] = ()
    mcp: tuple[str, ...] = ()

    def missing(
        self,
        servers: Iterable[str],
        *,
        which: Callable[[str], str | None] = shutil.which,
        environ: Mapping[str, str] | None = None,
    ) -> list[str]:
        """What is missing, as ``command git``, ``env GITHUB_TOKEN``, ``mcp github``."""
        environ = os.environ if environ is None else environ
        known = set(servers)
        gone = [f"command {c}" for c in self.commands if which(c) is None]
        gone += [f"env {e}" for e in self.env if not environ.get(e)]
        gone += [f"mcp {m}" for m in self.mcp if m not in known]
        return gone


@dataclass(frozen=True)
class Skill:
    """A skill found on disk: its name, description, when to use it, and where it came from."""

    name: str
    description: str
    when: str
    folder: Path
    source: str
    requires: Requires = field(default_factory=Requires)
    read_only: bool = False
    warnings: tuple[str, ...] = ()
    """Rules of the spec it breaks but that do not stop it loading (as in the official plugins that ship such
    skills): a name unlike its folder or outside the name rule, a long name or description, loose YAML."""

    @property
    def file(self) -> Path:
        return self.folder / SKILL_FILE


@dataclass
class SkillSet:
    """The skills found, with what could not be read and what was shadowed by an earlier folder."""

    skills: dict[str, Skill] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    shadowed: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    """The loaded skills' warnings (:attr:`Skill.warnings`), for the Skills page."""

    def sorted(self) -> list[Skill]:
        return [self.skills[name] for name in sorted(self.skills, key=str.lower)]


def read_skill_text(path: Path) -> str:
    """A SKILL.md's text: a regular file (never a FIFO or a device), at most ``MAX_SKILL_BYTES``, UTF-8;
    ``ValueError`` naming the file otherwise."""
    from desktop_app.runtime.files import read_config_text

    try:
        return read_config_text(path, limit=MAX_SKILL_BYTES)
    except ConfigError as exc:
        raise ValueError(f"{path}: {exc.problem}; skipped") from None


def split_frontmatter(text: str, path: Path | None = None) -> tuple[dict[str, Any] | None, str]:
    """``(frontmatter mapping or None, body)``; invalid YAML raises ``ConfigError`` with its line."""
    match = _FRONTMATTER.match(text.removeprefix("\ufeff"))
    if match is None:
        return None, text
    data = parse_yaml(match.group(1), path or Path(SKILL_FILE))
    return (data if isinstance(data, dict) else None), match.group(2)


def _strings(value: Any, where: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    raise ValueError(f"{where}: must be a list of strings")


def parse_skill(folder: Path, source: str, *, read_only: bool = False) -> Skill:
    """Read and validate ``folder/SKILL.md``; ``ValueError`` names the file and the field at fault.

    Without a name or a description a skill is refused. A name or description that breaks the spec's rules
    (the name's pattern and 64 characters, equal to the folder's name; a description of at most 1024) loads
    with a warning, as skills in official plugins break them and load in Claude Code; so does a frontmatter
    that is not strict YAML but that Claude Code reads."""
    from desktop_app.runtime.skills.frontmatter import split_lenient

    path = folder / SKILL_FILE
    text = read_skill_text(path)
    try:
        meta, _body, loose = split_lenient(text, path)
    except ConfigError as exc:
        raise ValueError(f"the frontmatter is not valid YAML: {exc}") from None
    warnings = [loose] if loose else []
    if meta is None:  # Whale reads a SKILL.md without frontmatter: named after its folder, its first line says what
        first = next((ln.strip().lstrip("#").strip() for ln in _body.splitlines() if ln.strip()), "")
        if not first:
            raise ValueError(f"{path}: empty: write what the skill is for (frontmatter name: and description:)")
        meta = {"name": folder.name, "description": first}
        warnings.append(
            f"{path}: no frontmatter (Whale's form): named after its folder {folder.name!r}, described by its first "
            "line; loaded anyway"
        )
    name = meta.get("name")
    if not isinstance(name, str) or not name.strip():
        raise ValueError(f"{path}: name: required")
    name = name.strip()
    if len(name) > MAX_NAME:
        warnings.append(f"{path}: name: longer than {MAX_NAME} characters (the spec's limit); loaded anyway")
    if not _NAME.match(name):
        warnings.append(
            f"{path}: name: {name!r} is not letters and digits in words joined by '-' (the spec's rule); loaded anyway"
        )
    if name.lower() != folder.name.lower():
        warnings.append(
            f"{path}: name: {name!r} differs from the folder name {folder.name!r} (the spec wants them equal); "
            f"loaded as {name!r}"
        )
    description = meta.get("description")
    if not isinstance(description, str) or not description.strip():
        raise ValueError(f"{path}: description: required")
    if len(description) > MAX_DESCRIPTION:
        warnings.append(
            f"{path}: description: {len(description)} characters, longer than the spec's {MAX_DESCRIPTION}; "
            "loaded anyway (the index shows its start)"
        )
    when = meta.get("when") or ""
    if not isinstance(when, str):
        raise ValueError(f"{path}: when: must be text")
    requires_raw = meta.get("requires") or {}
    if not isinstance(requires_raw, dict):
        raise ValueError(f"{path}: requires: must be a mapping of commands, env and mcp")
    requires = Requires(
        _strings(requires_raw.get("commands"), f"{path}: requires.commands"),
        _strings(requires_raw.get("env"), f"{path}: requires.env"),
        _strings(requires_raw.get("mcp"), f"{path}: requires.mcp"),
    )
    when_text, text_description = " ".join(when.split()), " ".join(description.split())
    return Skill(name, text_description, when_text, folder, source, requires, read_only, tuple(warnings))


def skill_roots(user_folder: Path, added: Iterable[str], *, read_external: bool) -> list[tuple[Path, str, bool]]:
    """``(folder, source label, read-only)`` in priority order."""
    roots: list[tuple[Path, str, bool]] = [(user_folder, "your skills folder", False)]
    roots += [(Path(folder).expanduser(), f"added folder {folder}", False) for folder in added]
    if read_external:
        roots += [(Path(root).expanduser(), root, True) for root in EXTERNAL_ROOTS]
    return roots


def discover(roots: Iterable[tuple[Path, str, bool]]) -> SkillSet:
    """Every valid skill in ``roots`` (each root's sub-folders in name order); the first name wins."""
    found = SkillSet()
    for root, source, read_only in roots:
        try:
            folders = sorted(p for p in root.iterdir() if p.is_dir() and (p / SKILL_FILE).is_file())
        except OSError:
            continue
        for folder in folders:
            try:
                skill = parse_skill(folder, source, read_only=read_only)
            except (ValueError, OSError, UnicodeDecodeError) as exc:
                found.problems.append(str(exc))
                continue
            key = skill.name.lower()
            if key in {n.lower() for n in found.skills}:
                found.shadowed.append(f"{skill.file}: the skill {skill.name!r} is already defined earlier; skipped")
                continue
            found.skills[skill.name] = skill
            found.warnings.extend(skill.warnings)
    return found


__all__ = [
    "EXTERNAL_ROOTS",
    "Requires",
    "Skill",
    "SkillSet",
    "discover",
    "parse_skill",
    "skill_roots",
    "split_frontmatter",
]
