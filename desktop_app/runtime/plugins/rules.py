"""Whale plugin rules: the ``rules/*.md`` of each enabled Whale plugin, in a new conversation's system prompt.

Whale injects a plugin's rules into every session's startup context (its plugins guide: "Rules under
``rules/`` are injected into every session's startup context"). Here they are one of ``Runtime.system_blocks``:
each rule file (read inside the plugin, at most :data:`MAX_RULE_BYTES`) in a ``<plugin-rules>`` element naming
its plugin and file, so the model knows where it comes from. A conversation already started keeps its prompt.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from desktop_app.runtime.plugins.model import WHALE_MANIFEST, PluginError, read_inside

MAX_RULE_BYTES = 32 * 1024
log = logging.getLogger(__name__)


def rule_files(folder: Path) -> list[Path]:
    """A Whale plugin's rule files, in name order (none for a Claude Code plugin)."""
    if not (folder / WHALE_MANIFEST).is_file():
        return []
    return sorted((folder / "rules").glob("*.md"))


def rules_block(data_dir: Path, records: dict[str, dict[str, Any]]) -> str:
    """The enabled Whale plugins' rules for the system prompt ("" when there are none)."""
    from desktop_app.runtime.plugins.manage import FILES_DIR

    parts = []
    for plugin_id, record in sorted(records.items()):
        if not record.get("enabled"):
            continue
        folder = data_dir / FILES_DIR / plugin_id
        for path in rule_files(folder):
            try:
                text = read_inside(folder, path, limit=MAX_RULE_BYTES).strip()
            except (OSError, PluginError) as exc:
                log.warning("plugin %s: rule %s not used: %s", plugin_id, path.name, exc)
                continue
            if text:
                parts.append(f'<plugin-rules plugin="{plugin_id}" file="rules/{path.name}">\n{text}\n</plugin-rules>')
    return "\n\n".join(parts)


__all__ = ["MAX_RULE_BYTES", "rule_files", "rules_block"]
