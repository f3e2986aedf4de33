"""The install screen of an MCP Bundle (.mcpb): what it is, what it declares, whether it fits, its signature,
and a form generated from its ``user_config``. Nothing runs before the user presses Install.

The compatibility report lists each part of the manifest (works as in Claude Desktop / translated / not
available here; :mod:`desktop_app.runtime.extensions.report`). Fields: string (a password field when
sensitive), number (a spin box with the manifest's min and max), boolean (a check box), directory and file
(a path with Choose…; ``multiple`` takes several, one per line).
Defaults are filled in with ``${HOME}`` … substituted; Install stays disabled while a required value is
missing or the bundle cannot run here, and says why. The same screen updates an installed bundle
(``mode="update"``: the user's current values filled in) and reconfigures one (``mode="reconfigure"``, from
the Servers panel: the current values, a sensitive one shown as "stored in keyring" and kept when left
empty). The ``install`` callable does the writing (:func:`desktop_app.runtime.extensions.install.install`,
sensitive values to the keyring, or ``reconfigure``); the dialog then emits ``installed(name)``.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QPixmap
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from desktop_app.runtime.extensions.archive import Bundle, BundleError
from desktop_app.runtime.extensions.manifest import UserConfigOption
from desktop_app.ui.chat.common import ERROR_COLOR, MUTED_COLOR
from desktop_app.ui.dialogs.frame import mark_primary
from desktop_app.ui.theme.tokens import css_font_size

SIGNATURE_TEXT = {
    "unsigned": "Unsigned: nobody vouches for this bundle",
    "invalid": "Signed but INVALID",
    "self-signed": "Signed and valid (self-signed)",
    "signed": "Signed and valid",
}


class _PathField(QWidget):
    def __init__(self, option: UserConfigOption, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.option = option
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.edit: QLineEdit | QPlainTextEdit = QPlainTextEdit(self) if option.multiple else QLineEdit(self)
        if option.multiple:
            self.edit.setFixedHeight(64)
        layout.addWidget(self.edit, 1)
        self.button = QPushButton("Choose…", self)
        self.button.clicked.connect(self.choose)
        layout.addWidget(self.button)
        self.dialog: QFileDialog | None = None

    def choose(self) -> QFileDialog:
        dialog = QFileDialog(self, self.option.title)
        if self.option.type == "directory":
            dialog.setFileMode(QFileDialog.FileMode.Directory)
        else:
            dialog.setFileMode(
                QFileDialog.FileMode.ExistingFiles if self.option.multiple else QFileDialog.FileMode.ExistingFile
            )
        dialog.filesSelected.connect(self.add)
        self.dialog = dialog
        dialog.open()
        return dialog

    def add(self, paths: list[str]) -> None:
        if isinstance(self.edit, QPlainTextEdit):
            current = [line for line in self.edit.toPlainText().splitlines() if line.strip()]
            self.edit.setPlainText("\n".join([*current, *paths]))
        elif paths:
            self.edit.setText(paths[0])

    def value(self) -> str | list[str]:
        if isinstance(self.edit, QPlainTextEdit):
            return [line.strip() for line in self.edit.toPlainText().splitlines() if line.strip()]
        return self.edit.text().strip()

    def set_value(self, value: Any) -> None:
        if isinstance(self.edit, QPlainTextEdit):
            self.edit.setPlainText("\n".join(value if isinstance(value, list) else [str(value)]))
        else:
            self.edit.setText(str(value))


class InstallExtensionDialog(QDialog):
    """The install screen for ``bundle``; ``install(values)`` does the work (raising BundleError to show)."""

    installed = Signal(str)

    def __init__(
        self,
        bundle: Bundle,
        refusals: list[str],
        install: Any,
        parent: QWidget | None = None,
        *,
        mode: str = "install",
        current: Mapping[str, Any] | None = None,
        stored: Collection[str] = (),
        icon_bytes: bytes | None = None,
        previous_version: str | None = None,
        folder: Path | None = None,
        warning: str | None = None,
    ) -> None:
        super().__init__(parent)
        from desktop_app.runtime.extensions.signature import verify
        from desktop_app.runtime.extensions.user_config import default_of

        self.bundle = bundle
        self._install = install
        self.mode = mode
        self.stored = set(stored)
        m = bundle.manifest
        verb = {"install": "Install", "update": "Update", "reconfigure": "Reconfigure"}[mode]
        self.setWindowTitle(f"{verb} {m.title}")
        self.setObjectName("installExtensionDialog")
        self.setMinimumWidth(560)
        outer = QVBoxLayout(self)
        outer.setSpacing(12)
        outer.setContentsMargins(20, 20, 20, 16)
        header = QHBoxLayout()
        self.icon = QLabel(self)
        if icon_bytes is None and m.icon and bundle.archive:
            icon_bytes = bundle.member(m.icon)
        pixmap = QPixmap()
        if icon_bytes and pixmap.loadFromData(icon_bytes):
            self.icon.setPixmap(
                pixmap.scaled(56, 56, Qt.AspectRatioMode.KeepAspectRatio, Qt.TransformationMode.SmoothTransformation)
            )
        header.addWidget(self.icon, 0, Qt.AlignmentFlag.AlignTop)
        version = (
            _e(m.version) if not previous_version or mode != "update" else f"{_e(previous_version)} → {_e(m.version)}"
        )
        title = QLabel(
            f"<b style='{css_font_size('title')}'>{_e(m.title)}</b> &nbsp;{version}<br>by {_e(m.author.name)}"
        )
        title.setObjectName("extensionTitle")
        header.addWidget(title, 1)
        outer.addLayout(header)
        self.description = QLabel(_e(m.long_description or m.description))
        self.description.setWordWrap(True)
        outer.addWidget(self.description)
        facts = QFormLayout()
        tools = ", ".join(t.name for t in m.tools) or (
            "declared by the server" if m.tools_generated else "none declared"
        )
        prompts = ", ".join(p.name for p in m.prompts) or "none"
        self.tools_label = QLabel(_e(tools))
        self.prompts_label = QLabel(_e(prompts))
        facts.addRow("Tools:", self.tools_label)
        facts.addRow("Prompts:", self.prompts_label)
        platforms = ", ".join(m.compatibility.platforms) if m.compatibility and m.compatibility.platforms else "any"
        self.compat_label = QLabel(
            _e("; ".join(refusals))
            if refusals
            else _e(f"Runs on this computer ({m.server.type} server; platforms: {platforms})")
        )
        self.compat_label.setObjectName("compatibilityLabel")
        self.compat_label.setWordWrap(True)
        facts.addRow("Compatibility:", self.compat_label)
        self.signature = verify(bundle)
        summary = self.signature.summary
        text = SIGNATURE_TEXT["unsigned"] if self.signature.state == "unsigned" else summary[0].upper() + summary[1:]
        verdict = f"<br><span style='color:{MUTED_COLOR}'>mcpb verify: {_e(self.signature.mcpb_verdict)}</span>"
        self.signature_label = QLabel(_e(text) + verdict)
        self.signature_label.setObjectName("signatureLabel")
        self.signature_label.setProperty("state", self.signature.state)
        self.signature_label.setWordWrap(True)
        if self.signature.state == "invalid":
            self.signature_label.setStyleSheet(f"color: {ERROR_COLOR}; font-weight: 600")
        facts.addRow("Signature:", self.signature_label)
        from desktop_app.runtime.extensions.review import launch_lines

        command, environment = launch_lines(m, folder or Path("<extensions folder>") / m.name)
        shown = "".join(f"<br>&nbsp;&nbsp;<code>{_e(line)}</code>" for line in environment)
        self.launch_label = QLabel(f"<code>{_e(command)}</code>{shown}")  # exactly what will run, and its env
        self.launch_label.setObjectName("launchLabel")
        self.launch_label.setWordWrap(True)
        self.launch_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        facts.addRow("Runs:", self.launch_label)
        from desktop_app.runtime.extensions.report import bundle_report

        self.report = QPlainTextEdit(self)  # one line per manifest part: works / translated / not available
        self.report.setObjectName("compatibilityReport")
        self.report.setReadOnly(True)
        self.report.setFixedHeight(110)
        self.report.setPlainText(
            "\n".join(line.text() for line in bundle_report(m, folder or Path("<extensions folder>") / m.name))
        )
        self.report.setToolTip("How each part of the bundle carries over from Claude Desktop")
        facts.addRow("Carries over:", self.report)
        self.warning_label = QLabel(_e(warning or ""))
        self.warning_label.setObjectName("publisherWarning")
        self.warning_label.setWordWrap(True)
        self.warning_label.setStyleSheet(f"color: {ERROR_COLOR}; font-weight: 600")
        facts.addRow("Publisher:", self.warning_label)
        facts.setRowVisible(self.warning_label, bool(warning))
        if mode == "reconfigure":  # installed already: what it needs and how it was signed were shown then
            for label in (self.compat_label, self.signature_label, self.report):
                facts.setRowVisible(label, False)
        outer.addLayout(facts)
        self.fields: dict[str, QWidget] = {}
        if m.user_config:
            form = QFormLayout()
            form.setObjectName("userConfigForm")
            for key, option in m.user_config.items():
                widget = self._field(option)
                widget.setObjectName(f"field_{key}")
                widget.setToolTip(option.description)
                value = current[key] if current is not None and key in current else default_of(key, option)
                if option.sensitive and key in self.stored:
                    if isinstance(widget, QLineEdit):
                        widget.setPlaceholderText("stored in keyring (leave empty to keep it)")
                    widget.setToolTip(f"{option.description}\n\nStored in the keyring; type a new value to replace it.")
                elif value is not None:
                    self._set(widget, value)
                self.fields[key] = widget
                caption = option.title + (" *" if option.required else "")
                form.addRow(caption + ":", widget)
            heading = QLabel("<b>Settings</b> (sensitive ones are kept in the keyring)")
            heading.setObjectName("userConfigHeading")
            outer.addWidget(heading)
            outer.addLayout(form)
        self.problem = QLabel("")
        self.problem.setObjectName("installProblem")
        self.problem.setWordWrap(True)
        self.problem.setStyleSheet(f"color: {ERROR_COLOR}")
        outer.addWidget(self.problem)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel, self)
        button_text = {"install": "Install", "update": "Update", "reconfigure": "Save and restart"}[mode]
        self.install_button = self.buttons.addButton(button_text, QDialogButtonBox.ButtonRole.AcceptRole)
        self.install_button.setObjectName("installButton")
        mark_primary(self.install_button)
        self.install_button.clicked.connect(self.do_install)
        self.buttons.rejected.connect(self.reject)
        outer.addWidget(self.buttons)
        self._refused = bool(refusals)
        self._invalid = self.signature.state == "invalid" and mode != "reconfigure"
        for widget in self.fields.values():
            for signal in ("textChanged", "valueChanged", "toggled"):
                inner = widget.edit if isinstance(widget, _PathField) else widget
                if hasattr(inner, signal):
                    getattr(inner, signal).connect(self._update)
        self._update()

    def _field(self, option: UserConfigOption) -> QWidget:
        if option.type == "boolean":
            return QCheckBox(self)
        if option.type == "number":
            spin = QDoubleSpinBox(self)
            spin.setDecimals(0 if all(v is None or float(v).is_integer() for v in (option.min, option.max)) else 3)
            spin.setRange(
                option.min if option.min is not None else -1e12, option.max if option.max is not None else 1e12
            )
            return spin
        if option.type in ("directory", "file"):
            return _PathField(option, self)
        edit = QLineEdit(self)
        if option.sensitive:
            edit.setEchoMode(QLineEdit.EchoMode.Password)
        return edit

    @staticmethod
    def _set(widget: QWidget, value: Any) -> None:
        if isinstance(widget, QCheckBox):
            widget.setChecked(bool(value))
        elif isinstance(widget, QDoubleSpinBox):
            widget.setValue(float(value))
        elif isinstance(widget, _PathField):
            widget.set_value(value)
        elif isinstance(widget, QLineEdit):
            widget.setText(str(value))

    def values(self) -> dict[str, str | list[str]]:
        out: dict[str, str | list[str]] = {}
        for key, widget in self.fields.items():
            if isinstance(widget, QCheckBox):
                out[key] = "true" if widget.isChecked() else "false"
            elif isinstance(widget, QDoubleSpinBox):
                out[key] = repr(widget.value())
            elif isinstance(widget, _PathField):
                value = widget.value()
                if value:
                    out[key] = value
            elif isinstance(widget, QLineEdit) and widget.text():
                out[key] = widget.text()
        return out

    def missing(self) -> list[str]:
        given = self.values()
        return [
            option.title
            for key, option in self.bundle.manifest.user_config.items()
            if option.required and not given.get(key) and key not in self.stored
        ]

    def _update(self, *_args: object) -> None:
        missing = self.missing()
        refused = self._refused and self.mode != "reconfigure"
        self.install_button.setEnabled(not refused and not missing and not self._invalid)
        if self._invalid:
            self.problem.setText("This bundle was changed after it was signed; it cannot be installed.")
        elif self._refused and self.mode != "reconfigure":
            self.problem.setText("This bundle cannot be installed here (see Compatibility).")
        elif missing:
            self.problem.setText("Fill in: " + ", ".join(missing))
        else:
            self.problem.setText("")

    def do_install(self) -> None:
        try:
            name = self._install(self.values())
        except BundleError as exc:
            self.problem.setText(str(exc))
            return
        self.installed.emit(str(name))
        self.accept()


def _e(text: str) -> str:
    from html import escape

    return escape(text)


__all__ = ["InstallExtensionDialog"]
