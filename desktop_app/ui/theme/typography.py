"""Type: the scale (factors of the application font's size), the UI, reading and monospace font chains, and
the helpers that make fonts from them (``font_pt``, ``scaled_font``, ``tabular``, ``reading_font``,
``mono_font``). ``tokens`` re-exports all of it: import from ``desktop_app.ui.theme.tokens``."""

# Real annotations (no ``from __future__``), as in tokens.py: this loads before the first paint.
from types import MappingProxyType

from PySide6.QtGui import QFont, QFontDatabase, QGuiApplication

# The type scale: each step is a factor of the application font's size (Settings → Appearance → Font size).
TYPE_SCALE = MappingProxyType(
    {
        "caption": 0.85,
        "small": 0.92,
        "body": 1.0,
        "title": 1.35,
        "display": 1.6,
        "h1": 1.55,
        "h2": 1.3,
        "h3": 1.15,
        "h4": 1.05,
        "h5": 1.0,
        "h6": 0.95,
        "code": 0.95,
    }
)
MIN_POINT_SIZE = 7.0
DEFAULT_POINT_SIZE = 10.0

# Font chains: the first family each OS ships wins (Windows, macOS, GNOME, KDE/other Linux), then a generic.
UI_FONTS = ("Inter", "Segoe UI Variable Text", "Segoe UI", "SF Pro Text", ".AppleSystemUIFont", "Cantarell",
            "Noto Sans", "Ubuntu", "DejaVu Sans", "sans-serif")  # fmt: skip
READING_FONTS = ("Source Serif 4", "Charter", "Iowan Old Style", "Sitka Text", "Georgia", "Noto Serif",
                 "DejaVu Serif", "serif")  # fmt: skip
MONO_FONTS = ("JetBrains Mono", "Cascadia Mono", "SF Mono", "Menlo", "Consolas", "Source Code Pro",
              "Noto Sans Mono", "DejaVu Sans Mono", "monospace")  # fmt: skip
WEIGHT_SEMIBOLD = 600


_FAMILY_CACHE: dict[str, str] = {}


def first_installed(chain: tuple[str, ...], fallback: "QFontDatabase.SystemFont") -> str:
    """The first family of ``chain`` this system has, else the system's ``fallback`` font's family (asked once
    per chain per process: the font database costs about a millisecond)."""
    key = "|".join(chain)
    if key not in _FAMILY_CACHE:
        installed = set(QFontDatabase.families())
        found = next((family for family in chain if family in installed), None)
        _FAMILY_CACHE[key] = found or QFontDatabase.systemFont(fallback).family()
    return _FAMILY_CACHE[key]


def mono_family() -> str:
    """The monospace family for code: the first of ``MONO_FONTS`` installed, else the system's fixed font."""
    return first_installed(MONO_FONTS[:-1], QFontDatabase.SystemFont.FixedFont)


def reading_family() -> str:
    """The family for answers: the first of ``READING_FONTS`` installed, else the system's UI font."""
    return first_installed(READING_FONTS[:-1], QFontDatabase.SystemFont.GeneralFont)


def reading_font(base: QFont | None = None) -> QFont:
    """The answers' font: ``base`` (the application font) in the reading chain, the UI family last."""
    font = QFont(base if base is not None else QGuiApplication.font())
    font.setFamilies([*READING_FONTS[:-1], font.family()])
    font.setStyleHint(QFont.StyleHint.Serif)
    return font


def mono_font(step: str = "code") -> QFont:
    """The code font: the monospace chain at the type-scale ``step``."""
    font = QFont(QGuiApplication.font())
    font.setFamilies([mono_family()])
    font.setStyleHint(QFont.StyleHint.Monospace)
    font.setFixedPitch(True)
    font.setPointSizeF(font_pt(step))
    return font


def css_font_size(step: str) -> str:
    """``font-size:<n>pt`` for a type-scale ``step``, for rich text (``<b style='…'>``) and stylesheets."""
    return f"font-size:{font_pt(step)}pt"


def base_point_size() -> float:
    """The application font's size in points (the base of the type scale)."""
    size = QGuiApplication.font().pointSizeF() if QGuiApplication.instance() is not None else -1.0
    return size if size > 0 else DEFAULT_POINT_SIZE


def font_pt(step: str, base: float | None = None) -> float:
    """The size in points of a type-scale ``step`` (``caption``, ``small``, ``body``, ``title``, ``h1``…)."""
    return max(MIN_POINT_SIZE, round((base or base_point_size()) * TYPE_SCALE[step], 2))


def scaled_font(font: QFont, step: str) -> QFont:
    """A copy of ``font`` at the type-scale ``step``."""
    copy = QFont(font)
    copy.setPointSizeF(font_pt(step))
    return copy


def tabular(font: QFont) -> QFont:
    """A copy of ``font`` with tabular (equal-width) figures: the OpenType ``tnum`` feature, so numbers in a
    column or a changing counter line up and do not jiggle."""
    copy = QFont(font)
    copy.setFeature(QFont.Tag("tnum"), 1)
    return copy


__all__ = [
    "DEFAULT_POINT_SIZE",
    "MIN_POINT_SIZE",
    "MONO_FONTS",
    "READING_FONTS",
    "TYPE_SCALE",
    "UI_FONTS",
    "WEIGHT_SEMIBOLD",
    "base_point_size",
    "css_font_size",
    "first_installed",
    "font_pt",
    "mono_family",
    "mono_font",
    "reading_family",
    "reading_font",
    "scaled_font",
    "tabular",
]
