"""docs/design.md states the tokens as the code has them: every colour role of both themes, the type scale,
the spacing scale and the durations (the page is the system in a page; a token changed in the code and not
on the page fails here)."""

from __future__ import annotations

import re
from dataclasses import fields
from pathlib import Path

from desktop_app.ui.theme.motion import DURATIONS
from desktop_app.ui.theme.tokens import THEMES, TYPE_SCALE, Colours, Spacing, scale_of

DOC = Path(__file__).resolve().parents[4] / "docs" / "design.md"
ROW = re.compile(r"^\| `([a-z-]+)` \| `(#[0-9a-f]{6})` \| `(#[0-9a-f]{6})` \|$", re.M)


def test_the_colour_table_is_the_tokens():
    rows = {name: (light, dark) for name, light, dark in ROW.findall(DOC.read_text(encoding="utf-8"))}
    expected = {
        f.name.replace("_", "-"): (getattr(THEMES["light"], f.name), getattr(THEMES["dark"], f.name))
        for f in fields(Colours)
    }
    assert rows == expected


def test_type_spacing_and_motion_are_stated_as_in_the_code():
    text = DOC.read_text(encoding="utf-8")
    for step in ("caption", "small", "body", "title", "display", "code"):
        assert re.search(rf"\| `{step}` \| {TYPE_SCALE[step]:g} \|", text), step
    headings = ", ".join(f"{TYPE_SCALE[f'h{n}']:g}" for n in range(1, 5))
    assert f"| {headings} |" in text
    assert "Spacing (px): " + ", ".join(str(v) for v in scale_of(Spacing).values()) in text
    for name, ms in DURATIONS.items():
        assert f"{ms} ms (`{name}`)" in text
    for picture in re.findall(r"\]\((screenshots/[^)]+)\)", text):
        assert (DOC.parent / picture).is_file(), picture
