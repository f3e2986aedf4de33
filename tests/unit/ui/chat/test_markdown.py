"""Live Markdown: an answer fed token by token already shows its structure mid-stream, never raw syntax;
finished blocks are written once; the end of the stream looks like the stream.

The checks read plain values (formats, texts) in helpers and keep no ``QTextFrame`` wrapper beyond them:
a wrapper that outlives its document can crash a later test.
"""

from __future__ import annotations

import re
from collections import Counter

import pytest
from PySide6.QtGui import QColor, QGuiApplication, QPalette, QTextDocument, QTextTable
from PySide6.QtWidgets import QApplication, QVBoxLayout, QWidget

from desktop_app.ui.chat.blocks import AnswerBlock
from desktop_app.ui.chat.code_block import CodeBlock
from desktop_app.ui.chat.markdown_theme import is_dark
from desktop_app.ui.chat.markdown_view import MarkdownView, ProseView
from desktop_app.ui.chat.md_stream import MarkdownStream, smooth

ANSWER = """## Setting the zone

Pick **one** of these:

- `UTC` for servers
- the *local* zone for people

| Zone | Offset |
|------|-------:|
| UTC  | +00:00 |
| CET  | +01:00 |

```python
def utc_now() -> str:
    return "now"  # a comment
```

That is all.
"""

RAW = re.compile(r"##|\|-|-\||```|\*\*|^\s*[-*] |`")


def _tokens(text: str, size: int = 4) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def _headings(document: QTextDocument) -> list[tuple[int, str]]:
    out = []
    block = document.begin()
    while block.isValid():
        if block.blockFormat().headingLevel():
            out.append((block.blockFormat().headingLevel(), block.text()))
        block = block.next()
    return out


def _list_items(document: QTextDocument) -> list[str]:
    out = []
    block = document.begin()
    while block.isValid():
        if block.textList() is not None:
            out.append(block.text())
        block = block.next()
    return out


def _tables(document: QTextDocument) -> list[tuple[int, int, str]]:
    """(header rows, columns, first cell text) of each table."""
    return [
        (frame.format().headerRowCount(), frame.columns(), frame.cellAt(0, 0).firstCursorPosition().block().text())
        for frame in document.rootFrame().childFrames()
        if isinstance(frame, QTextTable)
    ]


def _structure(view: MarkdownView) -> dict[str, list]:
    headings, items, tables, code = [], [], [], []
    for segment in view.segments():
        if isinstance(segment, ProseView):
            headings += _headings(segment.document())
            items += _list_items(segment.document())
            tables += _tables(segment.document())
        elif isinstance(segment, CodeBlock):
            code.append((segment.language, segment.code))
    return {"headings": headings, "items": items, "tables": tables, "code": code}


def test_structure_shows_mid_stream_and_no_raw_syntax_ever(qtbot, monkeypatch):
    finished_writes: Counter[str] = Counter()
    original = ProseView.add_finished

    def counting(self, block):
        finished_writes[block.source] += 1
        original(self, block)

    monkeypatch.setattr(ProseView, "add_finished", counting)
    view = AnswerBlock()
    qtbot.addWidget(view)
    view.resize(640, 400)
    view.show()
    fed = ""
    seen = set()
    for token in _tokens(ANSWER):
        view.append(token)
        qtbot.waitUntil(lambda: not view.pending)  # a slow machine may spread a step over two turns of the loop
        fed += token
        visible = view.toPlainText()
        assert not RAW.search(visible), f"raw Markdown visible after {fed!r}: {visible!r}"
        shape = _structure(view)
        if "## Setting" in fed:
            assert shape["headings"][:1] == [(2, fed.split("\n")[0][3:])] or shape["headings"][0][0] == 2
            seen.add("heading")
        if "- `UTC` for" in fed:
            assert shape["items"][:1] == ["UTC for servers"] or shape["items"][0].startswith("UTC")
            seen.add("list")
        if "| Zone | Offset |\n" in fed:  # the header row is complete: a table at once
            assert shape["tables"] and shape["tables"][0][:2] == (1, 2), (fed, shape)
            assert shape["tables"][0][2] == "Zone"
            seen.add("table")
        if "```python\ndef" in fed:  # an open fence is a code block at once
            assert shape["code"] and shape["code"][0][0] == "python"
            assert shape["code"][0][1].startswith("def")
            seen.add("code")
    assert seen == {"heading", "list", "table", "code"}
    before = (view.toPlainText(), [type(s).__name__ for s in view.segments()], _structure(view))
    view.finish()
    qtbot.waitUntil(lambda: not view.pending)
    after = (view.toPlainText(), [type(s).__name__ for s in view.segments()], _structure(view))
    assert after == before  # no jump at the end
    assert [type(s).__name__ for s in view.segments()] == ["ProseView", "CodeBlock", "ProseView"]
    # every finished block was written once and never again
    assert finished_writes and max(finished_writes.values()) == 1
    assert set(finished_writes) >= {"## Setting the zone\n\n", "Pick **one** of these:\n\n"}


def test_only_the_open_block_is_parsed_again():
    stream = MarkdownStream()
    stream.feed("# Title\n\nFirst paragraph.\n\nSecond")
    assert stream.source[stream.frozen :] == "Second"  # the heading and the first paragraph are done
    done, tail = stream.feed(" paragraph.\n\n- item")
    assert [b.source for b in done] == ["Second paragraph.\n\n"]
    assert tail is not None and tail.element == "ul"


@pytest.mark.parametrize(
    ("partial", "shown"),
    [
        ("Some **bol", "Some **bol**"),
        ("text **", "text"),
        ("a [link](https://ex", "a [link](https://ex)"),
        ("a [lin", "a lin"),
        ("run `ls -l", "run `ls -l`"),
        ("para\n--", "para\n"),  # a half-typed rule would turn the paragraph into a heading
        ("| a | b |\n", "| a | b |\n|---|---|\n"),
        ("| a | b |\n|--", "| a | b |\n|---|---|\n"),
        ("| a | b", ""),  # the header row is still being typed
        ("snake_case names", "snake_case names"),
        ("```py\nx = '**'", "```py\nx = '**'"),
    ],
)
def test_the_open_block_is_smoothed(partial, shown):
    assert smooth(partial) == shown


def _first_line_colours(code: CodeBlock) -> list[QColor]:
    ranges = code.text_view.document().firstBlock().layout().formats()
    return [QColor(r.format.foreground().color()) for r in ranges if r.format.foreground().style() != 0]


def test_a_code_block_has_a_language_header_copy_and_colours(qtbot):
    pytest.importorskip("pygments")
    view = AnswerBlock()
    qtbot.addWidget(view)
    view.set_markdown(ANSWER)
    [code] = view.code_blocks()
    assert code.language_label.text() == "python"
    assert code.text_view.lineWrapMode() == code.text_view.LineWrapMode.NoWrap  # scrolls, never cuts lines
    assert _first_line_colours(code)  # `def` coloured
    code.copy_button.click()
    assert QGuiApplication.clipboard().text() == 'def utc_now() -> str:\n    return "now"  # a comment'


def test_code_colours_follow_a_dark_palette(qtbot):
    pytest.importorskip("pygments")
    light = AnswerBlock()
    qtbot.addWidget(light)
    light.set_markdown("```python\nreturn 1\n```\n")
    light_colour = _first_line_colours(light.code_blocks()[0])
    dark = QPalette(QApplication.palette())
    dark.setColor(QPalette.ColorRole.Base, QColor("#1e1e1e"))
    dark.setColor(QPalette.ColorRole.Text, QColor("#e6e6e6"))
    assert is_dark(dark)
    previous = QApplication.palette()
    QApplication.setPalette(dark)
    try:
        view = AnswerBlock()
        qtbot.addWidget(view)
        view.set_markdown("```python\nreturn 1\n```\n")
        dark_colour = _first_line_colours(view.code_blocks()[0])
        assert dark_colour != light_colour
    finally:
        QApplication.setPalette(previous)


def test_links_open_in_the_system_browser(qtbot):
    view = MarkdownView()
    qtbot.addWidget(view)
    view.set_markdown("See [the docs](https://example.com/docs).")
    [prose] = view.prose_views()
    assert prose.openExternalLinks()  # QTextBrowser hands the URL to QDesktopServices
    assert "https://example.com/docs" in prose.document().toHtml()


def test_the_view_is_reusable_outside_the_transcript(qtbot):
    host = QWidget()  # e.g. the tray's quick prompt
    layout = QVBoxLayout(host)
    view = MarkdownView()
    layout.addWidget(view)
    qtbot.addWidget(host)
    for token in _tokens("# Quick\n\nAn answer with **bold**."):
        view.append(token)
    qtbot.waitUntil(lambda: not view.pending)  # tokens fed in one turn of the loop are written over a few frames
    assert _structure(view)["headings"] == [(1, "Quick")]
    assert view.toPlainText() == "Quick\nAn answer with bold."


QUOTED = """Before the quote.

> Keep the old file until the rename succeeded: a failed save then loses nothing, and the
> next start reads the old settings again.
>
> A second paragraph in the same quote.

After the quote.
"""


@pytest.mark.parametrize("dark", [False, True])
def test_a_blockquote_has_a_bar_down_its_left_side_and_nothing_else_does(qtbot, dark):
    from desktop_app.ui.theme import themes as theme

    app = QApplication.instance()
    palette, sheet = QApplication.palette(), app.styleSheet()
    theme.apply_theme("dark" if dark else "light")
    try:
        view = MarkdownView()
        qtbot.addWidget(view)
        view.resize(520, 300)
        view.set_markdown(QUOTED)
        view.show()
        qtbot.waitExposed(view)
        [prose] = view.prose_views()
        image = prose.grab().toImage()
        document = prose.document()
        tops = {}
        block = document.begin()
        while block.isValid():
            rect = document.documentLayout().blockBoundingRect(block)
            tops[block.text()[:6]] = (round(rect.top()), round(rect.bottom()))
            block = block.next()
        background = image.pixelColor(image.width() - 2, 1)
        quote_top, _ = tops["Keep t"]
        _, quote_bottom = tops["A seco"]
        bar_x = round(document.documentMargin()) + 3
        column = [image.pixelColor(bar_x, y) for y in range(quote_top + 1, quote_bottom - 1)]
        assert all(color == column[0] for color in column) and column[0] != background  # one unbroken bar
        assert abs(column[0].lightness() - background.lightness()) >= 40  # it reads against the page
        for outside in ("Before", "After "):  # beside unquoted text there is none
            top, bottom = tops[outside]
            assert image.pixelColor(bar_x, (top + bottom) // 2) != column[0]  # no bar (a glyph's stem may be there)
        quote_row = (quote_top + quote_bottom) // 2
        assert image.pixelColor(image.width() - 4, quote_row) == background  # no tint running past the text
    finally:
        app.setStyleSheet(sheet)
        QApplication.setPalette(palette)
        theme.uninstall()


TABLE_THEN_QUOTE = """Intro.

| channel | value |
|---|---|
| office | +44 20 7946 0000 |

> She prefers e-mail: write first.

End.
"""


def _block_looks(view: MarkdownView) -> list[tuple[str, float, int, object]]:
    document = view.prose_views()[0].document()
    looks = []
    block = document.begin()
    while block.isValid():
        fmt = block.blockFormat()
        looks.append((block.text(), fmt.leftMargin(), fmt.background().style(), fmt.bottomMargin()))
        block = block.next()
    return looks


def test_a_block_streamed_after_a_table_leaves_no_format_beside_it(qtbot):
    """While it streams, the open block after a table is rewritten on every update; the empty block Qt keeps
    after the table must not take its format (a quote's tint or indent showed as a grey strip by the table)."""
    streamed = MarkdownView()
    qtbot.addWidget(streamed)
    for start in range(0, len(TABLE_THEN_QUOTE), 5):
        streamed.append(TABLE_THEN_QUOTE[start : start + 5])
        qtbot.waitUntil(lambda: not streamed.pending)
    streamed.finish()
    qtbot.waitUntil(lambda: not streamed.pending)
    whole = MarkdownView()
    qtbot.addWidget(whole)
    whole.set_markdown(TABLE_THEN_QUOTE)
    assert _block_looks(streamed) == _block_looks(whole)
    after_table = [look for look in _block_looks(streamed) if look[0] == ""][-1]
    assert after_table[1] == 0  # the empty block after the table is not indented like the quote
