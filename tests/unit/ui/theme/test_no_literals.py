"""No colour or font-size literal under desktop_app/ui outside ui/theme: every colour and size comes from the
design tokens (desktop_app/ui/theme/tokens.py). Scans the source (AST): string constants holding ``#rrggbb``,
``rgb(``/``rgba(``, a named colour in a ``color:``/``background:`` declaration or a ``font-size``;
``QColor(<literal>)``; a named ``Qt.GlobalColor`` other than ``transparent``; ``setPointSize``/
``setPointSizeF``/``setPixelSize`` (use ``tokens.scaled_font``/``font_pt``)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

UI = Path(__file__).resolve().parents[4] / "desktop_app" / "ui"
THEME = UI / "theme"
ALLOWED: dict[str, str] = {}  # "path:line": why — empty: nothing needs an exception

HEX = re.compile(r"#[0-9a-fA-F]{3}(?:[0-9a-fA-F]{3})?(?:[0-9a-fA-F]{2})?\b")
RGB = re.compile(r"\brgba?\s*\(", re.I)
NAMED = re.compile(
    r"(?:color|background(?:-color)?|border(?:-[a-z]+)?)\s*:\s*[^;'\"]*?\b(red|green|blue|black|white|gray|grey|"
    r"yellow|orange|purple|navy|maroon|silver|darkgray|darkgrey|lightgray|lightgrey)\b",
    re.I,
)
FONT_SIZE = re.compile(r"font-size\s*:", re.I)
SIZE_SETTERS = {"setPointSize", "setPointSizeF", "setPixelSize"}


def _strings(tree: ast.AST) -> list[tuple[int, str]]:
    """Every str and bytes constant (SVG markup counts) with its line."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes)):
            value = node.value if isinstance(node.value, str) else node.value.decode("utf-8", "replace")
            found.append((node.lineno, value))
    return found


def _docstrings(tree: ast.AST) -> set[int]:
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                lines.add(first.value.lineno)
    return lines


def literals_in(path: Path) -> list[str]:
    """Every colour or font-size literal in ``path`` (``"line: what"``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docs = _docstrings(tree)
    found: list[str] = []
    for line, text in _strings(tree):
        if line in docs:
            continue
        for pattern, what in ((HEX, "hex colour"), (RGB, "rgb()"), (NAMED, "named colour"), (FONT_SIZE, "font-size")):
            match = pattern.search(text)
            if match:
                found.append(f"{line}: {what} {match.group(0)!r}")
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if name == "QColor" and node.args and all(isinstance(a, ast.Constant) for a in node.args):
                found.append(f"{node.lineno}: QColor literal")
            if name in SIZE_SETTERS:
                found.append(f"{node.lineno}: {name} (use tokens.scaled_font / font_pt)")
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Attribute)
            and node.value.attr == "GlobalColor"
            and node.attr not in ("transparent", "color0", "color1")
        ):
            found.append(f"{node.lineno}: Qt.GlobalColor.{node.attr}")
    return sorted(found, key=lambda hit: int(hit.split(":", 1)[0]))


def test_the_scan_finds_each_kind_of_literal(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text(
        "from PySide6.QtGui import QColor\nfrom PySide6.QtCore import Qt\n"
        "a = '#c62828'\nb = 'background: rgba(1, 2, 3, 0.5)'\nc = \"<span style='color:gray'>\"\n"
        "d = QColor('#fff')\ne = Qt.GlobalColor.red\nf = 'font-size: 11px'\nfont.setPointSizeF(3)\n"
        "ok = Qt.GlobalColor.transparent\nissue = 'see #42'\n",
        encoding="utf-8",
    )
    kinds = [line.split(": ", 1)[1].split(" ")[0] for line in literals_in(sample)]
    assert kinds == ["hex", "rgb()", "named", "hex", "QColor", "Qt.GlobalColor.red", "font-size", "setPointSizeF"]


def test_no_colour_or_font_size_literal_outside_the_theme_package():
    found = {
        f"{path.relative_to(UI)}:{hit}"
        for path in sorted(UI.rglob("*.py"))
        if THEME not in path.parents
        for hit in literals_in(path)
    }
    unexpected = sorted(hit for hit in found if hit.rsplit(":", 1)[0] not in ALLOWED)
    assert unexpected == [], "\n".join(unexpected)
