"""The design tokens: every colour, font, size, space, radius and elevation the UI uses, defined once.

Usage (the only place colours and sizes come from; no ``#rrggbb``, ``rgb(``, ``QColor("…")``, named
colour or font size anywhere else under ``desktop_app/ui`` — ``tests/unit/ui/theme/test_no_literals.py``)::

    from desktop_app.ui.theme.tokens import tokens, SPACE, RADIUS, font_pt

    t = tokens()                      # the theme in force (light or dark), read-only tokens
    label.setText(f"<span style='color:{t.danger}'>…</span>")       # colours are "#rrggbb" strings
    painter.setPen(t.qcolor("text_muted"))                           # … or QColors by role name
    layout.setSpacing(SPACE.sm)       # the 4/8 px spacing scale
    font.setPointSizeF(font_pt("small"))                             # the type scale, from the app font

Prefer the application stylesheet (``theme/stylesheet.py``, built once per theme from these tokens) with an
``objectName`` or a dynamic property (``role="muted"``, ``tone="danger"``…) over a per-widget
``setStyleSheet``; a colour read in Python (HTML, painters) follows a theme switch only when it is read again
(``tokens()`` at paint or render time, not at import).

Both themes fill the same roles (``Colours``), so a widget never asks which theme it is in. The contrast of
every text role on its surfaces (≥ 4.5:1) and of every boundary and focus ring (≥ 3:1) is checked
(``test_contrast.py``).
"""

# No ``from __future__ import annotations`` here: with string annotations, defining the 37-field ``Colours``
# dataclass costs ~3 ms more (each field's annotation is parsed for ClassVar), and these tokens load before the
# first paint.

from dataclasses import dataclass, fields
from types import MappingProxyType
from typing import Literal

from PySide6.QtGui import QColor, QGuiApplication

from desktop_app.ui.theme.typography import (
    MONO_FONTS,
    READING_FONTS,
    TYPE_SCALE,
    UI_FONTS,
    base_point_size,
    css_font_size,
    first_installed,
    font_pt,
    mono_family,
    mono_font,
    reading_family,
    reading_font,
    scaled_font,
    tabular,
)

ThemeName = Literal["light", "dark"]


@dataclass(frozen=True)
class Colours:
    """Colour roles, one ``#rrggbb`` string each. The doc names use hyphens (``surface-raised``)."""

    surface: str  # the window and its side panels
    surface_page: str  # the reading page (transcript, inputs)
    surface_raised: str  # cards, menus, tooltips, the composer field
    surface_sunken: str  # code blocks
    surface_alt: str  # headers inside a card, alternate rows
    surface_disabled: str  # a disabled control's fill
    control: str  # a button's fill
    hover: str  # a control or row under the pointer
    pressed: str  # a control held down
    selection: str  # the selected row or text
    user_turn: str  # the user's turn in the transcript
    user_turn_border: str
    text: str
    text_muted: str  # secondary text, captions, placeholders
    text_disabled: str  # disabled controls (WCAG exempts them; still visibly different from ``text``)
    border: str  # a control's boundary (inputs, buttons, check boxes): ≥ 3:1 on its surface
    divider: str  # decorative lines between regions (no contrast requirement)
    accent: str  # the primary action, the selected state's mark
    accent_hover: str
    accent_text: str  # text on ``accent``
    focus_ring: str  # the keyboard focus ring: ≥ 3:1 on every surface
    focus_ring_on_accent: str  # the ring around an accent-filled control
    link: str
    danger: str  # errors, destructive actions (as text)
    danger_surface: str  # an error banner's fill
    danger_text: str  # text on ``danger_surface``
    warning: str
    warning_surface: str
    warning_text: str
    success: str
    match: str  # find-in-chat: every match
    match_current: str  # … the current one
    match_text: str  # text on either
    scrollbar: str
    scrollbar_hover: str
    shadow: str  # elevation's shadow colour (drawn with ``Elevation.alpha``)
    brand: str  # the bolt in the app mark


LIGHT = Colours(
    surface="#f6f7f9",
    surface_page="#ffffff",
    surface_raised="#ffffff",
    surface_sunken="#f6f8fa",
    surface_alt="#eef1f4",
    surface_disabled="#f6f7f9",
    control="#f3f4f6",
    hover="#e9ecf0",
    pressed="#dfe3e8",
    selection="#dde7f7",
    user_turn="#eef3fb",
    user_turn_border="#d6e2f5",
    text="#1f2328",
    text_muted="#636c76",
    text_disabled="#a8b0b9",
    border="#848d97",
    divider="#d8dee4",
    accent="#2f6fde",
    accent_hover="#255fc4",
    accent_text="#ffffff",
    focus_ring="#2f6fde",
    focus_ring_on_accent="#1f2328",
    link="#0969da",
    danger="#b42318",
    danger_surface="#fde4e3",
    danger_text="#a11d19",
    warning="#8a5c00",
    warning_surface="#fdf0cc",
    warning_text="#6b4400",
    success="#1a7f37",
    match="#f7d86a",
    match_current="#f59e3b",
    match_text="#1f2328",
    scrollbar="#c9d0d8",
    scrollbar_hover="#aab3bd",
    shadow="#000000",
    brand="#e8930c",
)
DARK = Colours(
    surface="#1b1d21",
    surface_page="#202226",
    surface_raised="#262930",
    surface_sunken="#17191c",
    surface_alt="#1f2226",
    surface_disabled="#1f2125",
    control="#2a2d33",
    hover="#30343b",
    pressed="#383c44",
    selection="#2d3a50",
    user_turn="#2a3446",
    user_turn_border="#354259",
    text="#e6e8eb",
    text_muted="#9aa1ab",
    text_disabled="#5d636c",
    border="#767e89",
    divider="#373b42",
    accent="#336fd1",
    accent_hover="#2a63c0",
    accent_text="#ffffff",
    focus_ring="#5b93ee",
    focus_ring_on_accent="#e6e8eb",
    link="#6ea8ff",
    danger="#ff7b72",
    danger_surface="#4d1f1e",
    danger_text="#ffb4b0",
    warning="#e3b341",
    warning_surface="#4a3a12",
    warning_text="#f5d58a",
    success="#56d364",
    match="#f7d86a",
    match_current="#f59e3b",
    match_text="#1f2328",
    scrollbar="#454a52",
    scrollbar_hover="#5a6069",
    shadow="#000000",
    brand="#e8930c",
)

# Code colours (Pygments token types → colour, italic), readable on ``surface_sunken`` (≥ 4.5:1).
SYNTAX: MappingProxyType[str, MappingProxyType[str, tuple[str, bool]]] = MappingProxyType(
    {
        "light": MappingProxyType(
            {
                "Comment": ("#5e6772", True),
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
        ),
        "dark": MappingProxyType(
            {
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
        ),
    }
)


class Spacing:
    """The 4/8 px spacing scale (px). Plain class attributes, not a dataclass: the tokens load before the
    first paint, and each dataclass costs about a millisecond to define."""

    none = 0
    xxs = 2
    xs = 4
    sm = 8
    md = 12
    lg = 16
    xl = 24
    xxl = 32


class Radii:
    """Corner radii (px): small controls, fields and buttons, cards, the composer and bubbles."""

    sm = 4
    md = 8
    lg = 12
    xl = 16


class Elevation:
    """A level of elevation: a border only (0, 1) or a soft shadow (2: menus, popups, the quick prompt)."""

    __slots__ = ("alpha", "blur", "offset")

    def __init__(self, blur: int, offset: int, alpha: float) -> None:
        self.blur, self.offset, self.alpha = blur, offset, alpha


def scale_of(cls: type) -> dict[str, int]:
    """A scale class's steps in order (``scale_of(Spacing)`` → ``{"none": 0, "xxs": 2, …}``)."""
    return {name: value for name, value in vars(cls).items() if isinstance(value, int) and not name.startswith("_")}


SPACE = Spacing()
RADIUS = Radii()
ELEVATION = MappingProxyType({0: Elevation(0, 0, 0.0), 1: Elevation(0, 0, 0.0), 2: Elevation(16, 2, 0.18)})
BORDER_WIDTH = 1
FOCUS_WIDTH = 2  # the focus ring replaces a 1 px border with 2 px (padding shrinks by 1: nothing moves)


class Tokens:
    """The tokens of one theme: ``name``, ``colours`` (a ``Colours``), ``syntax``; ``t.danger`` is
    ``t.colours.danger``."""

    __slots__ = ("colours", "name", "syntax")

    def __init__(self, name: ThemeName, colours: Colours, syntax: MappingProxyType[str, tuple[str, bool]]) -> None:
        self.name, self.colours, self.syntax = name, colours, syntax

    def __getattr__(self, role: str) -> str:  # only called for names that are not slots: the colour roles
        return str(getattr(self.colours, role))

    def qcolor(self, role: str, alpha: float = 1.0) -> QColor:
        colour = QColor(getattr(self.colours, role))
        if alpha < 1.0:
            colour.setAlphaF(alpha)
        return colour

    def as_dict(self) -> dict[str, str]:
        return {f.name: getattr(self.colours, f.name) for f in fields(Colours)}


THEMES: MappingProxyType[str, Tokens] = MappingProxyType(
    {
        "light": Tokens("light", LIGHT, SYNTAX["light"]),
        "dark": Tokens("dark", DARK, SYNTAX["dark"]),
    }
)


def current_theme() -> ThemeName:
    """The theme in force (the application's ``switchboardTheme`` property; light before any is applied)."""
    app = QGuiApplication.instance()
    name = app.property("switchboardTheme") if app is not None else None
    return "dark" if name == "dark" else "light"


def tokens(theme: str | None = None) -> Tokens:
    """The tokens of ``theme`` ("light"/"dark"), or of the theme in force."""
    return THEMES["dark" if (theme or current_theme()) == "dark" else "light"]


class Role(str):
    """A colour role as a string that formats as the theme in force: ``f"color: {ERROR_COLOR}"`` gives the
    danger colour of the current theme whenever the text is built (``str()``/``format()``); as a plain
    string (``QColor(role)``, concatenation) it is the light theme's value. For module constants that
    existing f-strings use (``chat.common.ERROR_COLOR``); new code calls ``tokens().<role>`` instead."""

    role: str

    def __new__(cls, role: str) -> "Role":
        made = super().__new__(cls, getattr(LIGHT, role))
        made.role = role
        return made

    def __str__(self) -> str:
        return str(getattr(tokens().colours, self.role))

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)

    def qcolor(self) -> QColor:
        return tokens().qcolor(self.role)


__all__ = [
    "BORDER_WIDTH",
    "DARK",
    "ELEVATION",
    "FOCUS_WIDTH",
    "LIGHT",
    "MONO_FONTS",
    "RADIUS",
    "READING_FONTS",
    "SPACE",
    "SYNTAX",
    "THEMES",
    "TYPE_SCALE",
    "UI_FONTS",
    "Colours",
    "Role",
    "Tokens",
    "base_point_size",
    "css_font_size",
    "current_theme",
    "first_installed",
    "font_pt",
    "mono_family",
    "mono_font",
    "reading_family",
    "reading_font",
    "scale_of",
    "scaled_font",
    "tabular",
    "tokens",
]
