"""The colours and fonts rendered Markdown uses, from the widget's palette so that they follow light and dark:
:class:`Theme` (text, links, code and quote backgrounds, borders), :func:`is_dark`, and the monospace family
code is set in (the theme tokens' chain, asked once per process). ``qt_markdown`` writes with them and
``markdown_view`` draws with them.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtGui import QColor, QPalette

from desktop_app.ui.theme.tokens import mono_family


def is_dark(palette: QPalette) -> bool:
    return palette.color(QPalette.ColorRole.Base).lightness() < 128


@dataclass(frozen=True)
class Theme:
    """Colours for rendered Markdown, taken from a palette so that they follow light and dark."""

    text: QColor
    muted: QColor
    link: QColor
    code_background: QColor
    quote_background: QColor
    quote_bar: QColor
    border: QColor
    header_background: QColor
    dark: bool
    base_point_size: float

    @classmethod
    def from_palette(cls, palette: QPalette, base_point_size: float = 0.0) -> Theme:
        dark = is_dark(palette)
        base = palette.color(QPalette.ColorRole.Base)
        text = palette.color(QPalette.ColorRole.Text)
        tint = QColor(text)
        tint.setAlphaF(0.07 if not dark else 0.10)
        return cls(
            text=text,
            muted=palette.color(QPalette.ColorRole.PlaceholderText),
            link=palette.color(QPalette.ColorRole.Link),
            code_background=_blend(base, text, 0.06 if not dark else 0.09),
            quote_background=_blend(base, text, 0.035 if not dark else 0.06),
            quote_bar=_blend(base, text, 0.3 if not dark else 0.35),
            border=_blend(base, text, 0.18),
            header_background=_blend(base, text, 0.05 if not dark else 0.08),
            dark=dark,
            base_point_size=base_point_size,
        )


def _blend(base: QColor, over: QColor, amount: float) -> QColor:
    return QColor(
        round(base.red() + (over.red() - base.red()) * amount),
        round(base.green() + (over.green() - base.green()) * amount),
        round(base.blue() + (over.blue() - base.blue()) * amount),
    )


_MONOSPACE: list[str] = []


def monospace_family() -> str:
    if not _MONOSPACE:  # the tokens' monospace chain (asked once per process)
        _MONOSPACE.append(mono_family())
    return _MONOSPACE[0]
