"""The tool search panel over the real Host, Runtime and deferral: search, pin, exclude, the promoted marker
and the last-turn highlight, Ctrl+K, and pins/exclusions written to mcp.json (other entries byte for byte)
that survive a restart (a new host from the re-read file)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QEvent, QKeyCombination, Qt
from PySide6.QtGui import QKeyEvent, QKeySequence
from PySide6.QtWidgets import QLineEdit

from desktop_app.runtime.builtins import TOOLS
from desktop_app.runtime.builtins.tools import make_tools_server
from desktop_app.runtime.host import Host, load_mcp_config
from desktop_app.runtime.run.approvals import ApprovalPolicy
from desktop_app.runtime.service import Runtime
from desktop_app.runtime.settings import ProviderSettings, Settings
from desktop_app.runtime.tools.deferral import DeferralSettings, ToolDeferral
from desktop_app.ui.tools.panel import COL_EXCLUDE, COL_PIN, COL_STATE, ToolPanel, summary_text
from desktop_app.ui.window.main_window import MainWindow
from tests.support.fakes import FakeProvider, answer, calls
from tests.support.synthetic_tools import factory

OTHER_ENTRY = """"srv02" : {   "command":"(in-process srv02)",
      "args" : [ "keep",   "this" ],  "excludedTools": ["tool_019"] }"""
MCP_JSON = (
    '{\n  "mcpServers": {\n'
    '    "srv00": {\n      "command": "(in-process srv00)"\n    },\n'
    '    "srv01": {"command": "(in-process srv01)", "pinned": ["tool_010"]},\n'
    f"    {OTHER_ENTRY}\n"
    '  },\n  "theme_of_my_own": [1,2,   3]\n}\n'
)


def make_host(path: Path, tools: int = 20) -> Host:
    host = Host()
    for index, (name, config) in enumerate(sorted(load_mcp_config(path).items())):
        host.add_in_process(name, factory(index, tools), config)
    return host


def make_runtime(host: Host, provider: FakeProvider) -> Runtime:
    settings = Settings(provider=ProviderSettings(base_url="http://127.0.0.1:9", model="m"))
    runtime = Runtime(
        settings=settings, host=host, policy=ApprovalPolicy("ask"), provider_factory=lambda _s, _k: provider
    )
    deferral = ToolDeferral(host, lambda: DeferralSettings.from_settings(runtime.settings))
    runtime.attach_deferral(deferral)
    host.register_builtin(TOOLS, lambda: make_tools_server(deferral.catalog))
    return runtime


def run(qtbot: Any, qloop: Any, coroutine: Any) -> Any:
    task = qloop.create_task(coroutine)
    qtbot.waitUntil(task.done, timeout=30_000)
    return task.result()


def state_of(panel: ToolPanel, name: str) -> str:
    item = panel.find_item(name)
    assert item is not None, name
    return item.text(COL_STATE)


@pytest.mark.integration
def test_search_pin_exclude_promote_and_restart(qtbot: Any, qloop: Any, tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text(MCP_JSON, encoding="utf-8")
    provider = FakeProvider([calls(("s1", "tool_search", '{"query": "select:mcp__srv00__tool_007"}')), answer("done")])
    host = make_host(path)
    runtime = make_runtime(host, provider)
    conversation = runtime.new_conversation()
    panel = ToolPanel()
    qtbot.addWidget(panel)
    panel.attach_runtime(runtime, lambda: conversation)
    panel.attach_host(host, path)
    try:
        run(qtbot, qloop, host.start())
        run(qtbot, qloop, host.ensure_builtins())
        panel.show()
        qtbot.waitUntil(lambda: panel.overview is not None and panel.overview.total == 60, timeout=5000)
        assert panel.overview is not None and panel.overview.deferring  # 60 tools > 40
        assert "saves ~" in panel.summary.text() and panel.summary.text() == summary_text(panel.overview)
        assert state_of(panel, "mcp__srv01__tool_010") == "pinned"
        assert state_of(panel, "mcp__srv02__tool_019") == "excluded"

        # Search, live: the + form keeps srv01's tools, ranked by the extra word.
        qtbot.keyClicks(panel.search, "+srv01 tool_00")
        qtbot.waitUntil(lambda: panel.count_label.text() == "20 of 60 tools match", timeout=5000)
        group = panel.tree.topLevelItem(0)
        assert panel.tree.topLevelItemCount() == 1 and group is not None and group.text(0) == "srv01"
        assert group.isExpanded() and group.child(0).text(0) == "tool_000"
        panel.tree.setCurrentItem(group.child(0))
        assert '"text"' in panel.detail.toPlainText() and "srv01 / tool_000" in panel.detail.toPlainText()

        # Pin a tool, then exclude another: written to mcp.json, the rest of the file byte for byte.
        item = panel.find_item("mcp__srv01__tool_003")
        assert item is not None
        item.setCheckState(COL_PIN, Qt.CheckState.Checked)
        qtbot.waitUntil(lambda: state_of(panel, "mcp__srv01__tool_003") == "pinned", timeout=5000)
        panel.search.clear()
        qtbot.keyClicks(panel.search, "no-such-tool")
        qtbot.waitUntil(lambda: panel.tree.topLevelItemCount() == 0, timeout=5000)
        panel.search.clear()
        qtbot.waitUntil(lambda: panel.tree.topLevelItemCount() == 3, timeout=5000)
        item = panel.find_item("mcp__srv00__tool_005")
        assert item is not None
        item.setCheckState(COL_EXCLUDE, Qt.CheckState.Checked)
        qtbot.waitUntil(lambda: state_of(panel, "mcp__srv00__tool_005") == "excluded", timeout=5000)
        text = path.read_text(encoding="utf-8")
        assert OTHER_ENTRY in text and '"theme_of_my_own": [1,2,   3]' in text
        saved = json.loads(text)["mcpServers"]
        assert saved["srv01"]["pinned"] == ["tool_003", "tool_010"]
        assert saved["srv00"]["excludedTools"] == ["tool_005"]
        plan = runtime.deferral.plan()  # type: ignore[union-attr]
        assert "mcp__srv01__tool_003" in [t.name for t in plan.loaded]
        assert "mcp__srv00__tool_005" not in plan.by_name

        # A run promotes a tool: the marker and the last-turn highlight.
        run(qtbot, qloop, runtime.run(conversation, "find it"))
        qtbot.waitUntil(lambda: state_of(panel, "mcp__srv00__tool_007") == "● promoted", timeout=5000)
        promoted = panel.find_item("mcp__srv00__tool_007")
        assert promoted is not None and promoted.background(0).style() != Qt.BrushStyle.NoBrush
        assert panel.last_turn() == {"mcp__srv00__tool_007"}
        assert [t.name for t in provider.requests[1].tools][-1] == "mcp__srv00__tool_007"
    finally:
        run(qtbot, qloop, runtime.aclose())

    # Restart: a new host from the file as saved; a new panel shows the same pins and exclusions.
    host = make_host(path)
    runtime = make_runtime(host, FakeProvider())
    panel = ToolPanel()
    qtbot.addWidget(panel)
    panel.attach_runtime(runtime, lambda: None)
    panel.attach_host(host, path)
    try:
        run(qtbot, qloop, host.start())
        panel.refresh()
        pinned, excluded = panel.find_item("mcp__srv01__tool_003"), panel.find_item("mcp__srv00__tool_005")
        assert pinned is not None and pinned.checkState(COL_PIN) == Qt.CheckState.Checked
        assert excluded is not None and excluded.checkState(COL_EXCLUDE) == Qt.CheckState.Checked
        # Un-exclude writes the field away again.
        excluded.setCheckState(COL_EXCLUDE, Qt.CheckState.Unchecked)
        qtbot.waitUntil(
            lambda: "excludedTools" not in json.loads(path.read_text(encoding="utf-8"))["mcpServers"]["srv00"]
        )
        assert OTHER_ENTRY in path.read_text(encoding="utf-8")
    finally:
        run(qtbot, qloop, runtime.aclose())


class ClaimsCtrlK(QLineEdit):
    def event(self, event: QEvent) -> bool:
        ctrl_k = QKeyCombination(Qt.KeyboardModifier.ControlModifier, Qt.Key.Key_K)
        if (
            event.type() == QEvent.Type.ShortcutOverride
            and isinstance(event, QKeyEvent)
            and event.keyCombination() == ctrl_k
        ):
            event.accept()
            return True
        return super().event(event)


def test_ctrl_k_opens_the_dock_with_the_search_focused(qtbot: Any) -> None:
    window = MainWindow()
    qtbot.addWidget(window)
    window.show()
    dock = window.tools_dock
    assert not dock.isVisible()
    assert dock.search_action.shortcut() == QKeySequence("Ctrl+K")
    assert window.shortcut_actions["tool_search"] is dock.search_action
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=3000)
    # On X11, Qt's text fields claim Ctrl+K ("delete to the end of the line"); this field does the same anywhere.
    field = ClaimsCtrlK()
    window.statusBar().addWidget(field)
    field.setFocus()
    qtbot.waitUntil(field.hasFocus, timeout=3000)
    qtbot.keyClick(field, Qt.Key.Key_K, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(dock.isVisible, timeout=3000)
    qtbot.waitUntil(dock.panel.search.hasFocus, timeout=3000)


def test_broken_mcp_json_is_reported_and_not_written(qtbot: Any, qloop: Any, tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text(MCP_JSON, encoding="utf-8")
    host = make_host(path)
    runtime = make_runtime(host, FakeProvider())
    panel = ToolPanel()
    qtbot.addWidget(panel)
    panel.attach_runtime(runtime, lambda: None)
    panel.attach_host(host, path)
    try:
        run(qtbot, qloop, host.start())
        panel.refresh()
        path.write_text('{"mcpServers": {', encoding="utf-8")  # the user broke it meanwhile
        item = panel.find_item("mcp__srv00__tool_001")
        assert item is not None
        item.setCheckState(COL_PIN, Qt.CheckState.Checked)
        qtbot.waitUntil(lambda: panel.notice.isVisibleTo(panel), timeout=5000)
        assert path.read_text(encoding="utf-8") == '{"mcpServers": {'
        assert panel.notice.isVisibleTo(panel) and "nothing was changed" in panel.notice.text()
        item = panel.find_item("mcp__srv00__tool_001")
        assert item is not None and item.checkState(COL_PIN) == Qt.CheckState.Unchecked  # put back
    finally:
        run(qtbot, qloop, runtime.aclose())


def test_deferral_settings_page_from_the_panel_saves_mode_and_thresholds(
    qtbot: Any, qloop: Any, switchboard_home: Path
) -> None:
    from PySide6.QtWidgets import QComboBox, QDoubleSpinBox, QSpinBox

    from desktop_app.runtime.settings import load_settings

    path = switchboard_home / "settings.json"
    settings = Settings(provider=ProviderSettings(base_url="https://api.example.com/v1", model="m1"))
    runtime = Runtime(settings=settings, host=Host(), settings_path=path)
    window = MainWindow()
    qtbot.addWidget(window)
    window.attach_runtime(runtime)
    window.show()
    window.tools_dock.open_search()
    qtbot.waitUntil(window.tools_dock.panel.settings_button.isVisible, timeout=3000)
    qtbot.mouseClick(window.tools_dock.panel.settings_button, Qt.MouseButton.LeftButton)
    settings_window = window.settings_window
    assert settings_window is not None and settings_window.isVisible()
    page = settings_window.show_page("deferral")
    mode = page.findChild(QComboBox, "settingsToolDeferral")
    assert mode is not None and mode.currentData() == "auto"
    mode.setCurrentIndex(mode.findData("always"))
    tools = page.findChild(QSpinBox, "settingsToolDeferralMaxTools")
    share = page.findChild(QDoubleSpinBox, "settingsToolDeferralContextPercent")
    assert tools is not None and share is not None and tools.value() == 40 and share.value() == 5.0
    tools.setValue(25)
    share.setValue(2.5)
    qtbot.mouseClick(settings_window.save_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: runtime.settings.tool_deferral == "always", timeout=5000)
    saved = load_settings(path)
    assert (saved.tool_deferral, saved.tool_deferral_max_tools, saved.tool_deferral_context_percent) == (
        "always",
        25,
        2.5,
    )


def cell_marks(panel: ToolPanel, item: Any, column: int) -> tuple[int, int]:
    """The row's background colour as drawn (the right end of its Tokens cell), and how many pixels of its
    ``column`` cell differ from it (what is drawn there: the box)."""
    from desktop_app.ui.tools.panel import COL_TOKENS

    rect = panel.tree.visualItemRect(item)
    header = panel.tree.header()
    image = panel.tree.viewport().grab().toImage()
    edge = header.sectionViewportPosition(COL_TOKENS) + header.sectionSize(COL_TOKENS) - 2
    background = image.pixelColor(edge, rect.center().y()).rgb()
    x0, width = header.sectionViewportPosition(column), header.sectionSize(column)
    pixels = [image.pixelColor(x, y).rgb() for x in range(x0, x0 + width) for y in range(rect.top(), rect.bottom())]
    return background, sum(1 for p in pixels if p != background)


@pytest.mark.integration
def test_words_search_empty_state_model_sees_hook_target_and_selected_boxes(
    qtbot: Any, qloop: Any, tmp_path: Path
) -> None:
    from desktop_app.runtime.hooks.config import parse_hooks
    from desktop_app.runtime.hooks.model import HookSource
    from desktop_app.runtime.hooks.runner import HookRunner

    path = tmp_path / "mcp.json"
    path.write_text(MCP_JSON, encoding="utf-8")
    host = make_host(path, tools=60)
    runner = HookRunner()  # srv02's tool_000 filters messages: a hook target
    runner.add_hooks(parse_hooks({"tools/call?direction=response": ["srv02/tool_000"]}, HookSource("mcp-config")))
    host.set_hooks(runner)
    runtime = make_runtime(host, FakeProvider())
    conversation = runtime.new_conversation()
    panel = ToolPanel()
    qtbot.addWidget(panel)
    panel.resize(620, 700)
    panel.attach_runtime(runtime, lambda: conversation)
    panel.attach_host(host, path)
    try:
        run(qtbot, qloop, host.start())
        panel.show()
        qtbot.waitUntil(lambda: panel.overview is not None and panel.overview.total == 180, timeout=5000)

        # Words match words: "issues 07" is srv01's tool_007 (its description says "issues", its name "07").
        qtbot.keyClicks(panel.search, "Issues 07")
        qtbot.waitUntil(lambda: panel.count_label.text() == "1 of 180 tools match", timeout=5000)
        assert panel.find_item("mcp__srv01__tool_007") is not None and panel.tree.isVisibleTo(panel)
        assert not panel.empty.isVisibleTo(panel)
        # No match: said so, not a blank list.
        panel.search.clear()
        qtbot.keyClicks(panel.search, "issues 99")
        qtbot.waitUntil(lambda: panel.empty.isVisibleTo(panel), timeout=5000)
        assert panel.empty.text().startswith("No tools match “issues 99”")
        assert not panel.tree.isVisibleTo(panel)
        panel.search.clear()
        qtbot.waitUntil(lambda: panel.tree.topLevelItemCount() == 3 and not panel.empty.isVisibleTo(panel))

        # What the model sees this turn, from the index's own names: a deferred tool is "in index" or "hidden".
        plan = runtime.deferral.plan()  # type: ignore[union-attr]
        listed = plan.catalog.index().listed
        hidden = [name for name in plan.catalog.names() if name not in listed]
        assert listed and hidden  # 176 deferred tools do not all fit in 4,000 characters
        for name in [*sorted(listed)[:3], *hidden[:3]]:
            item = panel.find_item(name)
            assert item is not None
            assert item.text(COL_STATE) == ("in index" if name in listed else "hidden"), name
        hidden_item = panel.find_item(hidden[0])
        assert hidden_item is not None and "only with tool_search" in hidden_item.toolTip(COL_STATE)
        pinned_item = panel.find_item("mcp__srv01__tool_010")
        assert pinned_item is not None and pinned_item.text(COL_STATE) == "pinned"
        assert "full definition" in pinned_item.toolTip(COL_STATE)
        assert f"{len(hidden)} are hidden" in panel.summary.text()

        # The hook's tool: not offered, and why.
        hooked = panel.find_item("mcp__srv02__tool_000")
        assert hooked is not None and hooked.text(COL_STATE) == "hook target"
        assert "message hook 'tools/call?direction=response'" in hooked.toolTip(COL_STATE)
        assert "mcp__srv02__tool_000" not in plan.by_name
        # Pinning it is the user asking for it: offered.
        hooked.setCheckState(COL_PIN, Qt.CheckState.Checked)
        qtbot.waitUntil(lambda: state_of(panel, "mcp__srv02__tool_000") == "pinned", timeout=5000)
        assert "mcp__srv02__tool_000" in [t.name for t in runtime.deferral.plan().loaded]  # type: ignore[union-attr]

        # A selected row still shows its Pin box, checked or not.
        panel.tree.expandAll()
        checked, unchecked = panel.find_item("mcp__srv01__tool_010"), panel.find_item("mcp__srv01__tool_011")
        assert checked is not None and unchecked is not None
        assert checked.checkState(COL_PIN) == Qt.CheckState.Checked
        panel.tree.setCurrentItem(checked)
        qtbot.waitUntil(checked.isSelected)
        selected_bg, checked_marks = cell_marks(panel, checked, COL_PIN)
        panel.tree.setCurrentItem(unchecked)
        qtbot.waitUntil(unchecked.isSelected)
        unchecked_bg, unchecked_marks = cell_marks(panel, unchecked, COL_PIN)
        assert selected_bg == unchecked_bg  # the selection colour
        assert checked_marks >= 60, "a checked box on a selected row must be drawn, not lost in the highlight"
        assert 10 <= unchecked_marks < checked_marks / 2 + 10  # hollow vs filled
    finally:
        run(qtbot, qloop, runtime.aclose())
