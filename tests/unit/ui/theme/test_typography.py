"""Typography from the tokens: the UI font chain on the application, the reading chain on answers, headings
h1-h4 on the type scale, code in the monospace chain, tabular figures where numbers line up (the usage
footer, the tools panel's count)."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QFont, QTextCursor
from PySide6.QtWidgets import QApplication

from desktop_app.runtime.settings import AppearanceSettings
from desktop_app.ui.chat.markdown_view import MarkdownView
from desktop_app.ui.chat.usage import UsageFooter
from desktop_app.ui.theme import appearance
from desktop_app.ui.theme import themes as theme
from desktop_app.ui.theme.tokens import (
    MONO_FONTS,
    READING_FONTS,
    TYPE_SCALE,
    UI_FONTS,
    font_pt,
    mono_family,
)
from desktop_app.ui.tools.panel import ToolPanel

TNUM = QFont.Tag("tnum")


@pytest.fixture
def restore_font(qapp):
    font, palette, sheet = QApplication.font(), QApplication.palette(), qapp.styleSheet()
    yield
    QApplication.setFont(font)
    QApplication.setPalette(palette)
    qapp.setStyleSheet(sheet)
    theme.uninstall()


def test_the_application_font_follows_the_ui_chain_and_the_chosen_size(qapp, restore_font):
    appearance.apply_appearance(AppearanceSettings(font_size=13))
    families = QApplication.font().families()
    assert families[: len(UI_FONTS) - 1] == list(UI_FONTS[:-1])  # Inter, Segoe UI, SF Pro, Cantarell, Noto…
    assert families[-1] == UI_FONTS[-1] == "sans-serif"
    assert QApplication.font().pointSize() == 13
    assert font_pt("body") == 13 and font_pt("h1") == pytest.approx(13 * TYPE_SCALE["h1"])


def test_answers_are_set_in_the_reading_chain_with_headings_on_the_scale(qtbot):
    view = MarkdownView()
    qtbot.addWidget(view)
    view.set_markdown("# One\n\n## Two\n\n### Three\n\n#### Four\n\nBody text.\n\n```python\nx = 1\n```\n")
    [prose] = view.prose_views()
    assert prose.font().families()[: len(READING_FONTS) - 1] == list(READING_FONTS[:-1])
    base = QApplication.font().pointSizeF()
    sizes = {}
    block = prose.document().begin()
    while block.isValid():
        cursor = QTextCursor(block)
        cursor.movePosition(QTextCursor.MoveOperation.EndOfBlock, QTextCursor.MoveMode.KeepAnchor)
        sizes[block.text()] = cursor.charFormat().fontPointSize()
        block = block.next()
    for level, text in enumerate(("One", "Two", "Three", "Four"), start=1):
        assert sizes[text] == pytest.approx(base * TYPE_SCALE[f"h{level}"], abs=0.01), text
    assert sizes["One"] > sizes["Two"] > sizes["Three"] > sizes["Four"] > base * 0.99
    [code] = view.code_blocks()
    assert code.text_view.font().family() == mono_family()
    assert code.text_view.font().pointSizeF() == pytest.approx(font_pt("code"), abs=0.01)
    assert mono_family() in MONO_FONTS or mono_family() == code.text_view.font().family()


def test_numbers_that_line_up_use_tabular_figures(qtbot):
    footer = UsageFooter()
    qtbot.addWidget(footer)
    assert footer.font().isFeatureSet(TNUM) and footer.font().featureValue(TNUM) == 1
    assert footer.font().pointSizeF() == pytest.approx(font_pt("caption"), abs=0.01)
    panel = ToolPanel()
    qtbot.addWidget(panel)
    assert panel.count_label.font().isFeatureSet(TNUM) and panel.tree.font().isFeatureSet(TNUM)
    from desktop_app.ui.chat.context_meter import ContextMeter

    meter = ContextMeter()
    qtbot.addWidget(meter)
    assert meter.font().isFeatureSet(TNUM)
