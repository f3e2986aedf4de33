"""Plugin prompts: Claude Code's commands/*.md and Whale's [[prompts]], served as MCP prompts by the built-in
``switchboard.plugins`` once the plugin is enabled (the real assembly and Host), gone once it is disabled."""

from __future__ import annotations

import asyncio
from pathlib import Path

from desktop_app.assembly import assemble
from desktop_app.paths import app_paths
from desktop_app.runtime.plugins import manage
from desktop_app.runtime.plugins.model import read_plugin
from desktop_app.runtime.plugins.prompts import SERVER_NAME, PluginPrompt, read_prompts, refresh

EXAMPLE = Path(__file__).resolve().parents[4] / "docs" / "examples" / "plugins" / "notes-plugin"


def test_commands_and_whale_prompts_are_read(tmp_path: Path) -> None:
    (example,) = read_prompts(read_plugin(EXAMPLE))
    assert (example.name, example.argument_hint) == ("notes-plugin:summarize", "the notes, or what to focus on")
    assert example.description == "Summarise meeting notes into decisions and action items"
    assert example.render("Monday standup").endswith("Monday standup") and "$ARGUMENTS" not in example.render()
    (tmp_path / "whale-plugin.toml").write_text(
        'id = "rev"\npermissions = ["read the workspace"]\n'
        '[[prompts]]\nname = "review"\ndescription = "Review a file"\ntext = "Review $1 for $2."\n'
        '[[prompts]]\nname = "style"\nfile = "style.md"\n'
        '[[prompts]]\nname = "escape"\nfile = "../outside.md"\n'
    )
    (tmp_path / "style.md").write_text("# Apply the house style\nBe brief.\n")
    plugin = read_plugin(tmp_path)
    prompts = {p.command: p for p in read_prompts(plugin)}
    assert sorted(prompts) == ["review", "style"] and plugin.permissions == ["read the workspace"]
    assert prompts["review"].render("app.py bugs") == "Review app.py for bugs."
    assert prompts["style"].description == "Apply the house style"
    assert prompts["style"].render("x") == "# Apply the house style\nBe brief.\n\nx"
    assert any("outside the plugin" in problem for problem in plugin.problems)
    assert PluginPrompt("p", "c", "d", "plain").render("") == "plain"


def test_enabled_plugin_prompts_are_served_and_leave_when_disabled(tmp_path: Path) -> None:
    paths = app_paths(tmp_path / "sb").ensure()
    places = manage.Places(paths.data_dir, paths.settings_file, paths.mcp_config_file)
    manage.install(EXAMPLE, places)
    built = assemble(paths, strict=True, persist=False)
    assert SERVER_NAME not in built.host.states()  # installed, disabled: nothing contributed

    async def scenario() -> None:
        try:
            manage.enable("notes-plugin", places)
            await refresh(built.host, paths.data_dir, paths.settings_file)
            listed = await built.host.list_prompts(SERVER_NAME)
            assert [(p.name, [a.name for a in p.arguments or []]) for p in listed] == [
                ("notes-plugin:summarize", ["arguments"])
            ]
            text = await built.host.get_prompt(SERVER_NAME, "notes-plugin:summarize", {"arguments": "the Q3 plan"})
            assert "List the decisions first" in str(text) and "the Q3 plan" in str(text)
            manage.disable("notes-plugin", places)
            await refresh(built.host, paths.data_dir, paths.settings_file)
            assert await built.host.list_prompts(SERVER_NAME) == []
        finally:
            await built.aclose()

    asyncio.run(scenario())


def test_a_plugin_enabled_before_start_up_has_its_prompts_registered(tmp_path: Path) -> None:
    paths = app_paths(tmp_path / "sb").ensure()
    places = manage.Places(paths.data_dir, paths.settings_file, paths.mcp_config_file)
    manage.install(EXAMPLE, places)
    manage.enable("notes-plugin", places)
    built = assemble(paths, strict=True, persist=False)
    try:
        assert built.host.states()[SERVER_NAME].builtin
    finally:
        asyncio.run(built.aclose())
