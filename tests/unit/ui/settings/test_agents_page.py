"""Settings → Agents: the agents from agents/*.md, the settings and the built-in default; New agent… and
Edit… in the generated editor; saving writes agents/<name>.md atomically (or the settings for an agent defined
there) and puts the agents in force at once; a broken file is listed with its path and line, never written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QTreeWidget

from desktop_app.assembly import assemble
from desktop_app.runtime.agents import parse_agent_file
from desktop_app.runtime.settings import AgentSettings, ProviderSettings, Settings, save_settings
from desktop_app.ui.settings.window import SettingsWindow
from tests.unit.ui.chat.test_subagent_nesting import make_home

BROKEN = "---\ndescription: half done\ncolour: blue\n---\nBody.\n"


def rows(tree: QTreeWidget) -> dict[str, list[str]]:
    items = (tree.topLevelItem(i) for i in range(tree.topLevelItemCount()))
    return {item.text(0): [item.toolTip(2), item.text(1)] for item in items}  # where (in full), description


def select(tree: QTreeWidget, label: str) -> None:
    item = next(tree.topLevelItem(i) for i in range(tree.topLevelItemCount()) if tree.topLevelItem(i).text(0) == label)
    tree.setCurrentItem(item)


@pytest.mark.integration
def test_agents_are_listed_created_and_edited_and_a_broken_file_is_never_written(qtbot, qloop, tmp_path):
    paths = make_home(tmp_path, "http://127.0.0.1:9/v1")
    folder = paths.config_dir / "agents"
    (folder / "broken.md").write_text(BROKEN, encoding="utf-8")
    settings = Settings.model_validate(json.loads(paths.settings_file.read_text()))
    writer = AgentSettings(name="writer", description="Writes it up", instructions="Write.")
    vision = ProviderSettings(base_url="http://127.0.0.1:8/v1", model="eyes", dialect="openai")
    save_settings(paths.settings_file, settings.model_copy(update={"agents": [writer], "vision_provider": vision}))
    assembly = assemble(paths, strict=True, persist=False)
    runtime, host = assembly.runtime, assembly.host
    window = SettingsWindow(runtime, host=host)
    qtbot.addWidget(window)
    try:
        page = window.show_page("agents")
        extra = page.findChild(QTreeWidget, "agentsList").parent()
        tree = extra.tree
        listed = rows(tree)
        assert set(listed) == {"assistant (default)", "researcher", "writer"}
        assert listed["researcher"][0] == str(folder / "researcher.md")
        assert listed["writer"][0].startswith("the settings file")
        assert listed["assistant (default)"][0].startswith("Built in")
        problems = page.findChild(QLabel, "agentProblems").text()
        assert f"{folder / 'broken.md'}:3" in problems and "colour" in problems  # path and line
        select(tree, "assistant (default)")
        assert not extra.edit_button.isEnabled()  # nothing to edit: the built-in one

        # New agent… with every field.
        qtbot.mouseClick(extra.new_button, Qt.MouseButton.LeftButton)
        editor = extra.editor
        editor.form.editors["name"].widget.setText("planner")
        editor.form.editors["description"].widget.setText("Plans the work")
        editor.form.editors["instructions"].widget.setPlainText("Plan it in steps.")
        editor.form.editors["model"].widget.setText("plan-model")
        editor.servers.every.setChecked(False)
        editor.servers.check("switchboard.history")
        editor.every_tool.setChecked(False)
        editor.tools.setPlainText("switchboard.history/*\nsearch_*")
        editor.agents.every.setChecked(False)
        editor.agents.check("researcher")
        editor.approval.setCurrentIndex(editor.approval.findData("ask"))
        assert editor.provider.currentData() is None  # the default provider, unless another is chosen
        choices = [editor.provider.itemText(i) for i in range(editor.provider.count())]
        assert choices == ["The default provider (test-model)", "The vision provider: eyes at http://127.0.0.1:8/v1"]
        editor.provider.setCurrentIndex(1)
        editor.buttons.button(editor.buttons.StandardButton.Save).click()
        assert editor.result_agent is not None, editor.problem.text()
        saved = parse_agent_file(folder / "planner.md")
        assert saved == AgentSettings(
            name="planner", description="Plans the work", instructions="Plan it in steps.", model="plan-model",
            provider=vision,
            servers=["switchboard.history"], tools=["switchboard.history/*", "search_*"], agents=["researcher"],
            approval="ask",
        )  # fmt: skip
        assert not [p for p in folder.iterdir() if p.name.startswith(".")]  # the temporary file is gone
        assert runtime.agents.get("planner") == saved  # in force at once
        assert runtime.agents.may_call("planner", "researcher") and not runtime.agents.may_call("planner", "writer")
        assert "switchboard.agent.planner" in host.states()  # its chat-with-planner server is served
        assert "planner" in rows(tree)

        # A new agent cannot take a broken file's name; the file stays byte for byte.
        qtbot.mouseClick(extra.new_button, Qt.MouseButton.LeftButton)
        editor = extra.editor
        editor.form.editors["name"].widget.setText("broken")
        editor.buttons.button(editor.buttons.StandardButton.Save).click()
        assert editor.result_agent is None and "broken.md" in editor.problem.text()
        assert (folder / "broken.md").read_text(encoding="utf-8") == BROKEN
        editor.form.editors["name"].widget.setText("bad name!")
        editor.buttons.button(editor.buttons.StandardButton.Save).click()
        assert editor.result_agent is None and editor.form.errors["name"].isVisibleTo(editor)
        assert not (folder / "bad name!.md").exists()
        editor.reject()

        # Edit… a file agent: its file is rewritten; a settings agent: the settings file, no new file.
        select(tree, "researcher")
        qtbot.mouseClick(extra.edit_button, Qt.MouseButton.LeftButton)
        editor = extra.editor
        assert editor.servers.value() == ["switchboard.history", "time"]
        editor.form.editors["description"].widget.setText("Digs through the history")
        editor.buttons.button(editor.buttons.StandardButton.Save).click()
        assert editor.result_agent is not None, editor.problem.text()
        researcher = parse_agent_file(folder / "researcher.md")
        assert researcher.description == "Digs through the history"
        assert researcher.instructions == "You are the researcher. Answer briefly."
        assert researcher.tools == ["switchboard.history/*", "time/*"]
        assert runtime.agents.agents["researcher"].description == "Digs through the history"
        select(tree, "writer")
        qtbot.mouseClick(extra.edit_button, Qt.MouseButton.LeftButton)
        editor = extra.editor
        editor.form.editors["instructions"].widget.setPlainText("Write clearly.")
        editor.buttons.button(editor.buttons.StandardButton.Save).click()
        assert editor.result_agent is not None, editor.problem.text()
        stored = json.loads(Path(paths.settings_file).read_text())["agents"]
        assert [(a["name"], a["instructions"]) for a in stored] == [("writer", "Write clearly.")]
        assert not (folder / "writer.md").exists()
        assert runtime.agents.agents["writer"].instructions == "Write clearly."
    finally:
        closing = qloop.create_task(assembly.aclose())
        qtbot.waitUntil(closing.done, timeout=5000)
