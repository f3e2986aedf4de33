"""Issue 21 item 17: ``"trust": true`` on a server grants nothing, and ``switchboard ask`` says so instead of
letting the README's old promise mislead (its tool calls are approved like any other's)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from desktop_app.assembly import assemble
from desktop_app.paths import app_paths


def test_the_trust_field_is_reported_as_ignored(tmp_path: Path) -> None:
    paths = app_paths(tmp_path / "home").ensure()
    paths.mcp_config_file.write_text(json.dumps({"mcpServers": {"t": {"command": "srv", "trust": True}}}))
    built = assemble(paths, strict=False, persist=False)
    try:
        [problem] = [p for p in built.problems if ".trust" in p]
        assert "mcpServers.t.trust: not supported, ignored" in problem
    finally:
        asyncio.run(built.aclose())
