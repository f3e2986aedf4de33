"""The provider form's parts: its choices (dialects, thinking, effort), the small widgets its rows are built
from (a field with a button, a hint line that grows the dialog), the DeepSeek options group, and the stored-key
lookup "Fetch models" uses. ``dialogs/provider.py`` (and the welcome screen, through it) builds the form.
"""

from __future__ import annotations

import logging
from typing import Any

from PySide6.QtWidgets import QComboBox, QFormLayout, QGroupBox, QHBoxLayout, QLabel, QPushButton, QWidget

from desktop_app.runtime.settings import Dialect, ProviderSettings

log = logging.getLogger("desktop_app.ui.dialogs.provider")

DIALECTS: tuple[Dialect, ...] = ("openai", "deepseek", "anthropic")


def dialect_of(text: str) -> Dialect:
    """The dialect a dialect box shows (its items are ``DIALECTS``, and it is not editable)."""
    for dialect in DIALECTS:
        if dialect == text:
            return dialect
    raise ValueError(f"not a dialect: {text!r}")


THINKING_CHOICES: tuple[tuple[str, bool | None], ...] = (("Model's default", None), ("On", True), ("Off", False))
EFFORTS = ("", "low", "medium", "high")
QUIET_STYLE = "QLabel { color: palette(placeholder-text); }"
ERROR_STYLE = "QLabel { color: palette(bright-text); }"  # the theme's danger colour, resolved when drawn


def with_button(field: QWidget, button: QPushButton) -> QHBoxLayout:
    row = QHBoxLayout()
    row.setContentsMargins(0, 0, 0, 0)
    row.addWidget(field, 1)
    row.addWidget(button)
    return row


def buddy_label(text: str, buddy: QWidget) -> QLabel:
    """A row label whose ``&`` mnemonic focuses ``buddy`` (rows holding a layout get no buddy otherwise)."""
    label = QLabel(text)
    label.setBuddy(buddy)
    return label


def plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def grow_to_fit(window: QWidget) -> None:
    """Make ``window`` as tall as its layout needs at its width (wrapped labels need height for width, which
    a shown dialog does not grow by itself)."""
    layout = window.layout()
    if layout is None or not window.isVisible():
        return
    layout.activate()
    width = window.width()
    need = layout.totalHeightForWidth(width) if layout.hasHeightForWidth() else layout.totalSizeHint().height()
    if need > window.height():
        window.resize(width, need)


def hint_label(name: str) -> QLabel:
    label = QLabel("")
    label.setObjectName(name)
    label.setWordWrap(True)
    label.setStyleSheet(QUIET_STYLE)
    label.hide()
    return label


def deepseek_options(current: ProviderSettings) -> tuple[QGroupBox, QComboBox, QComboBox]:
    """The "DeepSeek options" group: thinking (the model's default, on, off) and the reasoning effort."""
    deepseek_box = QGroupBox("DeepSeek options")
    deepseek_box.setObjectName("deepseekOptions")
    ds_form = QFormLayout(deepseek_box)
    thinking = QComboBox()
    thinking.setObjectName("thinkingCombo")
    thinking.setAccessibleName("Thinking")
    for text, value in THINKING_CHOICES:
        thinking.addItem(text, value)
    thinking.setCurrentIndex([v for _t, v in THINKING_CHOICES].index(current.thinking))
    ds_form.addRow("&Thinking:", thinking)
    effort = QComboBox()
    effort.setObjectName("effortCombo")
    effort.setAccessibleName("Reasoning effort")
    effort.setEditable(True)
    effort.addItems(list(EFFORTS))
    effort_line = effort.lineEdit()
    assert effort_line is not None  # editable
    effort_line.setPlaceholderText("model default")
    effort.setCurrentText(current.reasoning_effort or "")
    ds_form.addRow("Reasoning &effort:", effort)
    return deepseek_box, thinking, effort


def stored_key(runtime: Any, base_url: str) -> str | None:
    """The key stored for this endpoint (the runtime's own for its current URL, else the keyring's), if any."""
    current = runtime.provider_settings
    stored: Any = None
    try:
        if base_url.rstrip("/") == current.base_url.rstrip("/") and hasattr(runtime, "api_key"):
            stored = runtime.api_key()
        elif (credentials := getattr(runtime, "credentials", None)) is not None:
            stored = credentials.get(ProviderSettings(base_url=base_url).key_name)
    except Exception:  # a keyring failure only means "no stored key" here
        log.warning("could not read the stored API key for %s", base_url, exc_info=True)
    return stored if isinstance(stored, str) and stored else None
