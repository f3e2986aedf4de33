"""``ui/widget_lists``: every widget listed without the crash of PySide's own lists when Python's cyclic
collector frees a widget in the middle of one. Each case runs in a process of its own
(``tests/support/garbage_widgets.py``): the failure it guards against is a segmentation fault."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]


def listed(how: str) -> tuple[int, list[int]]:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    done = subprocess.run(
        [sys.executable, "-m", "tests.support.garbage_widgets", how],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    numbers = [int(n) for n in done.stdout.split()] if done.returncode == 0 else []
    return done.returncode, numbers


def test_the_case_is_real_qt_s_own_list_crashes_in_it():
    """If this ever passes, PySide fixed it: ``widget_lists`` may go."""
    code, _ = listed("qt")
    assert code != 0


@pytest.mark.parametrize("how", ["all", "top"])
def test_the_lists_survive_it_and_hold_the_widgets_the_collector_would_have_freed(how):
    code, (count, kept) = listed(how)
    assert code == 0 and kept == 100
    scroll_areas = 100 * (6 if how == "all" else 1)  # a scroll area and its five inner widgets
    assert count == scroll_areas + 1 + 300  # and the tinted label, and the 300 widgets of garbage cycles


def test_a_theme_switch_survives_it_and_retints():
    code, (retinted, _kept) = listed("theme")
    assert code == 0 and retinted == 1


def test_nothing_in_the_package_or_the_scripts_calls_qt_s_lists_directly():
    pattern = re.compile(r"\.(allWidgets|topLevelWidgets)\(")
    found = [
        str(path.relative_to(ROOT))
        for folder in ("desktop_app", "scripts", "benchmarks", "tests")
        for path in sorted((ROOT / folder).rglob("*.py"))
        if path.name not in {"widget_lists.py", "garbage_widgets.py", "test_widget_lists.py"}
        and pattern.search(path.read_text(encoding="utf-8"))
    ]
    assert found == []
