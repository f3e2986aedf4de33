"""Skills: folders holding a ``SKILL.md`` (Whale, Claude and the Agent Skills convention share the shape).

* :mod:`.discovery` — finding and validating skills in their roots (first name wins), and what each requires;
* :mod:`.index` — the capped, deterministic index block for the system prompt;
* :mod:`.server` — the built-in ``switchboard.skills`` server: ``list_skills`` and ``load_skill`` (reads, never
  executes).
"""

from desktop_app.runtime.skills.discovery import Skill, SkillSet, discover, skill_roots
from desktop_app.runtime.skills.index import index_block

__all__ = ["Skill", "SkillSet", "discover", "index_block", "skill_roots"]
