"""The Tasks page and its form (pytest-qt): New… with a schedule read back in words, a refused cron shown under
the form (which stays open), the enable check box, Run now (skipped while running), Delete, the history."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt

from desktop_app.runtime.store import Store
from desktop_app.runtime.tasks import Task, Tasks
from desktop_app.ui.tasks.editor import TaskEditor
from desktop_app.ui.tasks.page import TasksPage
from tests.unit.runtime.tasks.conftest import FakeClock, GateRuntime, at


@pytest.fixture
def tasks(tmp_path: Path) -> Any:
    clock = FakeClock(at("2026-03-01 12:00"))
    store = Store.open(tmp_path / "s.db", clock=clock.now)
    yield Tasks(GateRuntime(), store, clock=clock)
    store.close()


def test_new_edit_enable_run_delete(qtbot: Any, qloop: Any, tasks: Tasks) -> None:
    editors: list[TaskEditor] = []
    opened: list[str] = []

    def edit(task: Task | None) -> TaskEditor:
        def save(fields: dict[str, Any]) -> object:
            return tasks.create(**fields) if task is None else tasks.update(task.id, **fields)

        editor = TaskEditor(save, "Europe/Paris", page, task)
        editor.accepted.connect(page.refresh)
        editors.append(editor)
        return editor

    page = TasksPage(tasks, opened.append, edit)
    qtbot.addWidget(page)
    assert "No tasks yet" in page.notice.text()
    qtbot.mouseClick(page.new_button, Qt.MouseButton.LeftButton)
    form = editors[-1]
    form.name.setText("Inbox")
    form.prompt.setPlainText("Summarise my inbox")
    form.schedule.setText("*/5 * * * *")
    assert "must be a single number" in form.words.text()
    form.submit()
    assert form.error.isVisibleTo(form) and "'M H * * *' (every day)" in form.error.text()
    assert form.result() == 0 and tasks.all() == []  # refused: the form stays open
    form.schedule.setText("0 9 * * 1-5")
    assert form.words.text() == "Every weekday at 09:00, Europe/Paris"
    form.submit()
    assert form.result() == 1
    row = page.table.topLevelItem(0)
    assert row is not None and [row.text(c) for c in range(3)] == [
        "Inbox",
        "Every weekday at 09:00, Europe/Paris",
        "2026-03-02 09:00",
    ]
    row.setCheckState(0, Qt.CheckState.Unchecked)  # disable
    assert not tasks.find("Inbox").enabled
    qtbot.waitUntil(lambda: page.table.topLevelItem(0).text(2) == "disabled")  # type: ignore[union-attr]
    page.table.topLevelItem(0).setCheckState(0, Qt.CheckState.Checked)  # type: ignore[union-attr]
    assert tasks.find("Inbox").enabled
    qtbot.waitUntil(lambda: page.table.topLevelItem(0).text(2) == "2026-03-02 09:00")  # type: ignore[union-attr]

    qtbot.mouseClick(page.run_button, Qt.MouseButton.LeftButton)  # starts in the background
    qtbot.mouseClick(page.run_button, Qt.MouseButton.LeftButton)  # still running: skipped, said
    assert page.error.text() == "It is still running; it was not started again."
    assert [page.history.item(i).text().split("  ", 1)[1] for i in range(page.history.count())] == [
        "skipped: still running",
        "running…",
    ]
    page.history.itemDoubleClicked.emit(page.history.item(1))
    assert opened == ["c1"]

    qtbot.mouseClick(page.edit_button, Qt.MouseButton.LeftButton)
    form = editors[-1]
    assert (form.name.text(), form.schedule.text(), form.zone.text()) == ("Inbox", "0 9 * * 1-5", "Europe/Paris")
    form.schedule.setText("0 8 1 * *")
    form.submit()
    assert page.table.topLevelItem(0).text(1) == "Monthly on the 1st at 08:00, Europe/Paris"  # type: ignore[union-attr]

    tasks.runner.runtime.finish("c1")  # type: ignore[attr-defined]
    qtbot.waitUntil(lambda: not tasks.runner.active())
    qtbot.mouseClick(page.delete_button, Qt.MouseButton.LeftButton)
    assert tasks.all() == [] and page.table.topLevelItemCount() == 0
