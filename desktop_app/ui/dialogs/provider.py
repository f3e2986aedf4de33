"""Settings → Provider…: preset, base URL, dialect, model (fetched or typed), API key and DeepSeek options.

A preset fills the base URL, the dialect and suggested models; "Fetch models" asks the endpoint for its
list and "Detect local" probes loopback for Ollama / LM Studio (both async through ``async_slot``; their
problems are shown inline, never in a modal box). OK hands the settings and the key to
``Runtime.configure_provider``, which stores the key in the keyring (never in a file). Leaving the key
field empty keeps the stored key. The dialog is opened with ``open()`` (never ``exec()`` inside a
coroutine) and reports through its ``configured`` signal. The form's small parts, the DeepSeek options group
and the stored-key lookup are in ``provider_form``.
"""

from __future__ import annotations

import logging
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from desktop_app.runtime.providers.discovery import ModelListError, detect_local_servers, list_models
from desktop_app.runtime.providers.presets import CUSTOM, LOCAL_PRESETS, PRESETS, Preset, match_preset
from desktop_app.runtime.settings import ProviderSettings, infer_dialect
from desktop_app.ui.asyncqt import TaskRunner, async_slot
from desktop_app.ui.chat.controller import RuntimeLike
from desktop_app.ui.dialogs.provider_form import (
    DIALECTS,
    ERROR_STYLE,
    QUIET_STYLE,
    buddy_label,
    deepseek_options,
    dialect_of,
    grow_to_fit,
    hint_label,
    plural,
    stored_key,
    with_button,
)
from desktop_app.ui.naming import name_buttons
from desktop_app.ui.window.key_banner import session_only_warning

log = logging.getLogger(__name__)


class ProviderDialog(QDialog):
    """Edit the model provider.

    Signals:
        configured(): the runtime accepted new provider settings.
    """

    configured = Signal()

    def __init__(self, runtime: RuntimeLike, parent: QWidget | None = None, *, first_run: bool = False) -> None:
        super().__init__(parent)
        self.runtime = runtime
        self.tasks = TaskRunner(on_error=self._on_task_failed)
        self.local_candidates: tuple[Preset, ...] = LOCAL_PRESETS  # what "Detect local" probes (tests narrow it)
        self.detected: list[Preset] = []
        self.setObjectName("providerDialog")
        self.setWindowTitle("Model provider")
        self.setMinimumWidth(540)
        current = runtime.provider_settings
        layout = QVBoxLayout(self)
        self.session_only = session_only_warning(runtime)  # no keyring works: the key lives for this session
        intro = QLabel(f"Choose a preset or enter any OpenAI-compatible endpoint. {self.key_kept()}")
        intro.setObjectName("providerIntro")
        if first_run:
            intro.setText("Welcome! Choose the model provider to start. " + intro.text())
        intro.setWordWrap(True)
        layout.addWidget(intro)
        form = QFormLayout()

        self.preset = QComboBox()
        self.preset.setObjectName("presetCombo")
        self.preset.setAccessibleName("Provider preset")
        for item in PRESETS:
            self.preset.addItem(item.label, item.key)
        self.preset.activated.connect(self._on_preset_activated)
        self.detect_button = QPushButton("Detect local")
        self.detect_button.setObjectName("detectLocalButton")
        self.detect_button.setToolTip("Look for Ollama and LM Studio on this machine (127.0.0.1 only)")
        self.detect_button.clicked.connect(self._on_detect_clicked)
        form.addRow(buddy_label("&Provider:", self.preset), with_button(self.preset, self.detect_button))
        self.detect_status = hint_label("detectStatus")
        form.addRow("", self.detect_status)

        self.base_url = QLineEdit(current.base_url)
        self.base_url.setObjectName("baseUrlEdit")
        self.base_url.setAccessibleName("Base URL")
        self.base_url.setPlaceholderText("https://api.example.com/v1")
        self.base_url.textEdited.connect(self._on_base_url_edited)
        form.addRow("Base &URL:", self.base_url)
        self.dialect = QComboBox()
        self.dialect.setObjectName("dialectCombo")
        self.dialect.setAccessibleName("Dialect")
        self.dialect.addItems(list(DIALECTS))
        self.dialect.setCurrentText(current.dialect)
        self.dialect.currentTextChanged.connect(self._on_dialect_changed)
        form.addRow("&Dialect:", self.dialect)
        self.dialect_hint = hint_label("dialectSuggestion")
        self.dialect_switch = QPushButton("")
        self.dialect_switch.setObjectName("useSuggestedDialectButton")
        self.dialect_switch.setAccessibleName("Use the dialect this URL suggests")
        self.dialect_switch.clicked.connect(self._on_dialect_switch_clicked)
        self.dialect_switch.hide()
        self.suggested_dialect: str | None = None
        suggestion = QWidget()  # a widget, not a bare layout: a form row asks a widget how tall wrapped text needs
        row = QHBoxLayout(suggestion)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.dialect_hint, 1)
        row.addWidget(self.dialect_switch)
        form.addRow("", suggestion)

        self.model = QComboBox()
        self.model.setObjectName("modelCombo")
        self.model.setAccessibleName("Model")
        self.model.setEditable(True)
        self.model.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        model_line = self.model.lineEdit()
        assert model_line is not None  # an editable combo box has its line edit
        model_line.setPlaceholderText("Fetch the list or type the model name")
        self.fetch_button = QPushButton("Fetch models")
        self.fetch_button.setObjectName("fetchModelsButton")
        self.fetch_button.setToolTip("Ask the endpoint which models it offers (GET <base URL>/models)")
        self.fetch_button.clicked.connect(self._on_fetch_clicked)
        form.addRow(buddy_label("&Model:", self.model), with_button(self.model, self.fetch_button))
        self.fetch_status = hint_label("fetchStatus")
        form.addRow("", self.fetch_status)

        self.api_key = QLineEdit()
        self.api_key.setObjectName("apiKeyEdit")
        self.api_key.setAccessibleName("API key")
        self.api_key.setEchoMode(QLineEdit.EchoMode.Password)
        form.addRow("API &key:", self.api_key)
        self.keyring_warning = QLabel("")
        self.keyring_warning.setObjectName("keyringWarning")
        self.keyring_warning.setWordWrap(True)
        self.keyring_warning.setStyleSheet(ERROR_STYLE)
        self.keyring_warning.hide()
        form.addRow("", self.keyring_warning)
        layout.addLayout(form)
        self._warn_if_session_only()

        self.deepseek_box, self.thinking, self.effort = deepseek_options(current)
        self.thinking.currentIndexChanged.connect(self._on_thinking_changed)
        layout.addWidget(self.deepseek_box)

        self.note = hint_label("presetNote")
        layout.addWidget(self.note)
        self.problem = QLabel("")
        self.problem.setObjectName("providerProblem")
        self.problem.setWordWrap(True)
        self.problem.setStyleSheet(ERROR_STYLE)
        self.problem.hide()
        layout.addWidget(self.problem)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        name_buttons(self.buttons, "provider")
        self.buttons.accepted.connect(self._on_accepted)
        self.buttons.rejected.connect(self.reject)
        layout.addWidget(self.buttons)

        selected = match_preset(current.base_url)
        self._select_preset(selected)
        self._set_models(selected.models, current.model)
        self._show_preset_hints(selected)
        self._on_dialect_changed(self.dialect.currentText())
        self._on_thinking_changed()
        if not current.base_url.strip():  # nothing set yet: start from the first (most used) preset, not Custom
            self.apply_preset(PRESETS[0])

    def key_kept(self) -> str:
        """Where the key goes, said only as far as it is true (without a keyring the warning says the rest)."""
        if self.session_only is None:
            return "The API key is stored in the system keyring, never in a file."
        return "The API key is never written to a file."

    def _warn_if_session_only(self) -> None:
        """Say *before* a key is typed that it will not outlive this session when no keyring works."""
        warning = self.session_only
        if warning is None:
            return
        self.keyring_warning.setText(warning)
        credentials = getattr(self.runtime, "credentials", None)  # a Runtime has them, RuntimeLike need not
        self.keyring_warning.setToolTip(getattr(credentials, "problem", None) or "")
        self.keyring_warning.show()

    # -- presets -----------------------------------------------------------------------------------------

    @property
    def selected_preset(self) -> Preset:
        key = self.preset.currentData()
        return next((p for p in PRESETS if p.key == key), CUSTOM)

    def apply_preset(self, preset: Preset) -> None:
        """Fill base URL, dialect and suggested models from ``preset`` (Custom keeps the typed URL)."""
        self._select_preset(preset)
        if preset.base_url:
            self.base_url.setText(preset.base_url)
        self.dialect.setCurrentText(preset.dialect)
        keep = self.model.currentText() if preset is CUSTOM else ""
        self._set_models(preset.models, keep or (preset.models[0] if preset.models else ""))
        self._show_preset_hints(preset)
        self._suggest_dialect(None)
        self.fetch_status.hide()

    def _select_preset(self, preset: Preset) -> None:
        index = self.preset.findData(preset.key)
        self.preset.setCurrentIndex(index if index >= 0 else self.preset.findData(CUSTOM.key))

    def _show_preset_hints(self, preset: Preset) -> None:
        """The preset's own hints: its note, example URL and model, and whether a key is stored for the URL."""
        self.base_url.setPlaceholderText(preset.base_url or "https://api.example.com/v1")
        example = f"e.g. {preset.models[0]} — or fetch the list" if preset.models else "Fetch the list or type the name"
        model_line = self.model.lineEdit()
        assert model_line is not None  # editable
        model_line.setPlaceholderText(example)
        self.api_key.setPlaceholderText(self.key_placeholder(preset))
        self.note.setText(preset.note)
        self.note.setVisible(bool(preset.note))
        grow_to_fit(self)

    def key_placeholder(self, preset: Preset) -> str:
        """Says whether a key is stored for the URL in the field (never shows the key)."""
        url = self.base_url.text().strip()
        stored = bool(url) and self._key_for_stored(url)
        if stored and self.session_only is not None:
            return "A key is set for this URL for this session — leave empty to keep it"
        if stored:
            return "A key is stored in the keyring for this URL — leave empty to keep it"
        if not preset.needs_key:
            return "No key stored — usually not needed for a local server"
        return "No key stored for this URL yet — paste the API key"

    def _key_for_stored(self, base_url: str) -> bool:
        credentials = getattr(self.runtime, "credentials", None)
        if credentials is None:
            return False
        try:
            return bool(credentials.get(ProviderSettings(base_url=base_url).key_name))
        except Exception:  # a keyring failure only means "no stored key" here
            return False

    def _set_models(self, models: tuple[str, ...] | list[str], current: str) -> None:
        self.model.clear()
        self.model.addItems(list(models))
        self.model.setCurrentText(current)

    def _on_preset_activated(self, index: int) -> None:
        key = self.preset.itemData(index)
        self.apply_preset(next((p for p in PRESETS if p.key == key), CUSTOM))

    def _on_base_url_edited(self, text: str) -> None:
        """The preset and hints follow the URL. A URL of another known preset selects that preset (and its
        dialect, visibly); any other URL keeps the dialect, and a different one it suggests is offered."""
        preset = match_preset(text)
        previous = self.selected_preset
        self._select_preset(preset)
        self._show_preset_hints(preset)
        if preset is not CUSTOM and preset is not previous:  # the preset visibly changed: its dialect comes along
            self.dialect.setCurrentText(preset.dialect)
            self._suggest_dialect(None)
            return
        self._suggest_dialect(infer_dialect(text.strip()) if text.strip() else None)

    def _suggest_dialect(self, suggested: str | None) -> None:
        current = self.dialect.currentText()
        self.suggested_dialect = suggested if suggested and suggested != current else None
        if self.suggested_dialect is None:
            self.dialect_hint.hide()
            self.dialect_switch.hide()
            return
        self.dialect_hint.setText(
            f"This URL usually speaks the {self.suggested_dialect} dialect. The dialect stays {current} "
            "unless you switch it."
        )
        self.dialect_hint.show()
        self.dialect_switch.setText(f"Use {self.suggested_dialect}")
        self.dialect_switch.setAccessibleName(f"Switch the dialect to {self.suggested_dialect}")
        self.dialect_switch.show()
        grow_to_fit(self)

    def _on_dialect_switch_clicked(self) -> None:
        if self.suggested_dialect is not None:
            self.dialect.setCurrentText(self.suggested_dialect)

    def _on_dialect_changed(self, dialect: str) -> None:
        self.deepseek_box.setVisible(dialect == "deepseek")
        if getattr(self, "suggested_dialect", None) == dialect:
            self._suggest_dialect(None)
        grow_to_fit(self)

    def _on_thinking_changed(self, _index: int = 0) -> None:
        self.effort.setEnabled(self.thinking.currentData() is not False)

    # -- fetching models and detecting local servers -----------------------------------------------------

    def _on_fetch_clicked(self) -> None:
        self.fetch_models()

    def _on_detect_clicked(self) -> None:
        self.detect_local()

    def _key_for(self, base_url: str) -> str | None:
        """The typed key, else the one stored for this endpoint (keyring or environment), if any."""
        typed = self.api_key.text().strip()
        if typed:
            return typed
        return stored_key(self.runtime, base_url)

    @async_slot
    async def fetch_models(self) -> None:
        """Fill the model list from ``GET <base URL>/models``; problems are shown under the field."""
        base_url = self.base_url.text().strip()
        dialect = self.dialect.currentText()
        key = self._key_for(base_url)
        if dialect == "anthropic" and not key:
            self._fetch_note("Anthropic lists its models only with an API key: enter it above, or type a name.")
            return
        self.fetch_button.setEnabled(False)
        self._fetch_note("Fetching models…")
        try:
            models = await list_models(base_url, key, dialect_of(dialect))
        except ModelListError as exc:
            self._fetch_note(str(exc), error=True)
            return
        finally:
            self.fetch_button.setEnabled(True)
        if not models:
            self._fetch_note("The endpoint listed no models. Type the model name instead.", error=True)
            return
        typed = self.model.currentText().strip()
        self._set_models(models, typed if typed in models else models[0])
        self._fetch_note(f"{plural(len(models), 'model')} available.")

    @async_slot
    async def detect_local(self) -> None:
        """Probe loopback for local model servers; select the first one found."""
        self.detect_button.setEnabled(False)
        self._note(self.detect_status, "Looking for model servers on this machine…")
        try:
            self.detected = await detect_local_servers(candidates=self.local_candidates)
        finally:
            self.detect_button.setEnabled(True)
        if not self.detected:
            looked = ", ".join(f"{p.name} ({p.base_url})" for p in self.local_candidates)
            self._note(self.detect_status, f"No local model server answered. Looked for {looked}.", error=True)
            return
        found = "; ".join(f"{p.name} at {p.base_url} ({plural(len(p.models), 'model')})" for p in self.detected)
        self._note(self.detect_status, f"Found {found}.")
        self.apply_preset(self.detected[0])  # a detected preset carries the models the server listed

    def _fetch_note(self, text: str, *, error: bool = False) -> None:
        self._note(self.fetch_status, text, error=error)

    @staticmethod
    def _note(label: QLabel, text: str, *, error: bool = False) -> None:
        label.setText(text)
        label.setStyleSheet(ERROR_STYLE if error else QUIET_STYLE)
        label.show()
        grow_to_fit(label.window())  # a note that appears later (the local probe) is never cut off

    def _on_task_failed(self, exc: BaseException) -> None:
        log.error("provider dialog task failed", exc_info=exc)
        self._show_problem(f"Something went wrong ({type(exc).__name__}: {exc}).")

    # -- saving ------------------------------------------------------------------------------------------

    def _on_accepted(self) -> None:
        base_url = self.base_url.text().strip()
        model = self.model.currentText().strip()
        if not base_url.startswith(("http://", "https://")):
            self._show_problem("The base URL must start with http:// or https://.")
            return
        if not model:
            self._show_problem("Enter the model name the endpoint expects (or fetch the list).")
            return
        update: dict[str, Any] = {"base_url": base_url, "model": model, "dialect": self.dialect.currentText()}
        if update["dialect"] == "deepseek":
            update["thinking"] = self.thinking.currentData()
            update["reasoning_effort"] = self.effort.currentText().strip() or None
        try:
            settings = self.runtime.provider_settings.model_copy(update=update)
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
        grow_to_fit(self)

    def showEvent(self, event: Any) -> None:
        super().showEvent(event)
        grow_to_fit(self)  # the hints set while it was built (the preset's note, the keyring warning)

    def done(self, result: int) -> None:
        self.tasks.cancel_pending()  # a fetch still running must not touch a closed dialog
        super().done(result)
