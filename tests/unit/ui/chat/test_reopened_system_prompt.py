"""A conversation reopened in the window (a restart: a new assembly on the same home) sends its first turn's
system prompt byte for byte, the skills index included (the real assembly, Runtime, store and MainWindow; the
loopback SSE server records the requests). Also one stored with no agent name (before conversations recorded
their agent, the schema's default ''), which used to go on with the settings' prompt alone."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from desktop_app.assembly import assemble
from desktop_app.paths import app_paths
from desktop_app.runtime.run.approvals import ApprovalPolicy
from desktop_app.runtime.settings import ProviderSettings, Settings, save_settings
from desktop_app.runtime.store import store_path
from desktop_app.ui.window.main_window import MainWindow
from tests.support.llm_server import ScriptedLLMServer, text_reply
from tests.unit.ui.chat.test_replay import _wait

SKILL = Path(__file__).resolve().parents[4] / "docs" / "examples" / "skills" / "release-notes"


def _session(qtbot, home: Path):
    built = assemble(app_paths(home).ensure(), strict=True, policy=ApprovalPolicy("always"))
    win = MainWindow()
    qtbot.addWidget(win)
    win.attach_runtime(built.runtime)
    assert built.store is not None
    win.attach_store(built.store)
    win.show()
    qtbot.waitExposed(win)
    return built, win


def _send(qtbot, win: MainWindow, text: str) -> None:
    win.composer.edit.setPlainText(text)
    win.composer.button.click()
    qtbot.waitUntil(lambda: win.controller.busy, timeout=5000)
    qtbot.waitUntil(lambda: not win.controller.busy, timeout=10000)


@pytest.mark.parametrize("stored_agent", [True, False], ids=["agent-stored", "no-agent-stored"])
def test_a_reopened_conversation_sends_the_same_system_prompt_with_the_skills_index(
    qtbot, qloop, tmp_path: Path, llm_server: ScriptedLLMServer, stored_agent: bool
) -> None:
    home = tmp_path / "home"
    paths = app_paths(home).ensure()
    shutil.copytree(SKILL, paths.config_dir / "skills" / "release-notes")
    settings = Settings(provider=ProviderSettings(base_url=llm_server.url, model="m"), system_prompt="You are terse.")
    save_settings(paths.settings_file, settings)
    llm_server.enqueue(text_reply("First."), text_reply("Second."))

    built, win = _session(qtbot, home)
    try:
        _send(qtbot, win, "Notes?")
        conversation = win.controller.conversation_id
    finally:
        win.close()
        _wait(qtbot, qloop, built.aclose())
    if not stored_agent:
        with sqlite3.connect(store_path(paths)) as db:
            db.execute("UPDATE conversations SET agent = ''")

    built, win = _session(qtbot, home)  # the restart: the conversation comes from the store
    try:
        win.open_conversation(conversation)
        _send(qtbot, win, "More notes?")
    finally:
        win.close()
        _wait(qtbot, qloop, built.aclose())

    first, second = (r.json["messages"] for r in llm_server.requests)
    assert first[0]["role"] == "system" and first[0]["content"].startswith("You are terse.\n\n")
    assert "Available skills:\n- release-notes: Write release notes" in first[0]["content"]
    assert json.dumps(second[0]) == json.dumps(first[0])
    assert json.dumps(second[: len(first)]) == json.dumps(first)  # the first request is the second's prefix
