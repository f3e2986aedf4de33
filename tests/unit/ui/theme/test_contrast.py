"""Contrast over the tokens, both themes (WCAG 2.2 AA, relative luminance): every text role ≥ 4.5:1 on each
surface it is drawn on, every control boundary and focus ring ≥ 3:1 against what surrounds it."""

from __future__ import annotations

import pytest

from desktop_app.ui.theme.tokens import THEMES, Tokens

TEXT_ON = {
    "text": ["surface", "surface_page", "surface_raised", "surface_sunken", "surface_alt", "control", "hover",
             "pressed", "selection", "user_turn"],
    "text_muted": ["surface", "surface_page", "surface_raised", "surface_sunken", "surface_alt", "user_turn",
                   "control"],
    "accent_text": ["accent", "accent_hover"],
    "link": ["surface_page", "surface_raised", "surface"],
    "danger": ["surface", "surface_page", "surface_raised", "control"],
    "warning": ["surface", "surface_page", "surface_raised"],
    "success": ["surface", "surface_page", "surface_raised"],
    "danger_text": ["danger_surface"],
    "warning_text": ["warning_surface"],
    "match_text": ["match", "match_current"],
}  # fmt: skip
BOUNDARY_ON = {
    "border": ["surface", "surface_page", "surface_raised"],
    "focus_ring": ["surface", "surface_page", "surface_raised", "control", "hover", "selection"],
    "focus_ring_on_accent": ["accent"],
    "accent": ["surface", "surface_page", "surface_raised"],
}


def luminance(hex_colour: str) -> float:
    """WCAG relative luminance of ``#rrggbb``."""
    channels = [int(hex_colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    r, g, b = (c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def ratio(a: str, b: str) -> float:
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def test_the_formula_matches_wcag_reference_values():
    assert ratio("#000000", "#ffffff") == pytest.approx(21.0)
    assert ratio("#777777", "#ffffff") == pytest.approx(4.48, abs=0.01)  # the classic just-failing grey


def _failures(t: Tokens, pairs: dict[str, list[str]], minimum: float) -> list[str]:
    return [
        f"{fg} on {bg}: {ratio(getattr(t, fg), getattr(t, bg)):.2f}"
        for fg, backgrounds in pairs.items()
        for bg in backgrounds
        if ratio(getattr(t, fg), getattr(t, bg)) < minimum
    ]


@pytest.mark.parametrize("name", ["light", "dark"])
def test_text_roles_reach_4_5_to_1_on_their_surfaces(name):
    assert _failures(THEMES[name], TEXT_ON, 4.5) == []


@pytest.mark.parametrize("name", ["light", "dark"])
def test_boundaries_and_the_focus_ring_reach_3_to_1(name):
    assert _failures(THEMES[name], BOUNDARY_ON, 3.0) == []


@pytest.mark.parametrize("name", ["light", "dark"])
def test_code_colours_reach_4_5_to_1_on_code_blocks(name):
    t = THEMES[name]
    low = {kind: round(ratio(colour, t.surface_sunken), 2) for kind, (colour, _) in t.syntax.items()}
    assert {k: v for k, v in low.items() if v < 4.5} == {}


def test_both_themes_fill_the_same_roles():
    assert THEMES["light"].as_dict().keys() == THEMES["dark"].as_dict().keys()
    assert all(v.startswith("#") and len(v) == 7 for t in THEMES.values() for v in t.as_dict().values())
