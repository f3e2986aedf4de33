"""The skills index block for the system prompt: capped and deterministic (seed-behaviours §1.8).

``Available skills:``, then one line per skill in name order, ``- name: description When: when``, each clipped
to 180 characters with ``...``. The block is capped at 2000 characters: past the cap a skill gets a name-only
line, then is left out, and ``- ... N more skills omitted from this compact index`` ends the list. Fixed
guidance about ``load_skill`` follows. The same skills always give the same text (no times, no paths), so the
prompt cache holds.
"""

from __future__ import annotations

from collections.abc import Iterable

from desktop_app.runtime.skills.discovery import Skill

LINE_LIMIT = 180
BLOCK_LIMIT = 2000
HEADER = "Available skills:"
GUIDANCE = (
    "A skill is a set of instructions for a kind of task. When a task matches a skill, call load_skill with its "
    "name to read it before you start; do not guess its contents."
)


def _clip(line: str) -> str:
    return line if len(line) <= LINE_LIMIT else line[: LINE_LIMIT - 3] + "..."


def index_block(skills: Iterable[Skill]) -> str:
    """The index text, or ``""`` when there are no skills."""
    ordered = sorted(skills, key=lambda s: s.name.lower())
    if not ordered:
        return ""
    lines = [HEADER]
    used = len(HEADER)
    omitted = 0
    reserve = len("\n- ... 9999 more skills omitted from this compact index")
    for skill in ordered:
        full = f"- {skill.name}: {skill.description}" + (f" When: {skill.when}" if skill.when else "")
        for candidate in (_clip(full), _clip(f"- {skill.name}")):
            if omitted == 0 and used + 1 + len(candidate) + reserve <= BLOCK_LIMIT:
                lines.append(candidate)
                used += 1 + len(candidate)
                break
        else:
            omitted += 1
    if omitted:
        lines.append(f"- ... {omitted} more skills omitted from this compact index")
    return "\n".join(lines) + "\n\n" + GUIDANCE


__all__ = ["BLOCK_LIMIT", "GUIDANCE", "HEADER", "LINE_LIMIT", "index_block"]
