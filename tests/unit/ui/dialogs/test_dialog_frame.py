"""One dialog look: no stock message-box icon anywhere under desktop_app/ui (a source scan), and the shared
pieces — the header (our icon, title, muted line), the button row (the primary action marked), the message
box (our tinted icon where the stock one was) — as built."""

from __future__ import annotations

import ast
from pathlib import Path

from PySide6.QtWidgets import QDialog, QDialogButtonBox, QMessageBox

from desktop_app.ui.dialogs.frame import DialogHeader, button_row, message_box

UI = Path(__file__).resolve().parents[4] / "desktop_app" / "ui"
STATIC_BOXES = {"warning", "critical", "information", "question"}


def stock_icons_in(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Attribute):
            continue
        if isinstance(node.value, ast.Attribute) and node.value.attr == "Icon" and node.attr != "NoIcon":
            found.append(f"{node.lineno}: QMessageBox.Icon.{node.attr}")
        if isinstance(node.value, ast.Name) and node.value.id == "QMessageBox" and node.attr in STATIC_BOXES:
            found.append(f"{node.lineno}: QMessageBox.{node.attr}()")
    return found


def test_no_stock_message_box_icon_under_desktop_app_ui():
    found = [f"{p.relative_to(UI)}:{hit}" for p in sorted(UI.rglob("*.py")) for hit in stock_icons_in(p)]
    assert found == []


def test_the_scan_finds_stock_icons(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text("QMessageBox.warning(None, 't', 'x')\nb = QMessageBox(QMessageBox.Icon.Question, 't', 'x')\n")
    assert stock_icons_in(sample) == ["1: QMessageBox.warning()", "2: QMessageBox.Icon.Question"]


def test_a_message_box_has_our_icon_and_a_marked_primary(qtbot):
    box = message_box(None, "Remove", "Remove it?", icon="delete", tone="danger",
                      primary=("Remove", QMessageBox.ButtonRole.DestructiveRole))  # fmt: skip
    qtbot.addWidget(box)
    assert box.icon() == QMessageBox.Icon.NoIcon and not box.iconPixmap().isNull()
    assert box.defaultButton().text() == "Remove" and box.defaultButton().property("kind") == "danger"


def test_the_header_and_the_button_row(qtbot):
    dialog = QDialog()
    qtbot.addWidget(dialog)
    header = DialogHeader("Install Files?", "by Example", icon="resource", parent=dialog)
    assert header.title.text() == "Install Files?" and not header.icon.pixmap().isNull()
    header.set_subtitle("")
    assert header.subtitle.isHidden()
    row = button_row(dialog, primary="Install")
    accept = row.buttons()[[row.buttonRole(b) for b in row.buttons()].index(QDialogButtonBox.ButtonRole.AcceptRole)]
    assert accept.text() == "Install" and accept.property("kind") == "primary" and accept.isDefault()


def test_the_approval_import_and_hook_dialogs_open_with_the_header(qtbot):
    from desktop_app.ui.chat.hook_notice import HookNoticeDialog
    from desktop_app.ui.extensions.import_dialog import ImportResultDialog
    from desktop_app.ui.servers.http_host import HttpApprovalDialog

    notice = {"kind": "mutated", "event": "PreToolUse", "hook": "redact", "target": "arguments",
              "message": "redacted a key", "before": {"a": 1}, "after": {"a": 2}}  # fmt: skip
    dialogs = [
        ImportResultDialog(),
        HookNoticeDialog([notice]),
        HttpApprovalDialog(None, object(), headline="Agent asks", arguments={}, answer=lambda _ok, _why: None),  # type: ignore[arg-type]
    ]
    for dialog in dialogs:
        qtbot.addWidget(dialog)
        header = dialog.findChild(DialogHeader)
        assert header is not None and header.title.text(), dialog.objectName()
    allow = dialogs[2].allow_button
    assert allow.property("kind") == "primary"
