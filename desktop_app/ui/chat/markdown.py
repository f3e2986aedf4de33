"""Markdown for a finished answer: Qt's importer (one ``setMarkdown`` per message), then one pass that makes
code blocks and tables readable.

* Fenced and indented code blocks go into a tinted, bordered frame (colours from the palette, so they follow
  the light or dark theme) and get syntax colours from Pygments when it is installed (by the fence's
  language; no language, no Pygments or no lexer: plain monospace).
* Tables get collapsed borders, cell padding and a repeated header row, and lose the empty paragraph Qt's
  importer puts in front of the first header cell (it pushed that cell one line below the others).

Streaming never comes here: while an answer streams it is appended as plain text (STACK-NOTES §7).
"""

from __future__ import annotations

import logging
from typing import Any

from PySide6.QtGui import (
    QBrush,
    QColor,
    QFont,
    QPalette,
    QTextBlock,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
    QTextFormat,
    QTextFrameFormat,
    QTextLength,
    QTextTable,
    QTextTableFormat,
)

log = logging.getLogger(__name__)

# Token colours for light and dark backgrounds (GitHub's palettes): (colour, italic).
_LIGHT = {
    "Comment": ("#6e7781", True),
    "Keyword": ("#cf222e", False),
    "String": ("#0a3069", False),
    "Number": ("#0550ae", False),
    "Name.Builtin": ("#953800", False),
    "Name.Function": ("#8250df", False),
    "Name.Class": ("#8250df", False),
    "Name.Decorator": ("#8250df", False),
    "Name.Tag": ("#116329", False),
    "Name.Attribute": ("#0550ae", False),
    "Operator.Word": ("#cf222e", False),
    "Literal": ("#0550ae", False),
}
_DARK = {
    "Comment": ("#8b949e", True),
    "Keyword": ("#ff7b72", False),
    "String": ("#a5d6ff", False),
    "Number": ("#79c0ff", False),
    "Name.Builtin": ("#ffa657", False),
    "Name.Function": ("#d2a8ff", False),
    "Name.Class": ("#d2a8ff", False),
    "Name.Decorator": ("#d2a8ff", False),
    "Name.Tag": ("#7ee787", False),
    "Name.Attribute": ("#79c0ff", False),
    "Operator.Word": ("#ff7b72", False),
    "Literal": ("#79c0ff", False),
}
CODE_PADDING = 8
CODE_MARGIN = 6
CELL_PADDING = 5


def is_dark(palette: QPalette) -> bool:
    return palette.color(QPalette.ColorRole.Base).lightness() < 128


def render_markdown(document: QTextDocument, text: str, palette: QPalette) -> None:
    """Replace ``document`` with ``text`` rendered as markdown, with framed, highlighted code and tidy tables."""
    document.setMarkdown(text)
    # One edit block: the layout is updated once at the end, not after every format change (a long answer
    # in a shown widget otherwise re-lays out the whole document per merge).
    batch = QTextCursor(document)
    batch.beginEditBlock()
    try:
        for table in _tables(document):
            _style_table(table, palette)
        colours = _DARK if is_dark(palette) else _LIGHT
        for blocks in reversed(_code_runs(document)):  # from the end: framing a run moves what follows it
            _highlight(blocks, colours)
            _frame(document, blocks, palette)
    finally:
        batch.endEditBlock()


# -- tables -------------------------------------------------------------------------------------------------


def _tables(document: QTextDocument) -> list[QTextTable]:
    return [frame for frame in document.rootFrame().childFrames() if isinstance(frame, QTextTable)]


def _style_table(table: QTextTable, palette: QPalette) -> None:
    fmt: QTextTableFormat = table.format()
    fmt.setBorderCollapse(True)
    fmt.setBorder(1)
    fmt.setBorderBrush(QBrush(palette.color(QPalette.ColorRole.Mid)))
    fmt.setBorderStyle(QTextFrameFormat.BorderStyle.BorderStyle_Solid)
    fmt.setCellSpacing(0)
    fmt.setCellPadding(CELL_PADDING)
    fmt.setHeaderRowCount(1)
    fmt.setTopMargin(CODE_MARGIN)
    fmt.setBottomMargin(CODE_MARGIN)
    table.setFormat(fmt)
    header = QBrush(palette.color(QPalette.ColorRole.AlternateBase))
    for row in range(table.rows()):
        for column in range(table.columns()):
            cell = table.cellAt(row, column)
            _drop_leading_empty_block(cell.firstCursorPosition(), cell.lastPosition())
            cursor = cell.firstCursorPosition()
            cursor.setPosition(cell.lastPosition(), QTextCursor.MoveMode.KeepAnchor)
            block_format = cursor.blockFormat()
            block_format.setTopMargin(0)
            block_format.setBottomMargin(0)
            cursor.mergeBlockFormat(block_format)
            if row == 0:  # the importer leaves the first header cell regular: make the whole row bold
                bold = QTextCharFormat()
                bold.setFontWeight(QFont.Weight.Bold)
                cursor.mergeCharFormat(bold)
                cell_format = cell.format()
                cell_format.setBackground(header)
                cell.setFormat(cell_format)


def _drop_leading_empty_block(first: QTextCursor, last_position: int) -> None:
    """Qt's importer starts the first cell with an empty paragraph; merge it into the cell's text."""
    block = first.block()
    if block.length() == 1 and block.position() + block.length() <= last_position:
        first.deleteChar()


# -- code blocks --------------------------------------------------------------------------------------------


def _is_code(block: QTextBlock) -> bool:
    fmt = block.blockFormat()
    return fmt.hasProperty(QTextFormat.Property.BlockCodeFence) or fmt.nonBreakableLines()


def _language(block: QTextBlock) -> str:
    return block.blockFormat().stringProperty(QTextFormat.Property.BlockCodeLanguage)


def _code_runs(document: QTextDocument) -> list[list[QTextBlock]]:
    """Runs of consecutive code blocks in the top-level flow (not inside tables), each one code block."""
    runs: list[list[QTextBlock]] = []
    current: list[QTextBlock] = []
    block = document.begin()
    root = document.rootFrame()
    while block.isValid():
        if _is_code(block) and QTextCursor(block).currentFrame() == root:
            if current and _language(block) != _language(current[-1]):  # two fences back to back
                runs.append(current)
                current = []
            current.append(block)
        elif current:
            runs.append(current)
            current = []
        block = block.next()
    if current:
        runs.append(current)
    return runs


def _frame(document: QTextDocument, blocks: list[QTextBlock], palette: QPalette) -> None:
    fmt = QTextFrameFormat()
    fmt.setBackground(palette.color(QPalette.ColorRole.Base))
    fmt.setBorder(1)
    fmt.setBorderBrush(QBrush(palette.color(QPalette.ColorRole.Mid)))
    fmt.setBorderStyle(QTextFrameFormat.BorderStyle.BorderStyle_Solid)
    fmt.setPadding(CODE_PADDING)
    fmt.setTopMargin(0)  # Qt keeps an (empty) paragraph before a frame: that is the gap above
    fmt.setBottomMargin(CODE_MARGIN)
    fmt.setWidth(QTextLength(QTextLength.Type.PercentageLength, 100))
    cursor = QTextCursor(document)
    cursor.setPosition(blocks[0].position())
    last = blocks[-1]
    cursor.setPosition(last.position() + last.length() - 1, QTextCursor.MoveMode.KeepAnchor)
    cursor.insertFrame(fmt)  # moves the selected blocks into the frame


def _lexer(language: str) -> Any:
    """A Pygments lexer for a fence's language; ``None`` without Pygments, a language or a match (guessing
    mislabels too much prose and output to be worth it)."""
    if not language.strip():
        return None
    try:
        from pygments.lexers import get_lexer_by_name
        from pygments.util import ClassNotFound
    except ImportError:
        return None
    try:
        return get_lexer_by_name(language.strip().lower())
    except ClassNotFound:
        return None


def _colour_for(token_type: Any, colours: dict[str, tuple[str, bool]]) -> tuple[str, bool] | None:
    while token_type is not None and len(token_type):
        name = ".".join(token_type)
        if name in colours:
            return colours[name]
        token_type = token_type.parent
    return None


def _highlight(blocks: list[QTextBlock], colours: dict[str, tuple[str, bool]]) -> None:
    """Colour the tokens of one code block (its blocks are consecutive: one position per newline)."""
    code = "\n".join(block.text() for block in blocks)
    block_language = _language(blocks[0])
    lexer = _lexer(block_language)
    if lexer is None:
        return
    start = blocks[0].position()
    cursor = QTextCursor(blocks[0].document())
    try:
        tokens = list(lexer.get_tokens_unprocessed(code))
    except Exception as exc:  # a lexer bug must not cost the answer: show the code uncoloured
        log.warning("could not highlight a %s code block: %s", block_language or "guessed", exc)
        return
    for offset, token_type, value in tokens:
        style = _colour_for(token_type, colours)
        if style is None or not value.strip():
            continue
        colour, italic = style
        fmt = QTextCharFormat()
        fmt.setForeground(QColor(colour))
        if italic:
            fmt.setFontItalic(True)
        cursor.setPosition(start + offset)
        cursor.setPosition(start + offset + len(value), QTextCursor.MoveMode.KeepAnchor)
        cursor.mergeCharFormat(fmt)


__all__ = ["is_dark", "render_markdown"]
