"""Agent files written back: the text reads back as the same definition, a broken file or another agent's file
is never overwritten, a renamed agent leaves no old file behind, and a reload puts new agents in force."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop_app.runtime.agents import AgentCatalog, AgentFileError, parse_agent_file
from desktop_app.runtime.agents.files import agent_markdown, reload_agents, save_agent_file
from desktop_app.runtime.settings import AgentSettings, ProviderSettings
from tests.unit.runtime.agents.test_agents import build

FULL = AgentSettings(
    name="researcher", description="Finds: things, and # more", instructions="Line one.\n\n---\nLine two.",
    provider=ProviderSettings(base_url="http://127.0.0.1:1/v1", model="p"), model="small",
    servers=["switchboard.history", "time"], tools=["time/*"], agents=["*"], approval="never",
)  # fmt: skip


def test_every_field_round_trips_and_the_body_is_the_instructions(tmp_path: Path) -> None:
    path = save_agent_file(tmp_path, FULL)
    assert path == tmp_path / "researcher.md" and parse_agent_file(path) == FULL
    text = path.read_text(encoding="utf-8")
    assert text.startswith("---\ndescription:") and text.endswith("Line one.\n\n---\nLine two.\n")
    assert agent_markdown(AgentSettings(name="bare")) == "---\n---\n\n"
    assert parse_agent_file(save_agent_file(tmp_path, AgentSettings(name="bare"))) == AgentSettings(name="bare")


def test_a_broken_or_taken_file_is_never_overwritten_and_a_rename_moves_the_file(tmp_path: Path) -> None:
    broken = tmp_path / "broken.md"
    broken.write_text("---\ncolour: blue\n---\n", encoding="utf-8")
    with pytest.raises(AgentFileError, match=r"broken\.md:2: colour"):
        save_agent_file(tmp_path, AgentSettings(name="broken", instructions="new"))
    assert broken.read_text(encoding="utf-8") == "---\ncolour: blue\n---\n"
    other = save_agent_file(tmp_path, AgentSettings(name="writer", instructions="Write."))
    with pytest.raises(AgentFileError, match="defined there already"):
        save_agent_file(tmp_path, AgentSettings(name="writer", instructions="Another writer."))
    assert parse_agent_file(other).instructions == "Write."
    moved = save_agent_file(tmp_path, AgentSettings(name="author", instructions="Write."), previous=other)
    assert moved == tmp_path / "author.md" and not other.exists()


@pytest.mark.asyncio
async def test_a_reload_puts_a_new_agent_in_force_and_serves_its_tool(tmp_path: Path) -> None:
    runtime, _provider, _seen = build([], [])
    try:
        catalog = runtime.agents
        assert catalog is not None and catalog.names() == ["assistant"]
        save_agent_file(tmp_path / "agents", AgentSettings(name="helper", description="Helps"))
        assert reload_agents(runtime, runtime.host, tmp_path) == []
        assert runtime.agents is catalog and catalog.names() == ["assistant", "helper"]  # updated in place
        await runtime.host.ensure_builtins()  # type: ignore[union-attr]
        assert runtime.host.lookup("chat-with-helper") is not None  # type: ignore[union-attr]
        assert isinstance(AgentCatalog.load(runtime.settings, tmp_path).get("helper"), AgentSettings)
    finally:
        await runtime.aclose()
