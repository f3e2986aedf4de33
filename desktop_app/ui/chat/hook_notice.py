"""Hook notices on a tool card: a chip per notice naming the hook(s) and the reasons, and a before/after view.

Nothing a hook does is silent. A hook that changed the arguments or the result gets an amber chip
("Changed by pii/redact · redacted 1 e-mail address"); a hook that blocked or rejected the call a red one
("Blocked by block rm -rf · refusing …"); a hook that failed without blocking a red outline one. Clicking a
chip opens :class:`HookNoticeDialog`: what happened, the reasons, and, when the hook changed something,
the value before and after side by side with the changed lines marked. Notices come as ``HookNotice``
models (live events) or dicts (stored with the tool result), so a reopened conversation shows them again.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QFontDatabase
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QTextEdit,
    QVBoxLayout,
    QWidget,
)

from desktop_app.ui.chat.common import ERROR_COLOR, escape, pretty_json
from desktop_app.ui.naming import name_buttons

WARN_COLOR = "#c98a00"
_CHANGED_BG = "rgba(201, 138, 0, 0.22)"
_KIND_COLOR = {
    "mutated": WARN_COLOR,
    "warning": WARN_COLOR,
    "context": "palette(placeholder-text)",
    "blocked": ERROR_COLOR,
    "rejected": ERROR_COLOR,
    "failed": ERROR_COLOR,
}
_VERBS = {
    "mutated": "Changed by",
    "blocked": "Blocked by",
    "rejected": "Rejected by",
    "failed": "Hook failed:",
    "warning": "Warning from",
    "context": "Context from",
}
_TARGETS = {"arguments": "arguments", "result": "result", "prompt": "prompt", "approval": "arguments"}
CHIP_REASON_LIMIT = 60


def as_dict(notice: Any) -> dict[str, Any]:
    """A notice as a plain dict, whether it is a ``HookNotice`` model or a stored dict."""
    if isinstance(notice, dict):
        return notice
    dump = getattr(notice, "model_dump", None)
    return dump(mode="json") if callable(dump) else {}


def chip_text(notice: dict[str, Any]) -> str:
    kind = str(notice.get("kind", "mutated"))
    who = ", ".join(str(h) for h in notice.get("hooks") or []) or "a hook"
    text = f"{_VERBS.get(kind, 'Hook:')} {who}"
    reasons = "; ".join(str(r) for r in notice.get("reasons") or [] if r)
    if reasons:
        short = reasons if len(reasons) <= CHIP_REASON_LIMIT else reasons[: CHIP_REASON_LIMIT - 1] + "…"
        text += f" · {short}"
    return text


class HookNoticeChip(QPushButton):
    """One notice as a flat, rounded chip; clicking opens the before/after view."""

    def __init__(self, notice: dict[str, Any], parent: QWidget | None = None) -> None:
        super().__init__(chip_text(notice), parent)
        self.notice = notice
        kind = str(notice.get("kind", "mutated"))
        color = _KIND_COLOR.get(kind, WARN_COLOR)
        self.setObjectName("hookNoticeChip")
        self.setProperty("kind", kind)
        self.setAccessibleName(f"Hook notice: {chip_text(notice)}")
        self.setToolTip(str(notice.get("message") or chip_text(notice)) + "\nClick for details.")
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        filled = kind in ("mutated", "blocked", "rejected")
        background = f"background: {color}; color: white;" if filled else "background: transparent;"
        self.setStyleSheet(
            f"QPushButton#hookNoticeChip {{ border: 1px solid {color}; border-radius: 10px; padding: 2px 10px;"
            f" {background} text-align: left; }}"
            f" QPushButton#hookNoticeChip:focus {{ border: 2px solid palette(highlight); }}"
        )
        self.dialog: HookNoticeDialog | None = None
        self.clicked.connect(self.open_details)

    def open_details(self) -> HookNoticeDialog:
        self.dialog = HookNoticeDialog([self.notice], self.window())
        self.dialog.open()
        return self.dialog


class HookNoticeRow(QWidget):
    """The chips of one tool call, under its title."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("hookNoticeRow")
        self._layout = QHBoxLayout(self)
        self._layout.setContentsMargins(0, 2, 0, 2)
        self._layout.setSpacing(6)
        self._layout.addStretch(1)
        self.chips: list[HookNoticeChip] = []

    def set_notices(self, notices: Iterable[Any]) -> None:
        for chip in self.chips:
            self._layout.removeWidget(chip)
            chip.deleteLater()
        self.chips = []
        for notice in notices:
            chip = HookNoticeChip(as_dict(notice))
            self._layout.insertWidget(len(self.chips), chip)
            self.chips.append(chip)
        self.setVisible(bool(self.chips))


def _text(value: Any) -> str:
    if value is None:
        return ""
    return value if isinstance(value, str) else pretty_json(value)


def _marked_html(lines: Sequence[str], changed: set[int]) -> str:
    rows = []
    for index, line in enumerate(lines):
        style = f' style="background:{_CHANGED_BG};"' if index in changed else ""
        rows.append(f"<div{style}>{escape(line) or '&nbsp;'}</div>")
    return "<div style='white-space: pre-wrap;'>" + "".join(rows) + "</div>"


def changed_lines(before: str, after: str) -> tuple[set[int], set[int]]:
    """Indexes of the lines that differ, on each side (difflib opcodes)."""
    old, new = before.splitlines(), after.splitlines()
    left: set[int] = set()
    right: set[int] = set()
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=old, b=new, autojunk=False).get_opcodes():
        if tag != "equal":
            left.update(range(i1, i2))
            right.update(range(j1, j2))
    return left, right


class HookNoticeDialog(QDialog):
    """What hooks did to one call: for each notice, the message, the reasons and before/after."""

    def __init__(self, notices: Sequence[Any], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("hookNoticeDialog")
        self.setWindowTitle("What hooks did")
        self.resize(820, 480)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(16, 16, 16, 12)
        layout.setSpacing(10)
        self.befores: list[QTextEdit] = []
        self.afters: list[QTextEdit] = []
        mono = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        for raw in notices:
            notice = as_dict(raw)
            kind = str(notice.get("kind", ""))
            title = QLabel(
                f"<b>{escape(chip_text({**notice, 'reasons': []}))}</b> · {escape(str(notice.get('event')))}"
            )
            title.setObjectName("hookNoticeTitle")
            title.setStyleSheet(f"QLabel {{ color: {_KIND_COLOR.get(kind, WARN_COLOR)}; }}")
            layout.addWidget(title)
            message = QLabel(str(notice.get("message") or ""))
            message.setObjectName("hookNoticeMessage")
            message.setWordWrap(True)
            message.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            layout.addWidget(message)
            reasons = [str(r) for r in notice.get("reasons") or [] if r]
            if reasons:
                listed = QLabel("Reasons:<br>" + "<br>".join(f"• {escape(r)}" for r in reasons))
                listed.setObjectName("hookNoticeReasons")
                listed.setWordWrap(True)
                listed.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
                layout.addWidget(listed)
            before, after = _text(notice.get("before")), _text(notice.get("after"))
            if before or after:
                layout.addWidget(self._compare(notice, before, after, mono), 1)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        name_buttons(buttons, "hookNotice")
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)

    def _compare(self, notice: dict[str, Any], before: str, after: str, mono: QFont) -> QWidget:
        what = _TARGETS.get(str(notice.get("target")), "value")
        box = QWidget()
        grid = QGridLayout(box)
        grid.setContentsMargins(0, 0, 0, 0)
        left_lines, right_lines = changed_lines(before, after)
        has_after = notice.get("after") is not None
        for column, (caption, text, marks) in enumerate(
            ((f"Before ({what})", before, left_lines), (f"After ({what})", after, right_lines))
        ):
            if column == 1 and not has_after:
                caption, text = f"After ({what})", "(not run: the hook stopped it)"
                marks = set()
            label = QLabel(caption)
            label.setStyleSheet("QLabel { color: palette(placeholder-text); }")
            grid.addWidget(label, 0, column)
            view = QTextEdit()
            view.setObjectName("hookNoticeBefore" if column == 0 else "hookNoticeAfter")
            view.setAccessibleName(caption)
            view.setReadOnly(True)
            view.setFont(mono)
            view.setHtml(_marked_html(text.splitlines() or [text], marks))
            grid.addWidget(view, 1, column)
            (self.befores if column == 0 else self.afters).append(view)
        return box


class HookNoticeLine(QWidget):
    """A notice about the turn itself (the prompt was rewritten or blocked, a Stop hook failed): the chip and
    the sentence, in the reading column."""

    def __init__(self, notice: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        data = as_dict(notice)
        self.setObjectName("hookNoticeLine")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 2, 0, 2)
        layout.setSpacing(8)
        self.chip = HookNoticeChip(data)
        layout.addWidget(self.chip)
        self.text = QLabel(str(data.get("message") or ""))
        self.text.setObjectName("hookNoticeLineText")
        self.text.setWordWrap(True)
        self.text.setStyleSheet("QLabel { color: palette(placeholder-text); }")
        layout.addWidget(self.text, 1)
