"""A tool call's arguments on its card: pretty JSON to read, an editor with validation, and the edit diff.

``ArgumentsPanel`` shows the arguments read-only; ``start_editing`` swaps in a text field holding the same
pretty JSON. Every change is parsed: invalid JSON or a value that is not an object shows an inline error
and ``validity_changed(False)``. ``describe_changes`` renders the compact before/after of an edit.

Once the call ran, the panel shows the arguments that ran: the user's edit (``show_final``) and then what
hooks changed (``show_hook_changes``: a PreToolUse hook's ``updated_input``, a request message hook), each
with its own −/+ lines and who made it ("Edited before approval", "Changed by hook <name>").
"""

from __future__ import annotations

import json
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import QLabel, QPlainTextEdit, QVBoxLayout, QWidget

from desktop_app.ui.chat.common import ERROR_COLOR, OK_COLOR, compact_json, escape, pretty_json

EDITOR_MIN_LINES = 3
EDITOR_MAX_LINES = 14


def parse_arguments(text: str) -> tuple[dict[str, Any] | None, str | None]:
    """``(arguments, None)`` for a JSON object, else ``(None, what is wrong)``."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        return None, f"Invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}"
    if not isinstance(value, dict):
        return None, f"The arguments must be a JSON object ({{…}}), not {type(value).__name__}."
    return value, None


def argument_changes(before: dict[str, Any], after: dict[str, Any]) -> list[tuple[str, Any, Any, str]]:
    """Top-level keys that differ: ``(key, old, new, kind)`` with kind ``changed``, ``added`` or ``removed``."""
    changes: list[tuple[str, Any, Any, str]] = []
    for key in [*before, *(k for k in after if k not in before)]:
        if key not in after:
            changes.append((key, before[key], None, "removed"))
        elif key not in before:
            changes.append((key, None, after[key], "added"))
        elif before[key] != after[key]:
            changes.append((key, before[key], after[key], "changed"))
    return changes


def describe_changes(before: dict[str, Any], after: dict[str, Any]) -> str:
    """Rich text: '− key: old' in red and '+ key: new' in green for each changed top-level key."""
    lines = []
    for key, old, new, kind in argument_changes(before, after):
        name = escape(json.dumps(key, ensure_ascii=False))
        if kind != "added":
            lines.append(f'<span style="color:{ERROR_COLOR}">−&nbsp;{name}: {escape(compact_json(old))}</span>')
        if kind != "removed":
            lines.append(f'<span style="color:{OK_COLOR}">+&nbsp;{name}: {escape(compact_json(new))}</span>')
    if not lines:
        lines.append("(no change)")
    return "<br>".join(lines)


class ArgumentsPanel(QWidget):
    """The arguments of one tool call: read-only pretty JSON, or an editor while the user edits them.

    Signals:
        validity_changed(bool): the editor's text became valid (a JSON object) or invalid.
    """

    validity_changed = Signal(bool)

    def __init__(self, arguments: dict[str, Any], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.original = dict(arguments)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)
        mono = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        self.label = QLabel(pretty_json(arguments))
        self.label.setObjectName("toolCardArguments")
        self.label.setAccessibleName("Tool arguments")
        self.label.setTextFormat(Qt.TextFormat.PlainText)
        self.label.setWordWrap(True)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.label.setFont(mono)
        layout.addWidget(self.label)
        self.editor = QPlainTextEdit()
        self.editor.setObjectName("toolCardArgumentsEditor")
        self.editor.setAccessibleName("Edit tool arguments (JSON)")
        self.editor.setFont(mono)
        self.editor.setTabChangesFocus(True)
        self.editor.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.editor.textChanged.connect(self._on_text_changed)
        self.editor.hide()
        layout.addWidget(self.editor)
        self.error = QLabel("")
        self.error.setObjectName("toolCardArgumentsError")
        self.error.setAccessibleName("Argument error")
        self.error.setWordWrap(True)
        self.error.setTextFormat(Qt.TextFormat.PlainText)
        self.error.setStyleSheet(f"QLabel {{ color: {ERROR_COLOR}; }}")
        self.error.hide()
        layout.addWidget(self.error)
        self.changes = QLabel("")
        self.changes.setObjectName("toolCardArgumentChanges")
        self.changes.setAccessibleName("Changed arguments, before and after")
        self.changes.setTextFormat(Qt.TextFormat.RichText)
        self.changes.setWordWrap(True)
        self.changes.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.changes.setFont(mono)
        self.changes.hide()
        layout.addWidget(self.changes)
        self.valid = True
        self._edited: dict[str, Any] | None = None
        self._hook_changes: list[tuple[str, dict[str, Any], dict[str, Any]]] = []

    @property
    def editing(self) -> bool:
        return not self.editor.isHidden()

    def start_editing(self) -> None:
        self.editor.setPlainText(pretty_json(self.original))
        self.label.hide()
        self.editor.show()
        self._fit_editor()
        self.editor.setFocus()

    def stop_editing(self) -> None:
        """Drop the edits and show the original arguments again."""
        self.editor.hide()
        self.error.hide()
        self.label.show()
        self._set_valid(True)

    def edited(self) -> dict[str, Any] | None:
        """The edited arguments if the editor is open, valid and different from the original, else ``None``."""
        if not self.editing:
            return None
        value, _problem = parse_arguments(self.editor.toPlainText())
        return value if value is not None and value != self.original else None

    def show_final(self, edited: dict[str, Any] | None) -> None:
        """The decision is made: read-only arguments (what ran), plus the before/after when edited."""
        self.editor.hide()
        self.error.hide()
        self.label.show()
        self._edited = edited
        self._show_ran()

    def show_hook_changes(self, changes: list[tuple[str, dict[str, Any], dict[str, Any]]]) -> None:
        """Hooks changed the arguments before the tool ran: ``(who, before, after)`` in the order they ran.
        The panel then shows the last ``after`` (what ran) and a −/+ diff per hook."""
        self._hook_changes = list(changes)
        self._show_ran()

    @property
    def ran(self) -> dict[str, Any]:
        """The arguments the tool ran with, as far as the card knows: hooks' last change, else the edit."""
        if self._hook_changes:
            return self._hook_changes[-1][2]
        return self._edited if self._edited is not None else self.original

    def _show_ran(self) -> None:
        if self.editing:
            return
        self.label.setText(pretty_json(self.ran))
        parts = []
        if self._edited is not None:
            parts.append("<i>Edited before approval:</i><br>" + describe_changes(self.original, self._edited))
        for who, before, after in self._hook_changes:
            parts.append(f"<i>Changed by hook {escape(who)}:</i><br>" + describe_changes(before, after))
        self.changes.setText("<br>".join(parts))
        self.changes.setVisible(bool(parts))

    def _on_text_changed(self) -> None:
        self._fit_editor()
        _value, problem = parse_arguments(self.editor.toPlainText())
        self.error.setText(problem or "")
        self.error.setVisible(problem is not None)
        self._set_valid(problem is None)

    def _set_valid(self, valid: bool) -> None:
        if valid != self.valid:
            self.valid = valid
            self.validity_changed.emit(valid)

    def _fit_editor(self) -> None:
        lines = max(EDITOR_MIN_LINES, min(EDITOR_MAX_LINES, self.editor.document().lineCount()))
        margins = self.editor.contentsMargins()
        height = lines * self.editor.fontMetrics().lineSpacing() + 2 * int(self.editor.document().documentMargin())
        self.editor.setFixedHeight(height + margins.top() + margins.bottom() + 2 * self.editor.frameWidth())


__all__ = ["ArgumentsPanel", "argument_changes", "describe_changes", "parse_arguments"]
