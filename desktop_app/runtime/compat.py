"""One line of a compatibility report, shared by every report that says what carries over from another app.

An imported config (:mod:`desktop_app.runtime.host.import_compat`), a plugin
(:mod:`desktop_app.runtime.plugins.report`) and a bundle each report their parts as :class:`CompatLine`: the part
**works** as in its source app, it was **translated** (and how), or it is **not available** here (and why).
This module imports nothing of the app, so any of them can use it without a cycle.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Literal

Status = Literal["works", "translated", "not available"]
WORKS: Status = "works"
TRANSLATED: Status = "translated"
UNAVAILABLE: Status = "not available"


@dataclass(frozen=True)
class CompatLine:
    """One part of the source and what becomes of it here. ``server`` names the entry the part belongs to (a
    server of an import, a plugin's component such as ``commands/deploy.md``); empty for a file-level part."""

    server: str
    part: str
    status: Status
    detail: str

    def text(self) -> str:
        where = f"{self.server}: " if self.server else ""
        return f"[{self.status}] {where}{self.part} — {self.detail}"

    def as_dict(self) -> dict[str, str]:
        return asdict(self)


def support_rows(table: dict[str, list[tuple[str, Status, str]]]) -> str:
    """A user-guide table (Source | Part | Here) of what each source format supports."""
    rows = ["| Source | Part | Here |", "|---|---|---|"]
    for source, parts in table.items():
        for part, status, detail in parts:
            rows.append(f"| {source} | {part.replace('|', '/')} | {status}: {detail} |")
    return "\n".join(rows) + "\n"


__all__ = ["TRANSLATED", "UNAVAILABLE", "WORKS", "CompatLine", "Status", "support_rows"]
