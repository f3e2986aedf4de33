"""A skill added while the app runs: ``switchboard.skills`` is registered and the index block appears for the
next conversation, with no restart (the real assembly, Host and Runtime)."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

from desktop_app.assembly import assemble
from desktop_app.paths import app_paths
from desktop_app.runtime.messages import SystemMessage
from desktop_app.runtime.skills.server import SERVER_NAME

EXAMPLE = Path(__file__).resolve().parents[4] / "docs" / "examples" / "skills" / "release-notes"


def _system(built, conversation_id: str) -> str:
    first = built.runtime.conversation(conversation_id).messages[:1]
    return first[0].content if first and isinstance(first[0], SystemMessage) else ""


def test_a_skill_added_later_registers_the_skills_server(tmp_path: Path) -> None:
    paths = app_paths(tmp_path / "sb").ensure()
    built = assemble(paths, strict=True, persist=False)
    try:
        assert SERVER_NAME not in built.host.states()  # no skills yet: no server, no index, no tool schemas
        before = built.runtime.new_conversation()
        assert "Available skills" not in _system(built, before)

        shutil.copytree(EXAMPLE, paths.config_dir / "skills" / "release-notes")  # the user adds one
        after = built.runtime.new_conversation()
        assert SERVER_NAME in built.host.states() and built.host.states()[SERVER_NAME].builtin
        assert "Available skills:\n- release-notes: Write release notes" in _system(built, after)
        assert "Available skills" not in _system(built, before)  # a started conversation keeps its prompt

        async def load() -> str:
            await built.host.ensure_builtins()
            assert "load_skill" in [t.tool for t in built.host.tools() if t.server == SERVER_NAME]
            result = await built.host.call(SERVER_NAME, "load_skill", {"name": "release-notes"})
            return str(result)

        assert "# Writing release notes" in asyncio.run(load())
        built.runtime.new_conversation()  # discovering again never registers twice
    finally:
        asyncio.run(built.aclose())


def test_a_folder_added_in_settings_later_is_read(tmp_path: Path) -> None:
    paths = app_paths(tmp_path / "sb").ensure()
    built = assemble(paths, strict=True, persist=False)
    try:
        extra = tmp_path / "my-skills"
        shutil.copytree(EXAMPLE, extra / "release-notes")
        assert "Available skills" not in _system(built, built.runtime.new_conversation())
        settings = built.runtime.settings.model_copy(update={"skills_folders": [str(extra)]})
        built.runtime.update_settings(settings)
        assert "- release-notes:" in _system(built, built.runtime.new_conversation())
        assert SERVER_NAME in built.host.states()
    finally:
        asyncio.run(built.aclose())
