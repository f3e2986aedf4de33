"""The design screenshots (issue 24): every scene the issue names, light and dark, at 800×600, 1400×900 and
1920×1080, is in docs/screenshots/ as a PNG of that pixel size, and the harness that takes them
(scripts/screenshot_design_scenes.py) takes exactly these. That every picture a page shows exists is
tests/unit/test_docs.py's link check (images are links too)."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SHOTS = REPO / "docs" / "screenshots"
SCENES = (
    "first-run",  # no provider: the welcome screen
    "empty",  # the main window before the first message
    "answer",  # a streamed answer with reasoning, a code block, a table and a quote
    "approval",  # a tool call waiting for approval
    "hook-changed",  # a call whose arguments a hook changed: the hook's notice
    "tools-panel",  # the Tools panel with a 70-tool server
    "servers-failed",  # the Servers panel with a failed server
    "settings",
    "quick-prompt",
    "error-retry",  # an error with Retry
)
SIZES = ((800, 600), (1400, 900), (1920, 1080))
THEMES = ("light", "dark")
PICTURES = [(scene, size, theme) for scene in SCENES for size in SIZES for theme in THEMES]
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
PNG_END = b"\x00\x00\x00\x00IEND\xaeB`\x82"


def png_size(path: Path) -> tuple[int, int]:
    """A PNG's width and height from its IHDR chunk, after checking the signature, the chunk's CRC and that the
    file ends with the IEND chunk (a cut-off file does not)."""
    data = path.read_bytes()
    head = data[:33]
    if len(head) < 33 or not head.startswith(PNG_SIGNATURE):
        raise ValueError(f"{path.name}: not a PNG")
    length, kind = struct.unpack(">I4s", head[8:16])
    if kind != b"IHDR" or length != 13:
        raise ValueError(f"{path.name}: no IHDR chunk first")
    (crc,) = struct.unpack(">I", head[29:33])
    if zlib.crc32(head[12:29]) != crc:
        raise ValueError(f"{path.name}: damaged IHDR chunk")
    if not data.endswith(PNG_END):
        raise ValueError(f"{path.name}: cut off (no IEND chunk at the end)")
    width, height = struct.unpack(">II", head[16:24])
    return width, height


@pytest.mark.parametrize(
    ("scene", "size", "theme"), PICTURES, ids=lambda v: "x".join(map(str, v)) if isinstance(v, tuple) else v
)
def test_every_scene_is_pictured_at_every_size_in_both_themes(scene: str, size: tuple[int, int], theme: str) -> None:
    path = SHOTS / f"{scene}-{size[0]}x{size[1]}-{theme}.png"
    assert path.is_file(), f"missing {path.relative_to(REPO)}: run scripts/screenshot_design_scenes.py"
    assert png_size(path) == size


def test_the_harness_takes_exactly_these_scenes() -> None:
    from scripts.screenshot_design_scenes import SCENES as TAKEN
    from scripts.screenshot_design_scenes import SIZES as TAKEN_SIZES
    from scripts.screenshot_design_scenes import THEMES as TAKEN_THEMES
    from scripts.screenshot_design_scenes import picture

    assert (TAKEN, TAKEN_SIZES, TAKEN_THEMES) == (SCENES, SIZES, THEMES)
    assert picture("answer", (800, 600), "dark") == SHOTS / "answer-800x600-dark.png"


def test_the_size_check_refuses_what_is_not_a_png_of_that_size(tmp_path: Path) -> None:
    not_png = tmp_path / "a.png"
    not_png.write_bytes(b"GIF89a" + bytes(40))
    with pytest.raises(ValueError, match="not a PNG"):
        png_size(not_png)
    body = struct.pack(">IIBBBBB", 800, 600, 8, 2, 0, 0, 0)
    good = tmp_path / "b.png"
    ihdr = struct.pack(">I", 13) + b"IHDR" + body + struct.pack(">I", zlib.crc32(b"IHDR" + body))
    good.write_bytes(PNG_SIGNATURE + ihdr + PNG_END)
    assert png_size(good) == (800, 600)
    cut = tmp_path / "d.png"
    cut.write_bytes(PNG_SIGNATURE + ihdr)
    with pytest.raises(ValueError, match="cut off"):
        png_size(cut)
    damaged = tmp_path / "c.png"
    damaged.write_bytes(good.read_bytes()[:20] + b"\xff" + good.read_bytes()[21:])
    with pytest.raises(ValueError, match="damaged"):
        png_size(damaged)
