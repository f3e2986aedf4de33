"""A hidden Tools panel does no work: host and run events do not rebuild its list (nor load the regex module
and the overview with it) until the panel is shown. The dock starts hidden, so before this the list was
rebuilt after every tools change and every run in a session that never opened it (issue 27, memory after use).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from desktop_app.ui.tools.panel import ToolPanel
from tests.support.fakes import FakeProvider
from tests.unit.ui.tools.test_tool_panel import MCP_JSON, make_host, make_runtime, run


def test_a_hidden_panel_refreshes_only_once_shown(qtbot: Any, qloop: Any, tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text(MCP_JSON, encoding="utf-8")
    host = make_host(path)
    runtime = make_runtime(host, FakeProvider([]))
    conversation = runtime.new_conversation()
    panel = ToolPanel()
    qtbot.addWidget(panel)
    refreshes: list[int] = []
    panel.refreshed.connect(lambda: refreshes.append(1))
    panel.attach_runtime(runtime, lambda: conversation)
    panel.attach_host(host, path)
    try:
        run(qtbot, qloop, host.start())  # server_state and tools_changed events
        assert not panel._timer.isActive() and refreshes == [] and panel.overview is None
        with qtbot.waitSignal(panel.refreshed, timeout=5000):
            panel.show()
        assert panel.overview is not None and panel.overview.total == 60
    finally:
        run(qtbot, qloop, runtime.aclose())
