"""Settings → Approvals…: grants listed with Revoke per row; the read-only auto-approve setting shown."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QPushButton

from desktop_app.runtime.run.approvals import Grant
from desktop_app.ui.dialogs.approvals import ApprovalsDialog, format_when
from tests.support.fake_runtime import Content, Tool

GRANTS = [
    Grant(scope="tool", server="time", tool="now", granted_at=1_700_000_000.0, origin="approved in conversation a"),
    Grant(scope="server", server="fs", granted_at=1_700_000_100.0, origin="approved in conversation b"),
    Grant(
        scope="conversation",
        server="web",
        tool="fetch",
        conversation_id="0123456789abcdef",
        granted_at=1_700_000_200.0,
        origin="approved in conversation 0123456789abcdef",
    ),
]


def _open(qtbot, window) -> ApprovalsDialog:
    window.approvals_action.trigger()
    dialog = window.approvals_dialog
    assert dialog is not None
    qtbot.waitExposed(dialog)
    return dialog


def test_grants_are_listed_and_revoke_removes_the_row(qtbot, window, fake_runtime):
    for grant in GRANTS:
        fake_runtime.grants.add(grant)
    dialog = _open(qtbot, window)
    assert dialog.windowTitle() == "Approvals" and window.approvals_action.text() == "&Approvals…"
    assert dialog.row_texts() == [
        ["Always (tool)", "time", "now", "—", format_when(1_700_000_000.0), "approved in conversation a", "Active"],
        [
            "Trusted server",
            "fs",
            "(all tools)",
            "—",
            format_when(1_700_000_100.0),
            "approved in conversation b",
            "Active",
        ],
        [
            "This conversation",
            "web",
            "fetch",
            "01234567…",
            format_when(1_700_000_200.0),
            "approved in conversation 0123456789abcdef",
            "Active",
        ],
    ]
    assert dialog.table.item(2, 3).toolTip() == "0123456789abcdef"
    button = dialog.button(1)
    assert isinstance(button, QPushButton) and button.text() == "Revoke"
    assert button.accessibleName() == "Revoke the grant for fs (all tools)"

    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    assert fake_runtime.revoked == [GRANTS[1]]
    assert [row[1] for row in dialog.row_texts()] == ["time", "web"]
    assert fake_runtime.grants.list() == [GRANTS[0], GRANTS[2]]
    for _ in range(2):
        qtbot.mouseClick(dialog.button(0), Qt.MouseButton.LeftButton)
    assert dialog.row_texts() == [] and not dialog.empty_label.isHidden() and dialog.table.isHidden()


def test_read_only_auto_approve_is_off_by_default_and_saved_when_toggled(qtbot, window, fake_runtime):
    dialog = _open(qtbot, window)
    box = dialog.read_only_box
    assert box.text() == "Auto-approve tools marked read-only"
    assert not box.isChecked() and box.isEnabled()
    assert "readOnlyHint" in box.toolTip()
    box.click()  # the indicator/label hit area (a click at the widget centre can miss it)
    assert fake_runtime.auto_approve_read_only is True
    assert not dialog.empty_label.isHidden()


def test_a_grant_made_on_a_card_shows_up_in_the_dialog(qtbot, window, fake_runtime):
    fake_runtime.script(Tool("t1", "clock", "now", {}), Content("ok"))
    window.composer.edit.setPlainText("time?")
    qtbot.mouseClick(window.composer.button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "t1" in window.view.cards and window.view.cards["t1"].pending)
    window.view.cards["t1"].scope_actions["tool"].trigger()
    qtbot.waitUntil(lambda: not window.controller.busy)
    dialog = _open(qtbot, window)
    [[scope, server, tool, conversation, _when, origin, _state]] = dialog.row_texts()
    assert (scope, server, tool, conversation) == ("Always (tool)", "clock", "now", "—")
    assert origin.endswith("(tool call t1)")


def test_a_grant_for_a_server_whose_definition_changed_shows_stale_until_confirmed(qtbot, qloop, tmp_path):
    """Real Runtime and Host: the grant was made for ``fs`` as ``fs-server --root /a``; mcp.json now says
    ``--root /``. The grant is stale (it no longer applies) until Confirm binds it to the new definition."""
    from desktop_app.runtime.host import Host, ServerConfig
    from desktop_app.runtime.run.approvals import GrantStore
    from desktop_app.runtime.service import Runtime
    from desktop_app.runtime.settings import Settings
    from desktop_app.ui.dialogs.approvals import STALE_TEXT, ApprovalsDialog

    before = Host({"fs": ServerConfig(command="fs-server", args=["--root", "/a"])})
    grants = GrantStore(tmp_path / "grants.json")
    grants.add(Grant(scope="server", server="fs", identity=before.server_identity("fs")))
    host = Host({"fs": ServerConfig(command="fs-server", args=["--root", "/"])})  # the edited mcp.json
    runtime = Runtime(settings=Settings(), host=host, grants=grants)
    assert runtime.grants.find("c", "fs", "read", host.server_identity("fs")) is None  # it does not apply
    dialog = ApprovalsDialog(runtime)
    qtbot.addWidget(dialog)
    dialog.show()
    assert dialog.row_texts()[0][-1] == STALE_TEXT
    assert "changed" in dialog.table.item(0, 6).toolTip()
    confirm = dialog.button(0, "confirmGrantButton")
    assert confirm is not None and confirm.isVisible()
    qtbot.mouseClick(confirm, Qt.MouseButton.LeftButton)
    assert dialog.row_texts()[0][-1] == "Active" and dialog.button(0, "confirmGrantButton") is None
    assert runtime.grants.find("c", "fs", "read", host.server_identity("fs")) is not None
    assert GrantStore(tmp_path / "grants.json").find("c", "fs", "read", host.server_identity("fs")) is not None
