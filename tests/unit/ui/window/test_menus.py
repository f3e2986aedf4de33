"""The main window's menu bar reads File, Edit, View, Agent, Settings, Help: Help stays last after the
runtime brings the Agent menu (the real ``MainWindow`` and ``Runtime``)."""

from __future__ import annotations

from desktop_app.runtime.settings import AgentSettings
from desktop_app.ui.window.main_window import MainWindow
from tests.support.fakes import answer
from tests.unit.runtime.agents.test_agents import build


def _titles(window: MainWindow) -> list[str]:
    return [a.text().replace("&", "") for a in window.menuBar().actions()]


def test_help_is_the_last_menu_once_the_runtime_is_in(qtbot, qloop):
    window = MainWindow(defer_rest=True)  # as the app builds it: the rest after the first paint
    qtbot.addWidget(window)
    window.build_rest()
    assert _titles(window) == ["File", "Edit", "View", "Settings", "Help"]
    agents = [AgentSettings(name="narrow", description="Only pings", instructions="Be narrow.", tools=["ping"])]
    runtime, _provider, _seen = build(agents, [answer("hi")])
    window.attach_runtime(runtime)
    assert _titles(window) == ["File", "Edit", "View", "Agent", "Settings", "Help"]
