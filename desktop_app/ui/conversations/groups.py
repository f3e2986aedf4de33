"""The conversation list's dates and groups: Today, Yesterday, Previous 7 days, then one group per month,
and a delegate that draws each row's date at the right and, while searching, the matching snippet (the
match in bold) on a second line.

Header rows are list items without flags (not selectable, not editable) and without a conversation id.
"""

from __future__ import annotations

import time

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QRect, QSize, Qt
from PySide6.QtGui import QFont, QPainter, QPalette
from PySide6.QtWidgets import QStyledItemDelegate, QStyleOptionViewItem

from desktop_app.ui.theme.tokens import scaled_font

DATE_ROLE = Qt.ItemDataRole.UserRole + 7
SNIPPET_ROLE = Qt.ItemDataRole.UserRole + 8
HEADER_ROLE = Qt.ItemDataRole.UserRole + 9
MARKS = ("\x02", "\x03")  # the store's search marks around a match (not characters a text contains)


def group_of(ts: float, now: float | None = None) -> str:
    import datetime as dt  # with the first conversation listed, not before the first paint

    today = dt.date.fromtimestamp(now if now is not None else time.time())
    day = dt.date.fromtimestamp(ts)
    if day >= today:
        return "Today"
    if day == today - dt.timedelta(days=1):
        return "Yesterday"
    if day > today - dt.timedelta(days=8):
        return "Previous 7 days"
    return day.strftime("%B %Y") if day.year != today.year else day.strftime("%B")


def short_date(ts: float, now: float | None = None) -> str:
    """The time for today's rows, the weekday for the last week, else the date."""
    now = now if now is not None else time.time()
    group = group_of(ts, now)
    moment = time.localtime(ts)
    if group == "Today":
        return time.strftime("%H:%M", moment)
    if group == "Yesterday":
        return "Yesterday"
    if group == "Previous 7 days":
        return time.strftime("%a", moment)
    return time.strftime("%d %b" if moment.tm_year == time.localtime(now).tm_year else "%d %b %Y", moment)


class ConversationDelegate(QStyledItemDelegate):
    """Title at the left, date at the right, and under a search the snippet with its match in bold."""

    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex) -> QSize:
        size = super().sizeHint(option, index)
        if index.data(SNIPPET_ROLE):
            size.setHeight(size.height() * 2 + 2)
        return size

    def paint(
        self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex
    ) -> None:
        if index.data(HEADER_ROLE):
            painter.save()
            font = scaled_font(option.font, "small")
            font.setBold(True)
            painter.setFont(font)
            painter.setPen(option.palette.color(QPalette.ColorRole.PlaceholderText))
            painter.drawText(option.rect.adjusted(6, 0, 0, 0), Qt.AlignmentFlag.AlignBottom, str(index.data()))
            painter.restore()
            return
        snippet = str(index.data(SNIPPET_ROLE) or "")
        date = str(index.data(DATE_ROLE) or "")
        first = QRect(option.rect)
        if snippet:
            first.setHeight(option.rect.height() // 2)
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        opt.rect = first
        date_width = opt.fontMetrics.horizontalAdvance(date) + 12 if date else 0
        opt.rect = first.adjusted(0, 0, -date_width, 0)
        style = opt.widget.style() if opt.widget is not None else None
        if style is not None:  # selection and hover backgrounds over the whole row
            from PySide6.QtWidgets import QStyle  # its ~300 enums (~4 ms): made with the first row drawn, not at start

            background = QStyleOptionViewItem(option)
            self.initStyleOption(background, index)
            background.text = ""
            style.drawControl(QStyle.ControlElement.CE_ItemViewItem, background, painter, opt.widget)
            style.drawControl(QStyle.ControlElement.CE_ItemViewItem, _text_only(opt), painter, opt.widget)
        painter.save()
        painter.setPen(option.palette.color(QPalette.ColorRole.PlaceholderText))
        if date:
            painter.drawText(
                first.adjusted(0, 0, -6, 0), int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter), date
            )
        if snippet:
            _draw_marked(painter, option, option.rect.adjusted(8, option.rect.height() // 2, -6, 0), snippet)
        painter.restore()


def _text_only(opt: QStyleOptionViewItem) -> QStyleOptionViewItem:
    from PySide6.QtWidgets import QStyle

    out = QStyleOptionViewItem(opt)
    out.backgroundBrush = Qt.BrushStyle.NoBrush  # type: ignore[assignment]
    out.state &= ~QStyle.StateFlag.State_MouseOver
    return out


def _draw_marked(painter: QPainter, option: QStyleOptionViewItem, rect: QRect, snippet: str) -> None:
    """The snippet on one line, the parts between the marks in bold."""
    x = rect.left()
    metrics = option.fontMetrics
    bold = QFont(option.font)
    bold.setBold(True)
    parts = snippet.replace(MARKS[1], MARKS[0]).split(MARKS[0])
    for number, part in enumerate(parts):
        font = bold if number % 2 else option.font
        painter.setFont(font)
        width = painter.fontMetrics().horizontalAdvance(part)
        room = rect.right() - x
        if room <= 0:
            break
        text = painter.fontMetrics().elidedText(part, Qt.TextElideMode.ElideRight, room) if width > room else part
        painter.drawText(QRect(x, rect.top(), room, rect.height()), int(Qt.AlignmentFlag.AlignVCenter), text)
        x += min(width, room)
    del metrics


__all__ = ["DATE_ROLE", "HEADER_ROLE", "MARKS", "SNIPPET_ROLE", "ConversationDelegate", "group_of", "short_date"]
