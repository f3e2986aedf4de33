"""REGRESSION (stack notes §0): 20,000 streamed tokens through the real controller path into the window.

PySide6 6.12.0 on CPython 3.11 leaks a reference to None per void Qt call (and to True per signal emit)
and aborts the interpreter after a few thousand. This long stream must pass; do not shorten it.
"""

from __future__ import annotations

import sys
import time

import PySide6
from PySide6.QtCore import Qt

from tests.support.fake_runtime import Reasoning, Stream

TOKENS = 20_000


def test_pyside_version_is_not_the_crashing_one():
    major, minor = (int(part) for part in PySide6.__version__.split(".")[:2])
    assert sys.version_info >= (3, 12) or (major, minor) < (6, 12), "PySide6 >= 6.12 crashes on Python 3.11"


def test_twenty_thousand_content_deltas_render_in_full(qtbot, window, fake_runtime):
    deltas = [f"tok{i % 10} " for i in range(TOKENS)]  # 5 chars each
    fake_runtime.script(Reasoning("thinking " * 50, pieces=50), Stream(deltas, yield_every=1))
    flushes: list[int] = []
    window.controller.content_appended.connect(lambda text: flushes.append(len(text)))
    started = time.perf_counter()
    window.composer.edit.setPlainText("write a lot")
    qtbot.mouseClick(window.composer.button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not window.controller.busy, timeout=60_000)
    elapsed = time.perf_counter() - started

    answer = window.view.blocks()[-1]
    expected = "".join(deltas)
    assert answer.text == expected
    assert len(answer.toPlainText()) == len(expected.rstrip())  # markdown render drops the trailing space
    assert sum(flushes) == len(expected)
    assert len(flushes) < TOKENS / 10, "deltas must be coalesced, not rendered one by one"
    assert elapsed < 30, f"20k tokens took {elapsed:.1f} s"
