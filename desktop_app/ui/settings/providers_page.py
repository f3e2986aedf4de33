"""Settings → Providers: one list of the configured model providers, each edited by a generated form.

The list holds the chat model (``Settings.provider``) and the image describer (``Settings.vision_provider``,
used when the chat model cannot read images). The selected one's fields are a :class:`ModelForm` over
``ProviderSettings``; its API key is a masked field whose placeholder says whether a key is stored (the key
itself is never read into the window). "Test connection" lists the endpoint's models with the typed or
stored key; "Presets…" opens the provider dialog. On Save the typed keys go to the keyring.
"""

from __future__ import annotations

import logging
import os
from typing import Any

from PySide6.QtWidgets import (
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QPushButton,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from desktop_app.runtime.providers.discovery import ModelListError, list_models
from desktop_app.runtime.providers.presets import match_preset
from desktop_app.runtime.settings import ProviderSettings
from desktop_app.ui.asyncqt import TaskRunner, async_slot
from desktop_app.ui.chat.common import ERROR_COLOR
from desktop_app.ui.settings.form import ERROR_STYLE, MUTED_STYLE, ModelForm, camel
from desktop_app.ui.settings.registry import PageContext, PageExtra
from desktop_app.ui.window.key_banner import session_only_warning

log = logging.getLogger(__name__)

SLOTS = (("provider", "Chat model"), ("vision_provider", "Image describer"))
"""The settings fields that hold a provider, and what each is for."""
MAIN_FIELDS = ("base_url", "model", "dialect")
MORE_FIELDS = ("api_key_env", "thinking", "reasoning_effort", "stall_timeout_s", "supports_images")


def stored_key(runtime: Any, settings: ProviderSettings) -> bool:
    credentials = getattr(runtime, "credentials", None)
    if credentials is None or not settings.base_url.strip():
        return False
    try:
        return bool(credentials.get(settings.key_name))
    except Exception:  # a keyring failure only means "no stored key" here
        log.warning("could not read the keyring for %s", settings.base_url, exc_info=True)
        return False


def key_placeholder(runtime: Any, settings: ProviderSettings) -> str:
    """What the masked key field says: whether a key is stored (never the key)."""
    if settings.api_key_env:
        state = "set" if os.environ.get(settings.api_key_env) else "not set"
        return f"Read from ${settings.api_key_env} ({state}); type a key to store one instead"
    if stored_key(runtime, settings):
        if session_only_warning(runtime) is not None:  # no keyring works: the key lives in memory only
            return "•••••••• set for this session only — type a new key to replace it"
        return "•••••••• stored in the keyring — type a new key to replace it"
    preset = match_preset(settings.base_url)
    return "No key stored (a local server usually needs none)" if not preset.needs_key else "No key stored yet"


class ProviderEditor(QWidget):
    """One provider: its generated fields, the masked key, Test connection."""

    def __init__(self, slot: str, settings: ProviderSettings, runtime: Any, tasks: TaskRunner) -> None:
        super().__init__()
        self.slot, self.runtime, self.tasks = slot, runtime, tasks
        prefix = camel(slot)
        self.setObjectName(camel(slot, "editor"))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.form = ModelForm(ProviderSettings, settings, fields=(*MAIN_FIELDS, *MORE_FIELDS), prefix=prefix)
        self.more = self.form
        layout.addWidget(self.form)
        self.key = QLineEdit()
        self.key.setObjectName(camel(slot, "api_key"))
        self.key.setAccessibleName("API key")
        self.key.setEchoMode(QLineEdit.EchoMode.Password)
        self.forget = QPushButton("Forget key")
        self.forget.setObjectName(camel(slot, "forget_key"))
        self.forget.setAccessibleName("Forget the stored API key")
        self.forget.clicked.connect(self.forget_key)
        key_cell = QWidget()
        key_row = QHBoxLayout(key_cell)
        key_row.setContentsMargins(0, 0, 0, 0)
        key_row.addWidget(self.key, 1)
        key_row.addWidget(self.forget)
        warning = session_only_warning(runtime)  # said before a key is typed, not after it is lost
        self.keyring_warning = QLabel(warning or "")
        self.keyring_warning.setObjectName(camel(slot, "keyring_warning"))
        self.keyring_warning.setWordWrap(True)
        self.keyring_warning.setStyleSheet(f"color: {ERROR_COLOR};")
        self.keyring_warning.setVisible(warning is not None)
        self.test_button = QPushButton("Test connection")
        self.test_button.setObjectName(camel(slot, "test_connection"))
        self.test_button.setAccessibleName("Test the connection to this provider")
        self.test_button.clicked.connect(self._on_test_clicked)
        self.test_result = QLabel("")
        self.test_result.setObjectName(camel(slot, "test_result"))
        self.test_result.setWordWrap(True)
        test_cell = QWidget()
        test_row = QHBoxLayout(test_cell)
        test_row.setContentsMargins(0, 0, 0, 12)
        test_row.addWidget(self.test_button)
        test_row.addWidget(self.test_result, 1)
        more = QLabel("More options")
        more.setStyleSheet("QLabel { font-weight: 600; }")
        rows = self.form.layout()
        assert isinstance(rows, QFormLayout)
        key_label = QLabel("API key:")
        key_label.setBuddy(self.key)
        at = len(MAIN_FIELDS)  # under the endpoint's own fields, above the options
        rows.insertRow(at, key_label, key_cell)
        rows.insertRow(at + 1, "", self.keyring_warning)
        rows.insertRow(at + 2, "", test_cell)
        rows.insertRow(at + 3, more)
        self.refresh_key()

    def current(self) -> ProviderSettings:
        return ProviderSettings.model_validate(self.values())

    def values(self) -> dict[str, Any]:
        return self.form.values()

    def set_values(self, settings: ProviderSettings) -> None:
        self.form.set_values(settings)

    def show_errors(self, errors: dict[str, str]) -> None:
        self.form.show_errors(errors)

    def refresh_key(self) -> None:
        try:
            settings = self.current()
        except Exception:
            return
        self.key.setPlaceholderText(key_placeholder(self.runtime, settings))
        self.forget.setEnabled(stored_key(self.runtime, settings))

    def forget_key(self) -> None:
        settings = self.current()
        self.runtime.credentials.delete(settings.key_name)
        self.refresh_key()
        self.test_result.setStyleSheet(MUTED_STYLE)
        kept = session_only_warning(self.runtime) is None
        self.test_result.setText("The stored key was removed from the keyring." if kept else "The key was forgotten.")

    def _key(self, settings: ProviderSettings) -> str | None:
        typed = self.key.text().strip()
        if typed:
            return typed
        if settings.api_key_env and os.environ.get(settings.api_key_env):
            return os.environ[settings.api_key_env]
        credentials = getattr(self.runtime, "credentials", None)
        try:
            return credentials.get(settings.key_name) if credentials is not None else None
        except Exception:
            return None

    def _on_test_clicked(self) -> None:
        self.test_connection()

    @async_slot
    async def test_connection(self) -> None:
        """List the endpoint's models with the typed or stored key; say what happened under the button."""
        try:
            settings = self.current()
        except Exception as exc:
            self._result(f"Fix the fields first: {exc}", error=True)
            return
        if not settings.base_url.strip():
            self._result("Enter the base URL first.", error=True)
            return
        self.test_button.setEnabled(False)
        self._result(f"Connecting to {settings.base_url}…")
        try:
            models = await list_models(settings.base_url, self._key(settings), settings.dialect)
        except ModelListError as exc:
            self._result(str(exc), error=True)
            return
        finally:
            self.test_button.setEnabled(True)
        listed = "the model is listed" if settings.model in models else f"“{settings.model}” is not in its list"
        count = f"{len(models)} model{'s' if len(models) != 1 else ''}"
        self._result(f"Connected: {settings.base_url} offers {count}; {listed}.")

    def _result(self, text: str, *, error: bool = False) -> None:
        self.test_result.setStyleSheet(ERROR_STYLE if error else MUTED_STYLE)
        self.test_result.setText(text)


class ProvidersPage(PageExtra):
    """The providers list and the selected provider's editor."""

    def __init__(self, context: PageContext) -> None:
        super().__init__(context.parent)
        self.setObjectName("providersPage")
        self.runtime = context.runtime
        self.tasks = TaskRunner(on_error=self._on_task_failed)
        settings = context.runtime.settings
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(QLabel("Configured providers:"))
        self.list = QListWidget()
        self.list.setObjectName("providerList")
        self.list.setAccessibleName("Configured providers")
        self.list.setMaximumHeight(64)
        layout.addWidget(self.list)
        self.stack = QStackedWidget()
        self.editors: dict[str, ProviderEditor] = {}
        for slot, _title in SLOTS:
            value = getattr(settings, slot) or ProviderSettings()
            editor = ProviderEditor(slot, value, context.runtime, self.tasks)
            editor.form.changed.connect(self._on_edited)
            editor.key.textEdited.connect(lambda _t: self.changed.emit())
            self.editors[slot] = editor
            self.stack.addWidget(editor)
        self.list.currentRowChanged.connect(self.stack.setCurrentIndex)
        self.presets_button = QPushButton("Choose a preset…")
        self.presets_button.setObjectName("providerPresetsButton")
        self.presets_button.setAccessibleName("Choose a provider preset")
        self.presets_button.setToolTip("The provider dialog: presets, local servers, model lists")
        self.presets_button.clicked.connect(self._on_presets_clicked)
        row = QHBoxLayout()
        row.addStretch(1)
        row.addWidget(self.presets_button)
        layout.addLayout(row)
        layout.addWidget(self.stack)
        self._fill_list()
        self.list.setCurrentRow(0)

    def _fill_list(self) -> None:
        current = max(self.list.currentRow(), 0)
        self.list.clear()
        for slot, title in SLOTS:
            try:
                settings = self.editors[slot].current()
            except Exception:
                settings = ProviderSettings()
            if not settings.configured:
                self.list.addItem(f"{title} — not set")
                continue
            preset = match_preset(settings.base_url)
            name = preset.name if preset.base_url else settings.base_url
            key = "no key stored"
            if stored_key(self.runtime, settings):
                key = "key stored" if session_only_warning(self.runtime) is None else "key for this session"
            self.list.addItem(f"{title} — {name} · {settings.model} · {key}")
        self.list.setCurrentRow(current)

    def _on_edited(self) -> None:
        self.changed.emit()
        for editor in self.editors.values():
            editor.refresh_key()

    def _on_presets_clicked(self) -> None:
        window = self.window().parent()
        opener = getattr(window, "open_provider_dialog", None)
        if opener is None:
            return
        dialog = opener()
        if dialog is not None:
            dialog.configured.connect(self.reload_from_runtime)

    def reload_from_runtime(self) -> None:
        settings = self.runtime.settings
        for slot, editor in self.editors.items():
            editor.set_values(getattr(settings, slot) or ProviderSettings())
            editor.refresh_key()
        self._fill_list()

    # -- PageExtra ---------------------------------------------------------------------------------------

    def contribute(self, data: dict[str, Any]) -> None:
        for slot, editor in self.editors.items():
            values = editor.values()
            if slot == "vision_provider" and not str(values.get("base_url") or "").strip():
                data[slot] = None
            else:
                data[slot] = values

    def problem(self) -> str | None:
        for slot, title in SLOTS:
            url = str(self.editors[slot].values().get("base_url") or "").strip()
            if url and not url.startswith(("http://", "https://")):
                self.list.setCurrentRow([s for s, _t in SLOTS].index(slot))
                return f"{title}: the base URL must start with http:// or https://."
        return None

    def show_errors(self, errors: dict[tuple[str | int, ...], str]) -> bool:
        shown = False
        for index, (slot, _title) in enumerate(SLOTS):
            editor = self.editors[slot]
            mine = {str(loc[1]): msg for loc, msg in errors.items() if len(loc) == 2 and loc[0] == slot}
            editor.show_errors(mine)
            if mine and not shown:
                self.list.setCurrentRow(index)
                shown = True
        return shown

    def apply(self, settings: Any) -> None:
        """Store the typed keys in the keyring (the settings file never holds one)."""
        for slot, editor in self.editors.items():
            key = editor.key.text().strip()
            provider = getattr(settings, slot)
            if key and provider is not None:
                if slot == "provider":
                    self.runtime.configure_provider(provider, key)
                else:
                    self.runtime.configure_vision_provider(provider, key)
            editor.key.clear()
            editor.refresh_key()
        self._fill_list()

    def _on_task_failed(self, exc: BaseException) -> None:
        log.error("providers page task failed", exc_info=exc)
        for editor in self.editors.values():
            editor._result(f"Something went wrong ({type(exc).__name__}: {exc}).", error=True)


__all__ = ["ProvidersPage", "key_placeholder"]
