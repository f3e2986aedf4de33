"""The README and the user guide (docs/): the README fits on a screen (at most 250 lines), and every relative
link in README.md and docs/**/*.md — pages, screenshots, examples, anchors into a page — resolves."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PAGES = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]
README_MAX_LINES = 250

LINK = re.compile(r"!?\[[^\]\n]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
FENCE = re.compile(r"^\s*```")


def prose(text: str) -> str:
    """The page without its fenced code blocks and inline code (a link there is an example, not a link)."""
    lines, inside = [], False
    for line in text.splitlines():
        if FENCE.match(line):
            inside = not inside
            continue
        if not inside:
            lines.append(re.sub(r"``[^`]*``|`[^`\n]*`", "", line))
    return "\n".join(lines)


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[`*_]", "", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    return {slug(m.group(1)) for m in re.finditer(r"^#{1,6}\s+(.+)$", prose(page.read_text("utf-8")), re.M)}


def relative_links(page: Path) -> list[str]:
    return [t for t in LINK.findall(prose(page.read_text("utf-8"))) if not re.match(r"^[a-z][a-z0-9+.-]*:", t)]


def test_the_readme_fits_on_a_screen() -> None:
    lines = (REPO / "README.md").read_text("utf-8").splitlines()
    assert len(lines) <= README_MAX_LINES, f"README.md has {len(lines)} lines (at most {README_MAX_LINES})"


def test_the_user_guide_exists_and_the_readme_links_it() -> None:
    assert (REPO / "docs" / "index.md").is_file()
    assert "docs/index.md" in relative_links(REPO / "README.md")


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(REPO)))
def test_every_relative_link_resolves(page: Path) -> None:
    broken = []
    for target in relative_links(page):
        path, _, anchor = target.partition("#")
        resolved = (page.parent / path).resolve() if path else page
        if not resolved.exists():
            broken.append(f"{target}: no such file")
        elif anchor and resolved.suffix == ".md" and anchor not in anchors(resolved):
            broken.append(f"{target}: no heading #{anchor} in {resolved.relative_to(REPO)}")
    assert not broken, f"{page.relative_to(REPO)}: " + "; ".join(broken)


def test_the_link_check_sees_a_broken_link(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("# Title\n\n[ok](page.md#title) ![img](missing.png) `[code](no.md)` [web](https://x.org)\n")
    assert relative_links(page) == ["page.md#title", "missing.png"]
    assert anchors(page) == {"title"}
    assert slug("`switchboard serve`: the host") == "switchboard-serve-the-host"
