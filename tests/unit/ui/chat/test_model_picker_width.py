"""The composer's row in the real window, themed as the app is (the stylesheet's paddings): the provider/model
picker shows the model's whole name (at 1400 and 1920 px the field makes room for it; only a genuinely narrow
composer elides it, the whole name in the tooltip), the pickers' menu arrows sit beside their labels, and the
left group of buttons is evenly spaced."""

from __future__ import annotations

import itertools

import pytest
from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QApplication

from desktop_app.runtime.agents.definitions import AgentCatalog
from desktop_app.runtime.host import Host
from desktop_app.runtime.service import Runtime
from desktop_app.runtime.settings import ProviderSettings, Settings
from desktop_app.ui.chat.agent_picker import install_agent_picker
from desktop_app.ui.chat.measure import reading_width
from desktop_app.ui.theme import themes as theme
from desktop_app.ui.window.main_window import MainWindow
from tests.support.fake_runtime import FakeRuntime
from tests.support.llm_server import text_reply

MODEL = "deepseek-chat"


@pytest.fixture
def fake_runtime() -> FakeRuntime:
    return FakeRuntime(ProviderSettings(base_url="http://127.0.0.1:9/v1", model=MODEL, dialect="openai"))


@pytest.fixture
def themed(restore_app_look):
    theme.apply_theme("dark")


def _settle(window: MainWindow, width: int, height: int) -> None:
    window.resize(width, height)
    for _ in range(3):  # every pending layout pass, as before a paint
        QApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest.value)


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
    assert button.text() == MODEL
    assert "deepseek-chat · openai" in button.toolTip()  # the dialect is still one hover away
    qtbot.waitUntil(lambda: button.width() >= button.sizeHint().width())


@pytest.fixture
def real_window(qtbot, qloop, themed, llm_server, tmp_path):
    """The real window on the real Runtime with its agents (the agent picker), themed as the app is, after
    one answer (the context meter): the row the design screenshots show."""
    settings = Settings(provider=ProviderSettings(base_url=llm_server.url, model=MODEL, dialect="openai"))
    runtime = Runtime(settings=settings, host=Host(), api_key_override="k", settings_path=tmp_path / "s.json")
    runtime.attach_agents(AgentCatalog.build(settings))
    window = MainWindow()
    qtbot.addWidget(window)
    window.attach_runtime(runtime)
    window.show()
    qtbot.waitExposed(window)
    llm_server.enqueue(text_reply("A short answer."))
    qtbot.keyClicks(window.composer.edit, "Hello")
    qtbot.keyClick(window.composer.edit, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: window.controller is not None and not window.controller.busy)
    qtbot.waitUntil(window.composer.context_meter.isVisible)
    assert window.agent_picker is not None and window.agent_picker.isVisible()
    yield window
    task = qloop.create_task(runtime.aclose())
    qtbot.waitUntil(task.done)


@pytest.mark.parametrize("size", [(1400, 900), (1920, 1080)])
def test_the_whole_model_name_shows_in_a_wide_window(qtbot, real_window, size):
    """The field was capped at the reading column's width, narrower than its row: Qt squeezed the picker
    below its size hint and painted 'dee…hat' (the design screenshots at 1400 and 1920)."""
    _settle(real_window, *size)
    button = real_window.composer.model_button
    qtbot.waitUntil(lambda: button.width() >= button.sizeHint().width())
    assert button.shown_text() == MODEL
    field = real_window.composer.field
    assert field.width() >= reading_width()  # still in line with the reading column (or wider for the row)


def test_a_narrow_composer_elides_the_name_and_the_tooltip_has_it_whole(qtbot, real_window):
    real_window.conversations_dock.hide()
    _settle(real_window, 800, 600)
    composer = real_window.composer
    field = composer.field
    short = field.maximumWidth() - 30  # a composer 30 px narrower than its row needs (a large font, say)
    margins = composer.contentsMargins()
    composer.setFixedWidth(short + margins.left() + margins.right())
    _settle(real_window, 800, 600)
    button = composer.model_button
    qtbot.waitUntil(lambda: button.width() < button.sizeHint().width())
    shown = button.shown_text()
    assert shown != MODEL and shown.endswith("…") and len(shown) > 1, shown
    assert f"{MODEL} · openai" in button.toolTip()
    parts = (composer.attach_button, composer.context_meter, real_window.agent_picker, button, composer.button)
    row = [w for w in parts if w is not None and w.isVisible()]
    for left, right in itertools.pairwise(row):  # in the row's order: none runs into the next
        assert left.geometry().right() < right.geometry().left(), (left.objectName(), right.objectName())


def _arrow_rows(image: QImage, columns: int = 16) -> list[int]:
    """The rows where the rightmost ``columns`` of a button's picture differ from its background (its arrow)."""
    background = image.pixelColor(image.width() - 1, 0)
    return [
        y
        for y in range(image.height())
        for x in range(image.width() - columns, image.width())
        if image.pixelColor(x, y) != background
    ]


def test_the_pickers_menu_arrows_sit_beside_their_label_centred(qtbot, real_window):
    """The menu arrows of the model and agent pickers were Fusion's, in the button's bottom-right corner, below
    the label's line (design screenshots): now a chevron centred on the label's line."""
    _settle(real_window, 1400, 900)
    for button in (real_window.composer.model_button, real_window.agent_picker):
        qtbot.waitUntil(lambda button=button: button.width() >= button.sizeHint().width())
        rows = _arrow_rows(button.grab().toImage())
        assert rows, button.objectName()
        middle = (min(rows) + max(rows)) / 2
        assert abs(middle - button.height() / 2) <= 2, (button.objectName(), min(rows), max(rows), button.height())


def _ink_runs(image: QImage) -> list[tuple[int, int]]:
    """The runs of columns that hold anything but the button's background, left to right."""
    background = image.pixelColor(image.width() - 1, 0)
    inked = [any(image.pixelColor(x, y) != background for y in range(image.height())) for x in range(image.width())]
    runs: list[tuple[int, int]] = []
    for x, ink in enumerate(inked):
        if ink and (not runs or runs[-1][1] != x - 1):
            runs.append((x, x))
        elif ink:
            runs[-1] = (runs[-1][0], x)
    return runs


def test_the_agent_pickers_chevron_stands_apart_from_its_icon(qtbot, real_window):
    """The icon-only agent picker's chevron touched its icon (design screenshots, after the arrow was centred)."""
    _settle(real_window, 1400, 900)
    picker = real_window.agent_picker
    qtbot.waitUntil(lambda: picker.width() >= picker.sizeHint().width())
    runs = _ink_runs(picker.grab().toImage())
    assert len(runs) >= 2, runs  # the icon, then the chevron
    (_, icon_end), (chevron_start, _) = runs[-2], runs[-1]
    assert chevron_start - icon_end >= 3, runs


def test_the_composer_s_left_buttons_are_evenly_spaced(qtbot, real_window):
    """'Attach' had Qt's slack after its text (two spaces' width), so the gap from it to the clipboard icon was
    half again the gap between the clipboard and resource icons (design screenshots)."""
    _settle(real_window, 1400, 900)
    composer = real_window.composer
    attach, resource = composer.attach_button, composer.resource_button
    field = composer.field.grab().toImage()
    left, right = attach.geometry().left(), resource.geometry().right()
    strip = field.copy(left, attach.geometry().top(), right - left + 1, attach.height())
    runs = _ink_runs(strip)
    gaps = [b[0] - a[1] for a, b in itertools.pairwise(runs) if b[0] - a[1] >= 8]  # between buttons, not letters
    assert len(gaps) == 2, runs  # Attach → clipboard, clipboard → resource
    assert abs(gaps[0] - gaps[1]) <= 4, gaps
