"""Tasks in the real window (pytest-qt, offscreen; real MainWindow, DesktopShell, Runtime and Store, the loopback
model): a task due in ~2 s fires on the scheduler's own timer, the tray's notification carries the answer's first
line and opens the conversation, which holds the answer; the Tasks page lists it with its schedule in words and
history; an approval in a background run waits ("waiting for you", the tray menu lists the run) and is answered
from the window."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt

from desktop_app.runtime.providers.openai import OpenAIProvider
from desktop_app.runtime.run.approvals import ApprovalPolicy
from desktop_app.runtime.service import Runtime
from desktop_app.runtime.settings import ProviderSettings, Settings
from desktop_app.runtime.store import Store, attach_store
from desktop_app.runtime.tasks import Tasks
from desktop_app.runtime.tasks.scheduler import SystemClock
from desktop_app.ui.tasks import install_tasks
from desktop_app.ui.tray.desktop import DesktopShell
from desktop_app.ui.window.main_window import MainWindow
from tests.support.fakes import FakeHost, only_card
from tests.support.llm_server import ScriptedLLMServer, text_reply, tool_call_reply

RESOURCES = Path(__file__).resolve().parents[4] / "desktop_app" / "resources"


class Session:
    def __init__(self, qtbot: Any, tmp_path: Path, url: str, clock: SystemClock) -> None:
        settings = Settings(provider=ProviderSettings(base_url=url, model="test-model"))

        def factory(s: ProviderSettings, key: str | None) -> OpenAIProvider:
            return OpenAIProvider(base_url=s.base_url, api_key=key, dialect="openai", sleep=self.runtime.sleeper.sleep)

        self.host = FakeHost({"send_mail": lambda a: "sent"})
        self.runtime = Runtime(
            settings=settings,
            host=self.host,
            api_key_override="k",
            provider_factory=factory,
            policy=ApprovalPolicy("ask"),
        )
        self.store = Store.open(tmp_path / "store.db")
        self.recorder = attach_store(self.runtime, self.store)
        self.tasks = Tasks(self.runtime, self.store, clock=clock)
        self.window = MainWindow()
        qtbot.addWidget(self.window)
        self.window.attach_runtime(self.runtime)
        self.window.attach_store(self.store)
        self.shell = DesktopShell(self.window, RESOURCES, tmp_path, quit_app=lambda: None, tray_available=True)
        self.shell.attach(self.runtime, self.host, self.store, self.recorder)
        self.ui = install_tasks(self.window, self.tasks, shell=self.shell, recorder=self.recorder)
        self.window.show()
        qtbot.waitExposed(self.window)

    def close(self, qtbot: Any, qloop: Any) -> None:
        task = qloop.create_task(self.tasks.aclose())
        qtbot.waitUntil(task.done)
        task = qloop.create_task(self.runtime.aclose())
        qtbot.waitUntil(task.done)
        self.recorder.close()
        self.store.close()


def two_seconds_ahead() -> tuple[SystemClock, datetime]:
    """A clock shifted so that a whole minute comes in two seconds (cron times are whole minutes)."""
    now = time.time()
    boundary = (int(now // 60) + 2) * 60
    return SystemClock(boundary - 2 - now), datetime.fromtimestamp(boundary, UTC)


@pytest.mark.integration
def test_a_due_task_fires_notifies_and_its_conversation_holds_the_answer(
    qtbot: Any, qloop: Any, llm_server: ScriptedLLMServer, tmp_path: Path
) -> None:
    clock, fire = two_seconds_ahead()
    session = Session(qtbot, tmp_path, llm_server.url, clock)
    try:
        llm_server.enqueue(text_reply("Two meetings today.\nThe first at ten."))
        task = session.tasks.create(
            name="Morning", prompt="Summarise my day", schedule=f"{fire.minute} {fire.hour} * * *"
        )
        page = session.ui.open_page()
        row = page.table.topLevelItem(0)
        assert row is not None and row.text(1) == f"Every day at {fire.hour:02d}:{fire.minute:02d}, UTC"
        assert row.text(3) == "never run"
        session.tasks.start()
        session.window.hide()  # closed to the tray: it still runs
        qtbot.waitUntil(lambda: bool(session.ui.notifications), timeout=20_000)  # the scheduler's own timer
        [(cid, title, text)] = session.ui.notifications
        assert (title, text) == ("Task finished: Morning", "Two meetings today.")
        assert session.shell.tray.last_notification == (cid, title, text)  # the tray's showMessage
        assert session.shell.notified == []  # not announced twice (the generic "finished" one)
        [run] = session.tasks.history(task.id)
        assert (run.trigger, run.status, run.conversation_id) == ("schedule", "finished", cid)
        qtbot.waitUntil(lambda: page.table.topLevelItem(0).text(3).endswith("finished: Two meetings today."))
        assert page.history.count() == 1
        session.shell.tray.notification_clicked.emit(cid)  # what clicking the notification does
        assert session.window.isVisible() and session.window.controller.conversation_id == cid
        texts = [str(getattr(b, "text", "")) for b in session.window.view.blocks()]
        assert any("The first at ten." in t for t in texts), texts
    finally:
        session.close(qtbot, qloop)


@pytest.mark.integration
def test_an_approval_in_a_background_run_waits_and_is_answered_from_the_window(
    qtbot: Any, qloop: Any, llm_server: ScriptedLLMServer, tmp_path: Path
) -> None:
    session = Session(qtbot, tmp_path, llm_server.url, SystemClock())
    try:
        llm_server.enqueue(tool_call_reply([("m1", "mcp__fake__send_mail", {"to": "ana"})]), text_reply("Mail sent."))
        session.window.hide()
        task = session.tasks.create(name="Mail", prompt="Send the report")  # "now": runs in the background at once
        qtbot.waitUntil(lambda: session.tasks.history(task.id)[0].status == "waiting", timeout=15_000)
        assert session.tasks.history(task.id)[0].note == "waiting for you: approve fake / send_mail"
        menu = session.ui.tray_menu
        assert menu is not None and menu.menuAction().isVisible()
        assert [a.text() for a in menu.actions()] == ["Mail — waiting for you"]
        assert session.shell.tray.state == "approval"  # the tray is badged
        assert session.host.log == []  # it never approves by itself
        menu.actions()[0].trigger()  # open the run from the tray
        assert session.window.isVisible()
        qtbot.waitUntil(lambda: only_card(session.window.view) is not None and only_card(session.window.view).pending)
        card = only_card(session.window.view)
        qtbot.mouseClick(card.approve_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: bool(session.ui.notifications), timeout=15_000)
        [(_cid, title, text)] = session.ui.notifications
        assert (title, text) == ("Task finished: Mail", "Mail sent.")
        assert session.host.log == [("fake", "send_mail", {"to": "ana"})]
        assert not menu.menuAction().isVisible()
    finally:
        session.close(qtbot, qloop)
