"""The composer's provider/model picker shows the model's whole name in the real window's row."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QApplication

from desktop_app.runtime.settings import ProviderSettings
from desktop_app.ui.chat.agent_picker import install_agent_picker
from desktop_app.ui.window.main_window import MainWindow
from tests.support.fake_runtime import FakeRuntime


@pytest.fixture
def fake_runtime() -> FakeRuntime:
    return FakeRuntime(ProviderSettings(base_url="http://127.0.0.1:9/v1", model="deepseek-chat", dialect="openai"))


def test_the_model_name_is_not_elided_beside_the_meter_and_the_agent_picker(
    window: MainWindow, fake_runtime: FakeRuntime, qtbot
) -> None:
    window.resize(1400, 900)
    install_agent_picker(window, fake_runtime, lambda: "")
    window.composer.context_meter.setText("ctx ~1.9k")  # as after a first answer
    window.composer.context_meter.show()
    window.provider.show()
    QApplication.processEvents()
    button = window.composer.model_button
    assert button.text() == "deepseek-chat"
    assert "deepseek-chat · openai" in button.toolTip()  # the dialect is still one hover away
    qtbot.waitUntil(lambda: button.width() >= button.sizeHint().width())
