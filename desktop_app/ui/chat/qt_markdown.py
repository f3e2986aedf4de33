"""markdown-it tokens written straight into a ``QTextDocument`` with ``QTextCursor`` (no HTML round trip).

Qt's HTML import merges the first paragraph of an inserted fragment into the block before it and drops its
margins, so a block appended to a live document would lose its spacing. Writing the blocks ourselves keeps
one spacing scale and one line height for every block, whether it is written once (finished) or again on
every update (the open block), and costs only the size of the block written.

``Theme`` (``markdown_theme``) holds the colours and sizes (from the palette: light or dark). ``write_block``
appends one top-level block (its tokens) at the end of the document.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import (
    QBrush,
    QFont,
    QTextBlockFormat,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
    QTextFormat,
    QTextFrameFormat,
    QTextLength,
    QTextListFormat,
    QTextTable,
    QTextTableFormat,
)

from desktop_app.ui.chat.markdown_theme import Theme, monospace_family
from desktop_app.ui.theme.tokens import TYPE_SCALE

LINE_HEIGHT = 145  # percent
PARAGRAPH_GAP = 10  # px below a paragraph, list or table (the spacing scale: 4, 6, 10, 16)
HEADING_SCALE = {level: TYPE_SCALE[f"h{level}"] for level in range(1, 7)}  # the tokens' type scale
CELL_PADDING = 6
QUOTE_INDENT = 14  # px per quote level; the quote bar sits at the start of each level's indent
QUOTE_BAR_WIDTH = 3
QUOTE_DEPTH = QTextFormat.Property.UserProperty + 1
"""A block format property: how many quotes the block is in (``ProseView`` draws a bar per level)."""


def _monospace(fmt: QTextCharFormat) -> QTextCharFormat:
    fmt.setFontFixedPitch(True)
    fmt.setFontFamilies([monospace_family()])
    return fmt


class _Writer:
    """Writes one top-level block's tokens at ``cursor`` (the end of the document)."""

    def __init__(self, cursor: QTextCursor, theme: Theme, first: bool) -> None:
        self.cursor = cursor
        self.theme = theme
        self.need_new_block = not first  # the document's first block is reused, later ones are inserted
        self.char_stack: list[QTextCharFormat] = [QTextCharFormat()]
        self.lists: list[Any] = []  # open QTextList per nesting level (None until its first item)
        self.list_formats: list[QTextListFormat] = []
        self.quote_depth = 0
        self.in_item_first_paragraph = False
        self.continuing = False  # the next paragraph goes on from the block before, without a gap
        self.heading_level = 0
        self.table: QTextTable | None = None
        self.table_row = -1
        self.table_column = -1
        self.table_header_rows = 0

    # -- blocks ---------------------------------------------------------------------------------------

    def _block_format(self) -> QTextBlockFormat:
        fmt = QTextBlockFormat()
        fmt.setLineHeight(LINE_HEIGHT, QTextBlockFormat.LineHeightTypes.ProportionalHeight.value)
        fmt.setBottomMargin(PARAGRAPH_GAP)
        if self.quote_depth:  # indented, with a bar per level drawn by the view (no tint: it ran past the text)
            fmt.setLeftMargin(QUOTE_INDENT * self.quote_depth)
            fmt.setProperty(QUOTE_DEPTH, self.quote_depth)
        return fmt

    def _start_block(self, fmt: QTextBlockFormat) -> None:
        if self.table is not None:  # in a cell: its first block is there already, later ones are inserted
            if self.need_new_block:
                self.cursor.insertBlock(fmt, self._base_char_format())
            else:
                self.cursor.setBlockFormat(fmt)
            self.need_new_block = True
            return
        if self.need_new_block:
            self.cursor.insertBlock(fmt, self._base_char_format())
        else:
            self.cursor.setBlockFormat(fmt)
            self.cursor.setBlockCharFormat(self._base_char_format())
            self.cursor.setCharFormat(self._base_char_format())
        self.need_new_block = True

    def _base_char_format(self) -> QTextCharFormat:
        fmt = QTextCharFormat()
        if self.quote_depth:
            fmt.setForeground(QBrush(self.theme.muted))
        return fmt

    def paragraph(self, hidden: bool) -> None:
        if self.in_item_first_paragraph:  # the list item's block is its first paragraph
            self.in_item_first_paragraph = False
            return
        fmt = self._block_format()
        if self.continuing:
            self.continuing = False
            fmt.setTopMargin(0)
        if self.lists:
            fmt.setIndent(len(self.lists))
            if hidden:  # a tight list: no gap between its paragraphs
                fmt.setBottomMargin(2)
        if self.table is not None:
            fmt.setBottomMargin(0)
            fmt.setLineHeight(120, QTextBlockFormat.LineHeightTypes.ProportionalHeight.value)
            fmt.setAlignment(self._cell_alignment)
        self._start_block(fmt)

    def heading(self, level: int) -> None:
        fmt = self._block_format()
        fmt.setHeadingLevel(level)
        fmt.setTopMargin(14 if level <= 2 else 10)
        fmt.setBottomMargin(6)
        fmt.setLineHeight(120, QTextBlockFormat.LineHeightTypes.ProportionalHeight.value)
        self._start_block(fmt)
        char = QTextCharFormat(self._base_char_format())
        char.setFontWeight(QFont.Weight.Bold)
        if self.theme.base_point_size > 0:
            char.setFontPointSize(self.theme.base_point_size * HEADING_SCALE.get(level, 1.0))
        else:
            char.setProperty(QTextFormat.Property.FontSizeAdjustment, {1: 3, 2: 2, 3: 1}.get(level, 0))
        self.char_stack.append(char)

    def end_heading(self) -> None:
        self.char_stack.pop()

    def rule(self) -> None:
        fmt = self._block_format()
        fmt.setProperty(
            QTextFormat.Property.BlockTrailingHorizontalRulerWidth,
            QTextLength(QTextLength.Type.PercentageLength, 100),
        )
        self._start_block(fmt)

    def code(self, text: str) -> None:
        """Code inside a list or a quote (top-level code is a ``CodeBlock`` widget of its own)."""
        lines = text[:-1].split("\n") if text.endswith("\n") else text.split("\n")
        for index, line in enumerate(lines):
            fmt = self._block_format()
            fmt.setNonBreakableLines(True)
            fmt.setBackground(QBrush(self.theme.code_background))
            fmt.setLineHeight(115, QTextBlockFormat.LineHeightTypes.ProportionalHeight.value)
            fmt.setBottomMargin(PARAGRAPH_GAP if index == len(lines) - 1 else 0)
            if self.lists:
                fmt.setIndent(len(self.lists))
            self._start_block(fmt)
            char = QTextCharFormat(self._base_char_format())
            char.setFontFamilies([monospace_family()])
            self.cursor.insertText(line, char)

    # -- lists ----------------------------------------------------------------------------------------

    def open_list(self, ordered: bool, start: int) -> None:
        fmt = QTextListFormat()
        depth = len(self.lists) + 1
        if ordered:
            fmt.setStyle(QTextListFormat.Style.ListDecimal)
            fmt.setStart(start)
        else:
            fmt.setStyle(
                [QTextListFormat.Style.ListDisc, QTextListFormat.Style.ListCircle, QTextListFormat.Style.ListSquare][
                    (depth - 1) % 3
                ]
            )
        fmt.setIndent(depth)
        self.lists.append(None)
        self.list_formats.append(fmt)

    def close_list(self) -> None:
        self.lists.pop()
        self.list_formats.pop()
        self.in_item_first_paragraph = False

    def open_item(self, tight: bool) -> None:
        fmt = self._block_format()
        fmt.setBottomMargin(3 if tight else PARAGRAPH_GAP)
        self._start_block(fmt)
        current = self.lists[-1]
        if current is None:
            self.lists[-1] = self.cursor.createList(self.list_formats[-1])
        else:
            current.add(self.cursor.block())
        self.in_item_first_paragraph = True

    # -- tables ---------------------------------------------------------------------------------------

    def open_table(self, rows: int, columns: int, header_rows: int) -> None:
        fmt = QTextTableFormat()
        fmt.setBorderCollapse(True)
        fmt.setBorder(1)
        fmt.setBorderBrush(QBrush(self.theme.border))
        fmt.setBorderStyle(QTextFrameFormat.BorderStyle.BorderStyle_Solid)
        fmt.setCellSpacing(0)
        fmt.setCellPadding(CELL_PADDING)
        fmt.setHeaderRowCount(header_rows)
        fmt.setBottomMargin(PARAGRAPH_GAP)
        fmt.setTopMargin(2)
        if self.need_new_block:
            self.cursor.insertBlock(self._block_format(), self._base_char_format())
        else:
            self.cursor.setBlockFormat(self._block_format())
        self.table = self.cursor.insertTable(max(1, rows), max(1, columns), fmt)
        self.table_header_rows = header_rows
        self.table_row = -1

    def open_row(self) -> None:
        self.table_row += 1
        self.table_column = -1

    def open_cell(self, header: bool, style: str | None) -> None:
        assert self.table is not None
        self.table_column += 1
        if self.table_row >= self.table.rows() or self.table_column >= self.table.columns():
            self._cell_alignment = Qt.AlignmentFlag.AlignLeft
            return
        cell = self.table.cellAt(self.table_row, self.table_column)
        self.cursor = cell.firstCursorPosition()
        self.need_new_block = False
        self._cell_alignment = _alignment(style)
        if header:
            cell_format = cell.format()
            cell_format.setBackground(QBrush(self.theme.header_background))
            cell.setFormat(cell_format)
            bold = QTextCharFormat(self._base_char_format())
            bold.setFontWeight(QFont.Weight.Bold)
            self.char_stack.append(bold)
        else:
            self.char_stack.append(QTextCharFormat(self._base_char_format()))
        self.paragraph(hidden=False)

    def close_cell(self) -> None:
        if len(self.char_stack) > 1:
            self.char_stack.pop()

    def close_table(self) -> None:
        assert self.table is not None
        self.cursor.setPosition(self.table.lastPosition() + 1)
        self.table = None
        self.need_new_block = True

    _cell_alignment: Qt.AlignmentFlag = Qt.AlignmentFlag.AlignLeft

    # -- inline ---------------------------------------------------------------------------------------

    def inline(self, children: list[Any]) -> None:
        for child in children:
            kind = child.type
            if kind == "text":
                self.cursor.insertText(child.content, self.char_stack[-1])
            elif kind == "softbreak":
                self.cursor.insertText(" ", self.char_stack[-1])
            elif kind == "hardbreak":
                self.cursor.insertText("\u2028", self.char_stack[-1])
            elif kind == "code_inline":
                fmt = QTextCharFormat(self.char_stack[-1])
                fmt.setFontFamilies([monospace_family()])
                fmt.setBackground(QBrush(self.theme.code_background))
                self.cursor.insertText(child.content, fmt)
            elif kind in ("strong_open", "em_open", "s_open", "link_open"):
                fmt = QTextCharFormat(self.char_stack[-1])
                if kind == "strong_open":
                    fmt.setFontWeight(QFont.Weight.Bold)
                elif kind == "em_open":
                    fmt.setFontItalic(True)
                elif kind == "s_open":
                    fmt.setFontStrikeOut(True)
                else:
                    href = str(child.attrGet("href") or "")
                    fmt.setAnchor(True)
                    fmt.setAnchorHref(href)
                    fmt.setForeground(QBrush(self.theme.link))
                    fmt.setToolTip(href)
                self.char_stack.append(fmt)
            elif kind in ("strong_close", "em_close", "s_close", "link_close"):
                if len(self.char_stack) > 1:
                    self.char_stack.pop()
            elif kind == "image":
                fmt = QTextCharFormat(self.char_stack[-1])
                src = str(child.attrGet("src") or "")
                fmt.setAnchor(True)
                fmt.setAnchorHref(src)
                fmt.setForeground(QBrush(self.theme.link))
                alt = "".join(grand.content for grand in (child.children or [])) or src
                self.cursor.insertText(f"🖼 {alt}", fmt)
            elif child.content:
                self.cursor.insertText(child.content, self.char_stack[-1])


def _alignment(style: str | None) -> Qt.AlignmentFlag:
    if style and "right" in style:
        return Qt.AlignmentFlag.AlignRight
    if style and "center" in style:
        return Qt.AlignmentFlag.AlignHCenter
    return Qt.AlignmentFlag.AlignLeft


def _table_shape(tokens: list[Any], start: int) -> tuple[int, int, int]:
    """(rows, columns, header rows) of the table opening at ``tokens[start]``."""
    rows = columns = header = 0
    depth = 0
    in_head = False
    cells = 0
    for token in tokens[start:]:
        if token.type == "table_open":
            depth += 1
        elif token.type == "table_close":
            depth -= 1
            if depth == 0:
                break
        elif depth == 1:
            if token.type == "thead_open":
                in_head = True
            elif token.type == "thead_close":
                in_head = False
            elif token.type == "tr_open":
                rows += 1
                header += 1 if in_head else 0
                cells = 0
            elif token.type in ("th_open", "td_open"):
                cells += 1
                columns = max(columns, cells)
    return rows, columns, header


def write_block(document: QTextDocument, tokens: list[Any], theme: Theme, *, continues: bool = False) -> None:
    """Append one top-level block (markdown-it tokens) at the end of ``document``; ``continues``: a paragraph
    that goes on from the document's last block (a long paragraph cut while it streamed)."""
    cursor = QTextCursor(document)
    cursor.movePosition(QTextCursor.MoveOperation.End)
    first = document.characterCount() <= 1
    writer = _Writer(cursor, theme, first)
    if continues and not first:
        # Qt lays a block out whole on every change, so a long paragraph goes on in a new block, set flush
        # against the one before (no gap): each update costs the new block only.
        joined = QTextBlockFormat()
        joined.setBottomMargin(0)
        cursor.mergeBlockFormat(joined)
        writer.continuing = True
    tight_stack: list[bool] = []
    for index, token in enumerate(tokens):
        kind = token.type
        if kind == "paragraph_open":
            writer.paragraph(hidden=token.hidden)
        elif kind == "heading_open":
            writer.heading(int(token.tag[1:]) if token.tag[1:].isdigit() else 1)
        elif kind == "heading_close":
            writer.end_heading()
        elif kind == "inline":
            writer.inline(token.children or [])
        elif kind in ("bullet_list_open", "ordered_list_open"):
            start = token.attrGet("start")
            writer.open_list(kind == "ordered_list_open", int(start) if start is not None else 1)
            tight_stack.append(_is_tight(tokens, index))
        elif kind in ("bullet_list_close", "ordered_list_close"):
            writer.close_list()
            if tight_stack:
                tight_stack.pop()
        elif kind == "list_item_open":
            writer.open_item(tight_stack[-1] if tight_stack else True)
        elif kind == "blockquote_open":
            writer.quote_depth += 1
        elif kind == "blockquote_close":
            writer.quote_depth -= 1
        elif kind in ("fence", "code_block"):
            writer.code(token.content)
        elif kind == "hr":
            writer.rule()
        elif kind == "table_open":
            rows, columns, header = _table_shape(tokens, index)
            writer.open_table(rows, columns, header)
        elif kind == "tr_open":
            writer.open_row()
        elif kind in ("th_open", "td_open"):
            writer.open_cell(kind == "th_open", token.attrGet("style"))
        elif kind in ("th_close", "td_close"):
            writer.close_cell()
        elif kind == "table_close":
            writer.close_table()
        elif kind == "html_block":
            writer.paragraph(hidden=False)
            writer.cursor.insertText(token.content.rstrip("\n"), writer.char_stack[-1])


def _is_tight(tokens: list[Any], start: int) -> bool:
    """markdown-it hides the paragraphs of a tight list: the first paragraph inside tells."""
    for token in tokens[start + 1 :]:
        if token.type == "paragraph_open":
            return bool(token.hidden)
        if token.type in ("bullet_list_close", "ordered_list_close"):
            break
    return True


def quote_bars(document: QTextDocument) -> list[tuple[float, float, float, float]]:
    """Where the quote bars go, in document coordinates: ``(x, y, width, height)`` per level of each run of
    quoted blocks (a run's bar is one rectangle, from its first line to its last, not into the gap below)."""
    layout = document.documentLayout()
    margin = document.documentMargin()
    bars: list[tuple[float, float, float, float]] = []
    open_runs: dict[int, float] = {}  # level -> top of its run
    last_bottom: dict[int, float] = {}
    block = document.begin()
    while True:
        depth = block.blockFormat().intProperty(QUOTE_DEPTH) if block.isValid() else 0
        for level in sorted(open_runs):
            if level > depth:  # the run of this level ended at the block before
                top = open_runs.pop(level)
                x = margin + QUOTE_INDENT * (level - 1) + 2
                bars.append((x, top, QUOTE_BAR_WIDTH, last_bottom[level] - top))
        if not block.isValid():
            return bars
        if depth:
            rect = layout.blockBoundingRect(block)  # the lines, without the margins
            lines = block.layout()
            last = lines.lineAt(lines.lineCount() - 1) if lines.lineCount() else None
            bottom = rect.top() + last.y() + last.height() if last is not None else rect.bottom()
            for level in range(1, depth + 1):
                open_runs.setdefault(level, rect.top())
                last_bottom[level] = max(rect.bottom(), bottom)
        block = block.next()


__all__ = ["QUOTE_DEPTH", "quote_bars", "write_block"]
