"""The composer's context meter (#16): after a run it shows the estimated tokens of the next request against
the model's window, with the breakdown in its tooltip; a warning from 80 % on."""

from __future__ import annotations

from PySide6.QtCore import Qt

from desktop_app.runtime.compaction.budget import ContextBudget
from desktop_app.runtime.providers.base import Completion, ContentChunk
from desktop_app.runtime.service import Runtime
from desktop_app.runtime.settings import ProviderSettings, Settings
from desktop_app.ui.chat.context_meter import ContextMeter
from desktop_app.ui.window.main_window import MainWindow
from tests.support.fakes import FakeHost, FakeProvider


def test_meter_after_a_run_shows_the_window_and_the_breakdown(qtbot, qloop) -> None:
    provider = FakeProvider([[ContentChunk(text="x" * 4000), Completion(content="x" * 4000)]])
    settings = Settings(provider=ProviderSettings(base_url="https://api.deepseek.com", model="deepseek-chat"))
    runtime = Runtime(settings=settings, host=FakeHost(handlers={"clock": lambda _a: "noon"}),
                      provider_factory=lambda _s, _k: provider, api_key_override="k")  # fmt: skip
    win = MainWindow()
    qtbot.addWidget(win)
    win.attach_runtime(runtime)
    meter = win.composer.context_meter
    try:
        assert meter.isHidden()  # nothing has run yet
        win.composer.edit.setPlainText("hi")
        qtbot.mouseClick(win.composer.button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: not win.controller.busy, timeout=5000)
        assert not meter.isHidden()
        # ~1,000 tokens of answer, the prompt with its date/OS context, the tool: about 1k of 128k
        assert meter.text() == "ctx 1 %", meter.text()
        tip = meter.toolTip()
        assert tip.startswith("~1.") and "128,000-token window" in tip and "History: ~1." in tip
        assert "Tool schemas: ~" in tip and "System prompt and indexes" in tip and "Attachments: ~0" in tip
    finally:
        task = qloop.create_task(runtime.aclose())
        qtbot.waitUntil(task.done)


def test_meter_warns_from_eighty_percent_and_hides_without_a_budget(qtbot) -> None:
    meter = ContextMeter()
    qtbot.addWidget(meter)
    meter.show_budget(ContextBudget(system=1000, tools=5000, history=100_000, attachments=0, window=128_000))
    assert meter.text() == "ctx 83 %" and meter.property("warning") is True
    assert meter.toolTip().startswith("~106.0k of the model's 128,000-token window (82.8 %)")
    meter.show_budget(ContextBudget(system=10, tools=0, history=90, attachments=0, window=None))
    assert meter.text() == "ctx ~100" and meter.property("warning") is False
    meter.show_budget(None)
    assert meter.isHidden()
