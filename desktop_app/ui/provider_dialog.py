"""Settings → Provider…: base URL, model, dialect and API key; OK hands them to the runtime.

The key goes to ``Runtime.configure_provider``, which stores it in the keyring (never in a file). Leaving
the key field empty keeps the stored key. The dialog is opened with ``open()`` (never ``exec()`` inside a
coroutine) and reports through its ``configured`` signal.
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QVBoxLayout,
    QWidget,
)

from desktop_app.runtime.settings import ProviderSettings, infer_dialect
from desktop_app.ui.chat.controller import RuntimeLike

DIALECTS = ("openai", "deepseek")


class ProviderDialog(QDialog):
    """Edit the model provider.

    Signals:
        configured(): the runtime accepted new provider settings.
    """

    configured = Signal()

    def __init__(self, runtime: RuntimeLike, parent: QWidget | None = None, *, first_run: bool = False) -> None:
        super().__init__(parent)
        self.runtime = runtime
        self.setObjectName("providerDialog")
        self.setWindowTitle("Model provider")
        self.setMinimumWidth(460)
        current = runtime.provider_settings
        layout = QVBoxLayout(self)
        intro = QLabel(
            "Switchboard talks to any OpenAI-compatible endpoint (OpenAI, DeepSeek, OpenRouter, Ollama, "
            "LM Studio, vLLM…). The API key is stored in the system keyring, never in a file."
        )
        if first_run:
            intro.setText("Welcome! Choose the model provider to start. " + intro.text())
        intro.setWordWrap(True)
        layout.addWidget(intro)
        form = QFormLayout()
        self.base_url = QLineEdit(current.base_url)
        self.base_url.setObjectName("baseUrlEdit")
        self.base_url.setAccessibleName("Base URL")
        self.base_url.setPlaceholderText("https://api.deepseek.com")
        self.base_url.textEdited.connect(self._on_base_url_edited)
        form.addRow("Base &URL:", self.base_url)
        self.model = QLineEdit(current.model)
        self.model.setObjectName("modelEdit")
        self.model.setAccessibleName("Model")
        self.model.setPlaceholderText("deepseek-chat")
        form.addRow("&Model:", self.model)
        self.dialect = QComboBox()
        self.dialect.setObjectName("dialectCombo")
        self.dialect.setAccessibleName("Dialect")
        self.dialect.addItems(list(DIALECTS))
        self.dialect.setCurrentText(current.dialect)
        form.addRow("&Dialect:", self.dialect)
        self.api_key = QLineEdit()
        self.api_key.setObjectName("apiKeyEdit")
        self.api_key.setAccessibleName("API key")
        self.api_key.setEchoMode(QLineEdit.EchoMode.Password)
        self.api_key.setPlaceholderText("leave empty to keep the stored key")
        form.addRow("API &key:", self.api_key)
        layout.addLayout(form)
        self.problem = QLabel("")
        self.problem.setObjectName("providerProblem")
        self.problem.setWordWrap(True)
        self.problem.setStyleSheet("QLabel { color: #d64541; }")
        self.problem.hide()
        layout.addWidget(self.problem)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self._on_accepted)
        self.buttons.rejected.connect(self.reject)
        layout.addWidget(self.buttons)

    def _on_base_url_edited(self, text: str) -> None:
        self.dialect.setCurrentText(infer_dialect(text.strip()))

    def _on_accepted(self) -> None:
        base_url = self.base_url.text().strip()
        model = self.model.text().strip()
        if not base_url.startswith(("http://", "https://")):
            self._show_problem("The base URL must start with http:// or https://.")
            return
        if not model:
            self._show_problem("Enter the model name the endpoint expects.")
            return
        try:
            settings = self.runtime.provider_settings.model_copy(
                update={"base_url": base_url, "model": model, "dialect": self.dialect.currentText()}
            )
            settings = ProviderSettings.model_validate(settings.model_dump())
            self.runtime.configure_provider(settings, self.api_key.text().strip() or None)
        except Exception as exc:  # shown in the dialog: the user can fix it and try again
            self._show_problem(f"Could not save the provider settings: {exc}")
            return
        self.api_key.clear()
        self.configured.emit()
        self.accept()

    def _show_problem(self, text: str) -> None:
        self.problem.setText(text)
        self.problem.show()
