"""Live Markdown: a widget that renders an answer as it streams, block by block (reusable anywhere).

``MarkdownView`` is a vertical stack of segments: ``ProseView`` (a read-only rich-text document holding
consecutive prose blocks: paragraphs, headings, lists, tables, quotes, rules) and ``CodeBlock`` (one fenced
or indented code block: a header with the language and Copy, highlighted monospace text that scrolls
sideways instead of wrapping). ``append`` feeds a ``md_stream.MarkdownStream``: each block it reports
finished is written once and never touched again; the one open block is written again on each update (in
place at the end of the last prose document, or the last code block grows). ``finish`` writes the open
block one last time, as written, so the end of the stream looks like the stream (no jump).

It is not tied to the chat transcript: the tray's quick prompt embeds the same widget.
"""

from __future__ import annotations

import math
import time
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager

from PySide6.QtCore import QEvent, QSizeF, Qt, QTimer, Signal
from PySide6.QtGui import (
    QPainter,
    QPaintEvent,
    QPalette,
    QTextBlockFormat,
    QTextCursor,
    QTextDocument,
)
from PySide6.QtWidgets import (
    QApplication,
    QFrame,
    QSizePolicy,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from desktop_app.ui.chat.code_block import CodeBlock
from desktop_app.ui.chat.markdown_theme import Theme
from desktop_app.ui.chat.md_stream import Block, MarkdownStream
from desktop_app.ui.chat.qt_markdown import quote_bars, write_block
from desktop_app.ui.theme.tokens import reading_font

PARSE_CHUNK = 1000  # characters parsed per step of a burst
FRAME_BUDGET_MS = 4.0  # finished blocks written per turn of the event loop, at most (a frame is 16 ms)
DRAIN_DELAY_MS = 1  # the next pass of a burst: a timer (not a posted call), so it runs on the next turn of the
# event loop, after this turn's layout and paint (a posted call would run in this turn, and the stalls add up)


class AutoHeightText(QTextBrowser):
    """A read-only rich-text view as tall as its document, so the transcript scrolls as one page.

    Links open in the system browser (``QDesktopServices`` via ``openExternalLinks``).
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setOpenExternalLinks(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.viewport().setAutoFillBackground(False)
        palette = self.palette()  # transparent through the palette: a per-widget style sheet costs ~1 ms a block
        palette.setColor(QPalette.ColorRole.Base, Qt.GlobalColor.transparent)
        self.setPalette(palette)
        self.document().setDocumentMargin(2)
        self.document().documentLayout().documentSizeChanged.connect(self._on_document_size_changed)
        self._fit(self.document().size())

    def append_text(self, text: str) -> None:
        cursor = QTextCursor(self.document())
        cursor.movePosition(QTextCursor.MoveOperation.End)
        cursor.insertText(text)

    def _on_document_size_changed(self, size: QSizeF) -> None:
        self._fit(size)

    def _fit(self, size: QSizeF) -> None:
        height = math.ceil(size.height()) + 2 * self.frameWidth() + 2
        if height != self.height():
            self.setFixedHeight(height)


@contextmanager
def _edit_block(document: QTextDocument) -> Iterator[None]:
    cursor = QTextCursor(document)
    cursor.beginEditBlock()
    try:
        yield
    finally:
        cursor.endEditBlock()


class ProseView(AutoHeightText):
    """Consecutive prose blocks in one document: finished ones fixed, the open one at the end rewritten.

    Quoted blocks get a bar per quote level down their left side (``qt_markdown.quote_bars``), drawn over the
    document: a block format has no side border of its own."""

    def __init__(self, theme: Theme, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("markdownProse")
        self.setAccessibleName("Answer text")
        self.setFont(reading_font())  # the tokens' reading chain (a serif made for screens), the UI font last
        self.theme = theme
        self._frozen_end = 0  # document position where the open block starts
        self._frozen_format = QTextBlockFormat()  # the format of the block there, as written
        self.has_tail = False
        self.quoted = False  # a quote was written: the paint looks for quote bars

    @property
    def is_empty(self) -> bool:
        return self.document().characterCount() <= 1

    def _note_quotes(self, block: Block) -> None:
        if not self.quoted and any(token.type == "blockquote_open" for token in block.tokens):
            self.quoted = True

    def paintEvent(self, event: QPaintEvent) -> None:
        super().paintEvent(event)
        if not self.quoted:
            return
        painter = QPainter(self.viewport())
        dx, dy = self.horizontalScrollBar().value(), self.verticalScrollBar().value()
        for x, y, width, height in quote_bars(self.document()):
            painter.fillRect(round(x - dx), round(y - dy), round(width), round(height), self.theme.quote_bar)
        painter.end()

    def add_finished(self, block: Block) -> None:
        self._note_quotes(block)
        with _edit_block(self.document()):  # one layout pass for the whole change, not one per insertion
            self.clear_tail()
            write_block(self.document(), list(block.tokens), self.theme, continues=block.continues)
        self._frozen_end = self.document().characterCount() - 1
        self._frozen_format = self.document().lastBlock().blockFormat()

    def set_tail(self, block: Block) -> None:
        self._note_quotes(block)
        with _edit_block(self.document()):
            self.clear_tail()
            write_block(self.document(), list(block.tokens), self.theme, continues=block.continues)
        self.has_tail = True

    def clear_tail(self) -> None:
        if not self.has_tail:
            return
        cursor = QTextCursor(self.document())
        cursor.setPosition(self._frozen_end)
        cursor.movePosition(QTextCursor.MoveOperation.End, QTextCursor.MoveMode.KeepAnchor)
        cursor.removeSelectedText()
        if self._frozen_end == 0:  # the open block was the first: reset the block it leaves behind
            cursor.setBlockFormat(type(cursor.blockFormat())())
            text_list = cursor.block().textList()
            if text_list is not None:
                text_list.remove(cursor.block())
        else:  # the block it leaves behind (after a table: the empty one) takes the removed block's format:
            cursor.setBlockFormat(self._frozen_format)  # give it its own back (a quote's tint beside a table)
        self.has_tail = False


class MarkdownView(QWidget):
    """Markdown that renders as it streams: ``append`` tokens, ``finish`` at the end (or ``set_markdown``).

    Signals:
        code_copied(str): a code block's Copy button was used.
    """

    code_copied = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("markdownView")
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self._layout.setSpacing(8)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self._stream = MarkdownStream()
        self._segments: list[ProseView | CodeBlock] = []
        self._tail_code: CodeBlock | None = None
        self._theme = Theme.from_palette(QApplication.palette(), QApplication.font().pointSizeF())
        self.finished = False
        self._queue: deque[Block] = deque()  # finished blocks not written yet (a burst larger than a frame)
        self._tail: Block | None = None
        self._tail_dirty = False
        self._drain_scheduled = False
        self._drain_timer: QTimer | None = None
        self._incoming = ""  # appended text not parsed yet

    # -- the public face --------------------------------------------------------------------------------

    @property
    def text(self) -> str:
        """The Markdown source so far."""
        return self._stream.source + self._incoming

    @property
    def pending(self) -> bool:
        """Whether text waits to be written: a burst is parsed and written over several turns of the event
        loop, ``FRAME_BUDGET_MS`` at a time, so that the window never stalls."""
        return bool(self._queue or self._incoming or self._tail_dirty) or (self.finished and not self._stream.finished)

    def append(self, text: str) -> None:
        if self.finished or not text:
            return
        self._incoming += text
        if not self._drain_scheduled:  # else a burst is being written: its next pass takes this text too
            self._drain()

    def finish(self) -> None:
        """The text is complete: write the open block as written (once)."""
        if self.finished:
            return
        self.finished = True
        # All of it, now: what the transcript shows once the run is over is the whole answer (find, copy and
        # the tests read it then). The controller hands a fast stream over in frame-sized pieces, so what is
        # left at the end is a pass or two.
        self._drain(budget_ms=None)

    def set_markdown(self, text: str) -> None:
        """Show ``text`` as a finished document (a stored answer), written at once."""
        self._reset()
        self._stream.source = text  # parsed once, as written, by ``finish``
        self.finished = True
        self.flush()

    def flush(self) -> None:
        """Write whatever waits, now."""
        self._drain(budget_ms=None)

    def segments(self) -> list[ProseView | CodeBlock]:
        return list(self._segments)

    def code_blocks(self) -> list[CodeBlock]:
        return [segment for segment in self._segments if isinstance(segment, CodeBlock)]

    def prose_views(self) -> list[ProseView]:
        return [segment for segment in self._segments if isinstance(segment, ProseView)]

    def toPlainText(self) -> str:
        parts = [s.code if isinstance(s, CodeBlock) else s.toPlainText() for s in self._segments]
        return "\n".join(part for part in parts if part)

    # -- building -----------------------------------------------------------------------------------------

    def _reset(self) -> None:
        for segment in self._segments:
            self._layout.removeWidget(segment)
            segment.deleteLater()
        self._segments = []
        self._tail_code = None
        self._stream = MarkdownStream()
        self.finished = False
        self._queue.clear()
        self._incoming = ""
        self._tail, self._tail_dirty = None, False

    def _drain(self, budget_ms: float | None = FRAME_BUDGET_MS) -> None:
        """Parse and write what waits, for at most ``budget_ms`` (``None``: all of it), then yield.

        A block that needs a new widget (a code block, or prose after code) costs a few ms to build, so it is
        placed only in the first half of a pass's budget. The rest of a burst waits for the next pass, which a
        timer starts after the event loop has laid out and painted what this one wrote (a zero-time call would
        run in the same turn of the loop, before the paint, and the stalls would add up). Text appended while a
        pass is due waits for it."""
        self._drain_scheduled = False
        start = time.perf_counter()
        deadline = None if budget_ms is None else start + budget_ms / 1000
        half = None if budget_ms is None else start + budget_ms / 2000  # past it, no new widget this pass
        while True:
            if self._queue:
                if half is not None and time.perf_counter() > half and self._needs_widget(self._queue[0]):
                    self._schedule_drain()
                    return
                self._place(self._queue.popleft(), final=True)
            elif self._incoming:  # parse a bounded piece: the cost of a step never depends on the burst
                chunk, self._incoming = self._incoming[:PARSE_CHUNK], self._incoming[PARSE_CHUNK:]
                done, tail = self._stream.feed(chunk)
                self._queue.extend(done)
                self._tail, self._tail_dirty = tail, True
            elif self.finished and not self._stream.finished:
                self._queue.extend(self._stream.finish())
                self._tail, self._tail_dirty = None, True
            else:
                break
            if deadline is not None and time.perf_counter() > deadline and self.pending:
                self._schedule_drain()
                return
        if self._tail_dirty:
            late = half is not None and time.perf_counter() > half
            if late and self._tail is not None and self._needs_widget(self._tail):
                self._schedule_drain()
                return
            self._tail_dirty = False
            if self._tail is not None:
                self._place(self._tail, final=False)
            else:
                self._drop_tail()
            if self.finished and self._tail_code is not None:
                self._tail_code.closed = True
                self._tail_code = None

    def _needs_widget(self, block: Block) -> bool:
        """Whether placing ``block`` builds a new segment widget (the costly part of writing a block)."""
        if block.kind == "code":
            return self._tail_code is None
        return self._tail_code is not None or not (self._segments and isinstance(self._segments[-1], ProseView))

    def _schedule_drain(self) -> None:
        if not self._drain_scheduled:
            self._drain_scheduled = True
            if self._drain_timer is None:
                self._drain_timer = QTimer(self)
                self._drain_timer.setSingleShot(True)
                self._drain_timer.setInterval(DRAIN_DELAY_MS)
                self._drain_timer.timeout.connect(self._drain)
            self._drain_timer.start()

    def _last_prose(self) -> ProseView:
        last = self._segments[-1] if self._segments else None
        if isinstance(last, ProseView):
            return last
        view = ProseView(self._theme)
        self._add(view)
        return view

    def _add(self, widget: ProseView | CodeBlock) -> None:
        self._segments.append(widget)
        self._layout.insertWidget(len(self._segments) - 1, widget)  # before any footer a subclass adds

    def _drop_tail(self) -> None:
        if self._tail_code is not None:
            self._remove(self._tail_code)
            self._tail_code = None
        last = self._segments[-1] if self._segments else None
        if isinstance(last, ProseView):
            last.clear_tail()
            if last.is_empty:
                self._remove(last)

    def _remove(self, widget: ProseView | CodeBlock) -> None:
        self._segments.remove(widget)
        self._layout.removeWidget(widget)
        widget.deleteLater()

    def _place(self, block: Block, *, final: bool) -> None:
        if block.kind == "code":
            code = self._tail_code
            if code is None:
                self._drop_tail()
                code = CodeBlock(block.language, self._theme)
                code.copied.connect(self.code_copied)
                self._add(code)
            code.set_language(block.language)
            code.set_code(block.code)
            if final:
                code.closed = True
                self._tail_code = None
            else:
                self._tail_code = code
            return
        if self._tail_code is not None:  # what looked like code is prose after all
            self._remove(self._tail_code)
            self._tail_code = None
        prose = self._last_prose()
        if final:
            prose.add_finished(block)
        else:
            prose.set_tail(block)

    def changeEvent(self, event: QEvent) -> None:
        """The system switched between light and dark: write everything again in the new colours."""
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:
            theme = Theme.from_palette(QApplication.palette(), QApplication.font().pointSizeF())
            if theme != self._theme:
                self._theme = theme
                source, finished = self.text, self.finished
                self._reset()
                if finished:
                    self.set_markdown(source)
                elif source:
                    self.append(source)


__all__ = ["AutoHeightText", "MarkdownView", "ProseView"]
