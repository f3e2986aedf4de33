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

from PySide6.QtCore import QEvent, QSize, Qt
from PySide6.QtGui import QFont, QFontDatabase, QPalette, QResizeEvent
from PySide6.QtWidgets import (
    QApplication,
    QDialog,
    QDialogButtonBox,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSizePolicy,
    QTextEdit,
    QVBoxLayout,
    QWidget,
)

from desktop_app.ui.chat.common import ERROR_COLOR, WARN_COLOR, escape, pretty_json
from desktop_app.ui.dialogs.frame import DialogHeader
from desktop_app.ui.naming import name_buttons
from desktop_app.ui.theme.tokens import THEMES, Role

_CHANGED_BG = Role("warning_surface")  # a changed line in the before/after view
_KIND_COLOR = {
    "mutated": WARN_COLOR,
    "warning": WARN_COLOR,
    "context": "palette(placeholder-text)",
    "blocked": ERROR_COLOR,
    "rejected": ERROR_COLOR,
    "failed": ERROR_COLOR,
}
# A chip's (background, text) per theme: the tokens' warning or danger surface with its text role, each pair
# at least 4.5:1 (WCAG AA, test_contrast.py); outlined kinds have no fill of their own.
CHIP_COLORS = {
    name: {
        "amber": (THEMES[name].warning_surface, THEMES[name].warning_text),
        "red": (THEMES[name].danger_surface, THEMES[name].danger_text),
    }
    for name in ("light", "dark")
}
_KIND_HUE = {"mutated": "amber", "warning": "amber", "blocked": "red", "rejected": "red", "failed": "red"}
_FILLED = ("mutated", "blocked", "rejected")
CHIP_PADDING = 10  # px left and right of a chip's text
CHIP_MIN_CHARS = 12  # a chip squeezed by its neighbours keeps about this many characters, then "…"
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


def text_color(kind: str) -> str:
    """The colour of text about a notice of ``kind`` in the current theme (≥ 4.5:1 on the window)."""
    hue = _KIND_HUE.get(kind)
    if hue is None:
        return "palette(placeholder-text)"
    dark = QApplication.palette().color(QPalette.ColorRole.Base).lightness() < 128
    return CHIP_COLORS["dark" if dark else "light"][hue][1]


def as_dict(notice: Any) -> dict[str, Any]:
    """A notice as a plain dict, whether it is a ``HookNotice`` model or a stored dict."""
    if isinstance(notice, dict):
        return notice
    dump = getattr(notice, "model_dump", None)
    return dump(mode="json") if callable(dump) else {}


def chip_text(notice: dict[str, Any], limit: int | None = CHIP_REASON_LIMIT) -> str:
    """``Changed by pii/redact · <reasons>``, the reasons cut to ``limit`` characters (``None``: all)."""
    kind = str(notice.get("kind", "mutated"))
    who = ", ".join(str(h) for h in notice.get("hooks") or []) or "a hook"
    text = f"{_VERBS.get(kind, 'Hook:')} {who}"
    reasons = "; ".join(str(r) for r in notice.get("reasons") or [] if r)
    if reasons:
        short = reasons if limit is None or len(reasons) <= limit else reasons[: limit - 1] + "…"
        text += f" · {short}"
    return text


class HookNoticeChip(QPushButton):
    """One notice as a flat, rounded chip; clicking opens the before/after view.

    The chip shrinks with the card: its text is then elided with "…" (``full_text``, the tooltip and the
    accessible name keep all of it), never cut mid-word."""

    def __init__(self, notice: dict[str, Any], parent: QWidget | None = None) -> None:
        super().__init__(chip_text(notice), parent)
        self.notice = notice
        self.label = chip_text(notice)  # what the chip shows when it has room (long reasons cut)
        self.full_text = chip_text(notice, limit=None)  # the tooltip and the accessible name: all of it
        kind = str(notice.get("kind", "mutated"))
        self.kind = kind
        self.setObjectName("hookNoticeChip")
        self.setProperty("kind", kind)
        self.setAccessibleName(f"Hook notice: {self.full_text}")
        message = str(notice.get("message") or "")
        details = self.full_text if not message or message == self.full_text else f"{self.full_text}\n{message}"
        self.setToolTip(details + "\nClick for details.")
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
        self.colors: tuple[str, str] | None = None  # (background, text) of a filled chip, in the current theme
        self._restyle()
        self.dialog: HookNoticeDialog | None = None
        self.clicked.connect(self.open_details)

    def _restyle(self) -> None:
        # the application's palette: the chip's own is changed by its style sheet
        dark = QApplication.palette().color(QPalette.ColorRole.Base).lightness() < 128
        hue = _KIND_HUE.get(self.kind)
        border = _KIND_COLOR.get(self.kind, WARN_COLOR)
        if hue is None:  # context: an outline in the muted colour, the text in the palette's
            self.colors = None
            colours = "background: transparent;"
        else:
            background, text = CHIP_COLORS["dark" if dark else "light"][hue]
            filled = self.kind in _FILLED
            self.colors = (background, text) if filled else None
            colours = f"background: {background if filled else 'transparent'}; color: {text};"
        sheet = (
            f"QPushButton#hookNoticeChip {{ border: 1px solid {border}; border-radius: 10px;"
            f" padding: 2px {CHIP_PADDING}px; {colours} text-align: left; }}"
            " QPushButton#hookNoticeChip:focus { border: 2px solid palette(highlight); }"
        )
        if sheet != self.styleSheet():
            self.setStyleSheet(sheet)

    def _text_room(self) -> int:
        return self.width() - 2 * CHIP_PADDING - 4  # the padding and the (focus) border

    def sizeHint(self) -> QSize:
        hint = super().sizeHint()
        full = self.fontMetrics().horizontalAdvance(self.label) + 2 * CHIP_PADDING + 6
        return QSize(full, hint.height())

    def minimumSizeHint(self) -> QSize:
        least = self.fontMetrics().horizontalAdvance("x" * CHIP_MIN_CHARS + "…") + 2 * CHIP_PADDING + 6
        return QSize(min(least, self.sizeHint().width()), super().minimumSizeHint().height())

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._elide()

    def _elide(self) -> None:
        shown = self.fontMetrics().elidedText(self.label, Qt.TextElideMode.ElideRight, self._text_room())
        if shown != self.text():
            self.setText(shown)

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:  # the theme changed: its chip colours
            self._restyle()
        elif event.type() == QEvent.Type.FontChange:
            self._elide()

    def open_details(self) -> HookNoticeDialog:
        self.dialog = HookNoticeDialog([self.notice], self.window())
        self.dialog.open()
        return self.dialog


class HookNoticeRow(QWidget):
    """The chips of one tool call, under its title: one a line, each as wide as its text (elided only when
    the card is narrower), so that two hooks do not squeeze each other to a word."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("hookNoticeRow")
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(0, 2, 0, 2)
        self._layout.setSpacing(4)
        self.chips: list[HookNoticeChip] = []

    def set_notices(self, notices: Iterable[Any]) -> None:
        for chip in self.chips:
            self._layout.removeWidget(chip)
            chip.deleteLater()
        self.chips = []
        for notice in notices:
            chip = HookNoticeChip(as_dict(notice))
            self._layout.addWidget(chip, 0, Qt.AlignmentFlag.AlignLeft)
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
        summary = "Each hook's message and reasons, and the call before and after it."
        layout.addWidget(DialogHeader("What hooks did", summary, icon="warning", tone="warning"))
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
            title.setStyleSheet(f"QLabel {{ color: {text_color(kind)}; }}")
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
