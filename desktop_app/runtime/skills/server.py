"""The built-in ``switchboard.skills`` server: ``list_skills`` and ``load_skill``, both read-only.

``load_skill`` returns a skill's ``SKILL.md`` instructions and the list of the other files in its folder. It
never runs anything: scripts a skill mentions are the model's to run through other tools, with approval.
Skills are discovered again on each call, so an edit shows without a restart.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import mcp_types as mtypes
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from desktop_app.runtime.in_process import in_process_server
from desktop_app.runtime.skills.discovery import SERVER_NAME, SKILL_FILE, SkillSet, read_skill_text, split_frontmatter

READ_ONLY = mtypes.ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True)
MAX_LISTED_FILES = 200


def load_text(skills: SkillSet, name: str) -> str:
    skill = skills.skills.get(name) or next((s for s in skills.skills.values() if s.name.lower() == name.lower()), None)
    if skill is None:
        known = ", ".join(s.name for s in skills.sorted()) or "none"
        raise ToolError(f"There is no skill named {name!r}. Skills: {known}.")
    _meta, body = split_frontmatter(read_skill_text(skill.file))
    files = sorted(
        str(p.relative_to(skill.folder)) for p in skill.folder.rglob("*") if p.is_file() and p.name != SKILL_FILE
    )
    listing = "\n".join(f"- {f}" for f in files[:MAX_LISTED_FILES]) or "(none)"
    if len(files) > MAX_LISTED_FILES:
        listing += f"\n- ... {len(files) - MAX_LISTED_FILES} more"
    return (
        f"Skill {skill.name}: {skill.description}\nFolder: {skill.folder}\n\n{body.strip()}\n\n"
        f"Other files in the skill's folder (read them only when the instructions call for it):\n{listing}"
    )


def make_skills_server(load: Callable[[], SkillSet]) -> MCPServer:
    """A new ``switchboard.skills`` server over the skills ``load()`` finds."""
    from desktop_app import __version__

    server = in_process_server(SERVER_NAME, version=__version__, log_level="WARNING")

    @server.tool(
        description="Load a skill's instructions by name (see 'Available skills' in the system prompt). "
        "Returns its SKILL.md text and the files in its folder; nothing is run.",
        annotations=READ_ONLY,
        structured_output=False,
    )
    async def load_skill(name: str) -> str:
        skills = await asyncio.to_thread(load)
        try:
            return await asyncio.to_thread(load_text, skills, name)
        except OSError as exc:
            raise ToolError(f"The skill {name!r} cannot be read: {exc}") from None

    @server.tool(
        description="List the available skills with their descriptions.", annotations=READ_ONLY, structured_output=False
    )
    async def list_skills() -> str:
        skills = await asyncio.to_thread(load)
        return "\n".join(f"{s.name}: {s.description}" for s in skills.sorted()) or "No skills are installed."

    return server


__all__ = ["SERVER_NAME", "load_text", "make_skills_server"]
