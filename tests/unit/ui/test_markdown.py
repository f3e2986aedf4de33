"""A finished answer's markdown: code in a framed, highlighted block; tables aligned, with a header row.

The checks read plain values (formats, texts) in helpers and keep no ``QTextFrame`` wrapper beyond them:
a wrapper that outlives its document can crash a later test.
"""

from __future__ import annotations

import pytest
from PySide6.QtGui import QColor, QPalette, QTextDocument, QTextTable

from desktop_app.ui.chat.blocks import AnswerBlock
from desktop_app.ui.chat.markdown import is_dark, render_markdown

ANSWER = """Here is how:

```python
def utc_now() -> str:
    return "now"  # a comment
```

| Zone | Offset |
|------|-------:|
| UTC  | +00:00 |
"""


def _code_frames(document: QTextDocument) -> list[tuple[int, str, QColor, QColor]]:
    """(border, first line, colour of its second character, background) of each code frame."""
    out = []
    for frame in document.rootFrame().childFrames():
        if isinstance(frame, QTextTable):
            continue
        fmt = frame.frameFormat()
        cursor = frame.firstCursorPosition()
        first_line = cursor.block().text()
        cursor.setPosition(cursor.position() + 1)
        out.append((int(fmt.border()), first_line, cursor.charFormat().foreground().color(), fmt.background().color()))
    return out


def _tables(document: QTextDocument) -> list[tuple[int, str]]:
    """(header rows, text of the first cell's first line) of each table."""
    out = []
    for frame in document.rootFrame().childFrames():
        if isinstance(frame, QTextTable):
            out.append((frame.format().headerRowCount(), frame.cellAt(0, 0).firstCursorPosition().block().text()))
    return out


def test_a_code_block_is_framed_and_its_tokens_coloured(qtbot):
    pytest.importorskip("pygments")
    block = AnswerBlock()
    qtbot.addWidget(block)
    block.append(ANSWER)
    block.finish()
    [(border, first_line, keyword, _background)] = _code_frames(block.document())
    assert border == 1
    assert first_line == "def utc_now() -> str:"
    assert keyword.isValid() and keyword != block.palette().color(QPalette.ColorRole.Text)


def test_a_table_has_a_header_row_and_no_empty_first_paragraph(qtbot):
    block = AnswerBlock()
    qtbot.addWidget(block)
    block.append(ANSWER)
    block.finish()
    assert _tables(block.document()) == [(1, "Zone")]  # Qt's importer put an empty line before "Zone"


def test_code_colours_follow_a_dark_palette(qtbot):
    dark = QPalette()
    dark.setColor(QPalette.ColorRole.Base, QColor("#1e1e1e"))
    assert is_dark(dark)
    block = AnswerBlock()
    qtbot.addWidget(block)
    render_markdown(block.document(), "```python\nreturn 1\n```\n", dark)
    [(_border, _line, _colour, background)] = _code_frames(block.document())
    assert background == QColor("#1e1e1e")
