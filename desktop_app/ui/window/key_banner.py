"""The missing-key banner: a non-modal bar above the chat that asks for the provider's API key.

It appears when the window starts with a provider that needs a key and has none (no keyring kept it from
the last session, so a run would fail before sending anything), and when a run fails because the key is
missing or refused (HTTP 401). "Enter key" opens the provider dialog; the bar goes away once a key is
set, or when the user dismisses it. It never blocks the window.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QMainWindow, QPushButton, QToolButton, QWidget

from desktop_app.runtime.errors import MissingKeyError

REFUSED = "The provider refused the API key (HTTP 401). Enter the key again to go on."
SESSION_ONLY_KEY = (
    "No system keyring works on this computer: the key is kept for this session only, and Switchboard "
    "asks for it again at the next start. Install and unlock a keyring (GNOME Keyring, KWallet) to keep it."
)


WINDOW_KEY_HINT = (
    "Enter it with the Enter key button or in Settings → Provider… (without a working system keyring it is kept "
    "for this session only)."
)


def in_window_words(event: Any) -> Any:
    """A run's ``Error`` about a missing key, saying what to do in the window (the runtime's message says what to
    do at the command line: ``MissingKeyError.HINT``); any other event as it is."""
    message = getattr(event, "message", None)
    if getattr(event, "code", None) != MissingKeyError.code or not isinstance(message, str):
        return event
    if not message.endswith(MissingKeyError.HINT):
        return event
    return event.model_copy(update={"message": message[: -len(MissingKeyError.HINT)] + WINDOW_KEY_HINT})


def session_only_warning(runtime: Any) -> str | None:
    """``SESSION_ONLY_KEY`` when ``runtime``'s keyring would not keep a key past this session (probed now)."""
    check = getattr(getattr(runtime, "credentials", None), "check", None)
    return None if check is None or check() else SESSION_ONLY_KEY


def needs_key_prompt(event: Any) -> str | None:
    """The banner text for a failed run's ``Error`` event, when it is about the key; else ``None``."""
    code = getattr(event, "code", "")
    message = str(getattr(event, "message", ""))
    if code == "missing_api_key":
        return message
    if code == "provider_http_error" and message.startswith("HTTP 401"):
        return REFUSED
    return None


class KeyBanner(QFrame):
    """ "<what is wrong>  [Enter key]  ×" — shown by :func:`install_key_banner`."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("keyBanner")
        self.setAccessibleName("API key needed")
        self.setProperty("frame", "banner-danger")  # the application stylesheet's error banner (theme tokens)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(16, 8, 8, 8)
        layout.setSpacing(8)
        self.label = QLabel("")
        self.label.setObjectName("keyBannerText")
        self.label.setWordWrap(True)
        layout.addWidget(self.label, 1)
        self.enter_button = QPushButton("Enter key")
        self.enter_button.setObjectName("enterKeyButton")
        self.enter_button.setToolTip("Open the provider settings to enter the API key")
        layout.addWidget(self.enter_button)
        self.close_button = QToolButton()
        self.close_button.setObjectName("keyBannerClose")
        self.close_button.setText("×")
        self.close_button.setAutoRaise(True)
        self.close_button.setAccessibleName("Dismiss")
        self.close_button.clicked.connect(self.hide)
        layout.addWidget(self.close_button)
        self.hide()

    @property
    def text(self) -> str:
        return self.label.text()

    def ask(self, text: str) -> None:
        self.label.setText(text)
        self.show()


class KeyBannerController:
    """Shows the banner for ``window`` (a ``MainWindow``: ``runtime``, ``controller``, ``open_provider_dialog``)."""

    def __init__(self, window: Any, banner: KeyBanner) -> None:
        self.window = window
        self.banner = banner
        banner.enter_button.clicked.connect(self.enter_key)

    def check_start(self) -> None:
        """At start: a configured provider that needs a key and has none asks for it at once."""
        missing = getattr(self.window.runtime, "missing_key", None)
        text = missing() if missing is not None else None
        if text:
            self.banner.ask(text)

    def on_run_failed(self, event: Any) -> None:
        text = needs_key_prompt(event)
        if text:
            self.banner.ask(text)

    def enter_key(self) -> None:
        dialog = self.window.open_provider_dialog()
        if dialog is not None:
            dialog.configured.connect(self.on_configured)
            dialog.api_key.setFocus()

    def on_configured(self) -> None:
        missing = getattr(self.window.runtime, "missing_key", None)
        if missing is None or not missing():
            self.banner.hide()


def install_key_banner(window: QMainWindow, layout: Any) -> KeyBannerController:
    """Put the (hidden) banner at the top of ``layout`` (the central column) and return its controller."""
    banner = KeyBanner(window)
    layout.insertWidget(0, banner)
    return KeyBannerController(window, banner)


__all__ = [
    "REFUSED",
    "SESSION_ONLY_KEY",
    "WINDOW_KEY_HINT",
    "KeyBanner",
    "KeyBannerController",
    "in_window_words",
    "install_key_banner",
    "needs_key_prompt",
    "session_only_warning",
]
