"""The Agent menu picks the agent of the current conversation: the next run uses its instructions and tools."""

from __future__ import annotations

from PySide6.QtWidgets import QMainWindow

from desktop_app.runtime.settings import AgentSettings
from desktop_app.ui.chat.controller import ChatController
from desktop_app.ui.window.agent_menu import add_agent_menu
from tests.support.fakes import answer
from tests.unit.runtime.agents.test_agents import build


def test_the_agent_menu_switches_the_conversation_agent(qtbot, qloop):
    agents = [AgentSettings(name="narrow", description="Only pings", instructions="Be narrow.", tools=["ping"])]
    runtime, provider, _seen = build(agents, [answer("hi")])
    window = QMainWindow()
    qtbot.addWidget(window)
    controller = ChatController(runtime)
    statuses: list[str] = []
    menu = add_agent_menu(window, runtime, lambda: controller.conversation_id, statuses.append)
    try:
        assert menu is not None
        menu.aboutToShow.emit()
        actions = {a.objectName(): a for a in menu.actions()}
        assert set(actions) == {"agentAction-assistant", "agentAction-narrow"}
        assert (
            actions["agentAction-assistant"].isChecked()
            and actions["agentAction-assistant"].text() == "assistant (default)"
        )
        assert actions["agentAction-narrow"].toolTip() == "Only pings"
        actions["agentAction-narrow"].trigger()
        assert runtime.conversation_agent(controller.conversation_id) == "narrow"
        assert statuses == ["This conversation now talks to the agent 'narrow'."]
        menu.aboutToShow.emit()
        assert [a.objectName() for a in menu.actions() if a.isChecked()] == ["agentAction-narrow"]
        with qtbot.waitSignal(controller.busy_changed, check_params_cb=lambda busy: not busy, timeout=10000):
            qloop.create_task(controller.send("hello"))
        request = provider.requests[0]
        assert request.messages[0].content == "Be narrow." and [t.name for t in request.tools] == ["ping"]
    finally:
        controller.close()
        closing = qloop.create_task(runtime.aclose())
        qtbot.waitUntil(closing.done, timeout=5000)
