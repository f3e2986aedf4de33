"""Syntax colours for code blocks: Pygments tokens as Qt character formats, one palette per theme.

``CodeHighlighter`` is a ``QSyntaxHighlighter``: Qt re-colours only the lines that changed, so a code block
that grows while it streams costs the new lines, not the whole block. Each line is lexed on its own (a
string or comment that spans lines is coloured line by line); no language, no Pygments or no lexer for
the language: plain monospace.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Mapping
from typing import Any

from PySide6.QtGui import QColor, QSyntaxHighlighter, QTextCharFormat, QTextDocument

from desktop_app.ui.chat.markdown_theme import is_dark
from desktop_app.ui.theme.tokens import SYNTAX

log = logging.getLogger(__name__)

# Token colours for light and dark code blocks (the design tokens' syntax palettes): (colour, italic).
LIGHT_COLOURS = SYNTAX["light"]
DARK_COLOURS = SYNTAX["dark"]


def lexer_for(language: str) -> Any:
    """A Pygments lexer for a fence's language; ``None`` without a language or a match (guessing mislabels
    too much prose and output to be worth it). One lexer per language, shared: Pygments lexers keep no
    state between ``get_tokens`` calls, and looking one up by name costs ~7 ms."""
    if not language.strip():
        return None
    return _lexer(language.strip().lower())


@functools.lru_cache(maxsize=64)
def _lexer(language: str) -> Any:
    try:
        from pygments.lexers import get_lexer_by_name
        from pygments.util import ClassNotFound
    except ImportError:
        return None
    try:
        return get_lexer_by_name(language, stripnl=False, ensurenl=False)
    except ClassNotFound:
        return None


def _colour_for(token_type: Any, colours: Mapping[str, tuple[str, bool]]) -> tuple[str, bool] | None:
    while token_type is not None and len(token_type):
        name = ".".join(token_type)
        if name in colours:
            return colours[name]
        token_type = token_type.parent
    return None


class CodeHighlighter(QSyntaxHighlighter):
    """Colours a code document line by line with Pygments, in the light or the dark palette."""

    def __init__(self, document: QTextDocument, language: str, dark: bool) -> None:
        super().__init__(document)
        self.language = language
        self._lexer = lexer_for(language)
        self._colours = DARK_COLOURS if dark else LIGHT_COLOURS
        self._formats: dict[Any, QTextCharFormat | None] = {}

    def set_language(self, language: str) -> None:
        self.language = language
        self._lexer = lexer_for(language)
        self._formats.clear()
        self.rehighlight()

    def set_dark(self, dark: bool) -> None:
        colours = DARK_COLOURS if dark else LIGHT_COLOURS
        if colours is not self._colours:
            self._colours = colours
            self._formats.clear()
            self.rehighlight()

    def _format(self, token_type: Any) -> QTextCharFormat | None:
        if token_type not in self._formats:
            style = _colour_for(token_type, self._colours)
            fmt = None
            if style is not None:
                fmt = QTextCharFormat()
                fmt.setForeground(QColor(style[0]))
                fmt.setFontItalic(style[1])
            self._formats[token_type] = fmt
        return self._formats[token_type]

    def highlightBlock(self, text: str) -> None:
        if self._lexer is None or not text.strip():
            return
        try:
            tokens = list(self._lexer.get_tokens_unprocessed(text))
        except Exception as exc:  # a lexer bug must not cost the answer: show the line uncoloured
            log.warning("could not highlight a %s line: %s", self.language, exc)
            return
        for offset, token_type, value in tokens:
            fmt = self._format(token_type)
            if fmt is not None and value.strip():
                self.setFormat(offset, len(value), fmt)


__all__ = ["DARK_COLOURS", "LIGHT_COLOURS", "CodeHighlighter", "is_dark", "lexer_for"]
