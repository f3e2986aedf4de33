"""Add or edit an MCP server: a local command (stdio) or a remote URL (HTTP / SSE), as a form.

stdio: command, arguments (one per line) and environment variables; HTTP: URL, headers and OAuth sign-in.
Each variable and header has a "Secret" box (ticked automatically for values that look like keys or
tokens): a secret value goes to the keyring and ``mcp.json`` holds a ``${keyring:…}`` reference. Editing
a server shows stored secrets as "stored in the keyring"; leaving such a field empty keeps the secret.
``draft()`` returns a :class:`~desktop_app.runtime.host.manage.ServerDraft`; the dialog reports
``submitted(draft, previous)`` and the Servers panel saves it (problems come back through
:meth:`ServerDialog.show_problem`). Opened with ``open()``, never ``exec()``.

On Save a stdio command is looked up as a launch would (``environment.command_problem``: the server's own PATH,
else the login shell's): one that is not there is a warning under the form and the button becomes "Add anyway"
(a program may be installed later), which saves it; changing the command takes the warning back.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QStackedWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from desktop_app.runtime.host.manage import ServerDraft
from desktop_app.runtime.host.secrets import is_secret
from desktop_app.ui.chat.common import ERROR_COLOR, WARN_COLOR

KINDS = (("stdio", "Local command (stdio)"), ("http", "Remote URL (HTTP)"), ("sse", "Remote URL (SSE)"))
_KEYRING_REF = re.compile(r"^\$\{keyring:([^}]+)\}$")
MUTED = "QLabel { color: palette(placeholder-text); }"
WARNING_COLOR = WARN_COLOR
CommandCheck = Callable[[str, Mapping[str, str]], "str | None"]


def find_command_problem(command: str, env: Mapping[str, str]) -> str | None:
    """The runtime's own lookup (``environment.command_problem``), imported when first needed."""
    from desktop_app.runtime.host.environment import command_problem

    return command_problem(command, env)


STORED = "•••••• stored in the keyring (leave empty to keep)"


class PairRow(QWidget):
    """One ``NAME = value`` row with a Secret box and a remove button."""

    removed = Signal(object)

    def __init__(self, section: str, index: int, *, header: bool) -> None:
        super().__init__()
        self.header = header
        self.stored_reference: str | None = None
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        what = "Header" if header else "Variable"
        self.key = QLineEdit()
        self.key.setObjectName(f"{section}Key{index}")
        self.key.setAccessibleName(f"{what} {index + 1} name")
        self.key.setPlaceholderText("Authorization" if header else "NAME")
        self.value = QLineEdit()
        self.value.setObjectName(f"{section}Value{index}")
        self.value.setAccessibleName(f"{what} {index + 1} value")
        self.value.setPlaceholderText("value")
        self.secret = QCheckBox("Secret")
        self.secret.setObjectName(f"{section}Secret{index}")
        self.secret.setAccessibleName(f"{what} {index + 1} is a secret (kept in the keyring)")
        self.secret.setToolTip("Keep the value in the system keyring; mcp.json gets a reference")
        self.secret.toggled.connect(self._on_secret_toggled)
        self.remove = QToolButton()
        self.remove.setText("✕")
        self.remove.setObjectName(f"{section}Remove{index}")
        self.remove.setAccessibleName(f"Remove {what.lower()} {index + 1}")
        self.remove.clicked.connect(lambda: self.removed.emit(self))
        self.value.textEdited.connect(self._on_value_edited)
        layout.addWidget(self.key, 2)
        layout.addWidget(self.value, 3)
        layout.addWidget(self.secret)
        layout.addWidget(self.remove)

    def set(self, key: str, value: str) -> None:
        self.key.setText(key)
        match = _KEYRING_REF.match(value)
        if match:
            self.stored_reference = value
            self.secret.setChecked(True)
            self.value.setPlaceholderText(STORED)
        else:
            self.value.setText(value)
            self.secret.setChecked(is_secret(key, value, header=self.header))

    def _on_value_edited(self, text: str) -> None:
        if not self.secret.isChecked() and is_secret(self.key.text(), text, header=self.header):
            self.secret.setChecked(True)

    def _on_secret_toggled(self, on: bool) -> None:
        self.value.setEchoMode(QLineEdit.EchoMode.Password if on else QLineEdit.EchoMode.Normal)


class PairEditor(QWidget):
    """A list of :class:`PairRow` with an "Add" button (environment variables or HTTP headers)."""

    def __init__(self, section: str, *, header: bool) -> None:
        super().__init__()
        self.section, self.header = section, header
        self.setObjectName(f"{section}Editor")
        self.rows: list[PairRow] = []
        self._count = 0
        self.layout_ = QVBoxLayout(self)
        self.layout_.setContentsMargins(0, 0, 0, 0)
        self.layout_.setSpacing(4)
        self.add_button = QPushButton("Add header" if header else "Add variable")
        self.add_button.setObjectName(f"{section}AddButton")
        self.add_button.setAccessibleName("Add an HTTP header" if header else "Add an environment variable")
        self.add_button.clicked.connect(lambda: self.add_row())
        row = QHBoxLayout()
        row.addWidget(self.add_button)
        row.addStretch(1)
        self.layout_.addLayout(row)

    def add_row(self, key: str = "", value: str = "") -> PairRow:
        row = PairRow(self.section, self._count, header=self.header)
        self._count += 1
        row.set(key, value)
        row.removed.connect(self._on_removed)
        self.layout_.insertWidget(len(self.rows), row)
        self.rows.append(row)
        return row

    def _on_removed(self, row: PairRow) -> None:
        self.rows.remove(row)
        row.deleteLater()

    def values(self) -> tuple[dict[str, str], dict[str, str]]:
        """``(plain, secret)``: the plain values (and kept keyring references), and the new secrets."""
        plain: dict[str, str] = {}
        secrets: dict[str, str] = {}
        for row in self.rows:
            key = row.key.text().strip()
            value = row.value.text()
            if not key:
                continue
            if row.secret.isChecked() and value:
                secrets[key] = value
            elif row.secret.isChecked() and row.stored_reference:
                plain[key] = row.stored_reference
            else:
                plain[key] = value
        return plain, secrets


class ServerDialog(QDialog):
    """The add/edit form.

    Signals:
        submitted(object, object): the ``ServerDraft`` and the name it replaces (``None`` when adding).
    """

    submitted = Signal(object, object)

    def __init__(
        self,
        parent: QWidget | None = None,
        *,
        name: str | None = None,
        entry: Any = None,
        command_check: CommandCheck = find_command_problem,
    ) -> None:
        super().__init__(parent)
        self.previous = name
        self.command_check = command_check
        self.warned_command: str | None = None  # the command the user was warned about (Save then saves it)
        self.original: dict[str, Any] = dict(entry or {})
        self.setObjectName("serverDialog")
        self.setWindowTitle(f"Edit MCP server “{name}”" if name else "Add an MCP server")
        self.setMinimumWidth(620)
        layout = QVBoxLayout(self)
        form = QFormLayout()
        self.name = QLineEdit(name or "")
        self.name.setObjectName("serverNameEdit")
        self.name.setAccessibleName("Server name")
        self.name.setPlaceholderText("e.g. github")
        form.addRow("&Name:", self.name)
        self.kind = QComboBox()
        self.kind.setObjectName("serverKindCombo")
        self.kind.setAccessibleName("How to reach the server")
        for key, label in KINDS:
            self.kind.addItem(label, key)
        form.addRow("&Runs as:", self.kind)
        layout.addLayout(form)

        self.pages = QStackedWidget()
        self.pages.addWidget(self._stdio_page())
        self.pages.addWidget(self._http_page())
        layout.addWidget(self.pages)
        self.kind.currentIndexChanged.connect(lambda i: self.pages.setCurrentIndex(0 if i == 0 else 1))

        self.problem = QLabel("")
        self.problem.setObjectName("serverProblem")
        self.problem.setWordWrap(True)
        self.problem.setStyleSheet(f"QLabel {{ color: {ERROR_COLOR}; }}")
        self.problem.hide()
        layout.addWidget(self.problem)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel)
        self.save_button = self.buttons.button(QDialogButtonBox.StandardButton.Save)
        self.save_button.setObjectName("serverSaveButton")
        self.save_button.setAccessibleName("Save the server and start it")
        self.save_label = "Add and start" if name is None else "Save and restart"
        self.save_button.setText(self.save_label)
        self.buttons.button(QDialogButtonBox.StandardButton.Cancel).setObjectName("serverCancelButton")
        self.buttons.accepted.connect(self._on_save)
        self.buttons.rejected.connect(self.reject)
        layout.addWidget(self.buttons)
        if entry:
            self._load(self.original)
        self._align_labels()
        self.command.textChanged.connect(self._on_command_changed)

    def _align_labels(self) -> None:
        """One label column for the outer form and the stdio/HTTP pages below it."""
        forms = [f for f in self.findChildren(QFormLayout) if f.parent() is not self.oauth_box]
        labels = [
            label
            for form in forms
            for row in range(form.rowCount())
            if (item := form.itemAt(row, QFormLayout.ItemRole.LabelRole)) is not None
            and (label := item.widget()) is not None
        ]
        width = max((label.sizeHint().width() for label in labels), default=0)
        for label in labels:
            label.setMinimumWidth(width)

    def _stdio_page(self) -> QWidget:
        page = QWidget()
        form = QFormLayout(page)
        form.setContentsMargins(0, 0, 0, 0)
        self.command = QLineEdit()
        self.command.setObjectName("serverCommandEdit")
        self.command.setAccessibleName("Command")
        self.command.setPlaceholderText("npx, uvx, docker, or a path")
        form.addRow("&Command:", self.command)
        self.args = QPlainTextEdit()
        self.args.setObjectName("serverArgsEdit")
        self.args.setAccessibleName("Arguments, one per line")
        self.args.setPlaceholderText("-y\n@modelcontextprotocol/server-filesystem\n~/Documents")
        self.args.setFixedHeight(84)
        form.addRow("&Arguments:", self.args)
        hint = QLabel("One argument per line, exactly as the program receives it (no shell quoting).")
        hint.setStyleSheet(MUTED)
        form.addRow("", hint)
        self.env = PairEditor("env", header=False)
        form.addRow("&Environment:", self.env)
        return page

    def _http_page(self) -> QWidget:
        page = QWidget()
        form = QFormLayout(page)
        form.setContentsMargins(0, 0, 0, 0)
        self.url = QLineEdit()
        self.url.setObjectName("serverUrlEdit")
        self.url.setAccessibleName("Server URL")
        self.url.setPlaceholderText("https://example.com/mcp")
        form.addRow("&URL:", self.url)
        self.headers = PairEditor("headers", header=True)
        form.addRow("&Headers:", self.headers)
        self.oauth_box = QGroupBox("Sign in with the browser (OAuth)")
        self.oauth_box.setObjectName("serverOauthBox")
        self.oauth_box.setCheckable(True)
        self.oauth_box.setChecked(False)
        oauth_form = QFormLayout(self.oauth_box)
        self.client_id = QLineEdit()
        self.client_id.setObjectName("serverOauthClientId")
        self.client_id.setAccessibleName("OAuth client ID")
        self.client_id.setPlaceholderText("leave empty: the app registers itself")
        oauth_form.addRow("Client ID:", self.client_id)
        self.scopes = QLineEdit()
        self.scopes.setObjectName("serverOauthScopes")
        self.scopes.setAccessibleName("OAuth scopes")
        self.scopes.setPlaceholderText("extra scopes, separated by spaces")
        oauth_form.addRow("Scopes:", self.scopes)
        form.addRow("", self.oauth_box)
        return page

    def _load(self, entry: dict[str, Any]) -> None:
        kind = str(entry.get("type") or entry.get("transport") or ("stdio" if entry.get("command") else "http"))
        kind = {"streamable-http": "http", "streamable_http": "http", "streamablehttp": "http"}.get(kind, kind)
        self.kind.setCurrentIndex(max(self.kind.findData(kind), 0))
        self.command.setText(str(entry.get("command") or ""))
        self.args.setPlainText("\n".join(str(a) for a in entry.get("args") or []))
        for key, value in (entry.get("env") or {}).items():
            self.env.add_row(str(key), str(value))
        self.url.setText(str(entry.get("url") or ""))
        for key, value in (entry.get("headers") or {}).items():
            self.headers.add_row(str(key), str(value))
        oauth = entry.get("oauth")
        self.oauth_box.setChecked(bool(oauth))
        if isinstance(oauth, dict):
            self.client_id.setText(str(oauth.get("clientId") or ""))
            self.scopes.setText(" ".join(oauth.get("scopes") or []))

    def draft(self) -> ServerDraft:
        """The form as a draft: fields this form does not show (timeouts, hooks, pinned…) are kept."""
        entry = {
            k: v
            for k, v in self.original.items()
            if k not in {"command", "args", "env", "url", "headers", "type", "transport", "oauth"}
        }
        secrets: dict[tuple[str, str], str] = {}
        kind = str(self.kind.currentData())
        if kind == "stdio":
            entry["command"] = self.command.text().strip()
            args = [line for line in self.args.toPlainText().splitlines() if line.strip()]
            if args:
                entry["args"] = args
            plain, secret = self.env.values()
            if plain or secret:
                entry["env"] = plain
            secrets.update({("env", k): v for k, v in secret.items()})
        else:
            entry["url"] = self.url.text().strip()
            if kind == "sse" or self.original.get("type"):
                entry["type"] = kind
            plain, secret = self.headers.values()
            if plain or secret:
                entry["headers"] = plain
            secrets.update({("headers", k): v for k, v in secret.items()})
            if self.oauth_box.isChecked():
                oauth: dict[str, Any] = {}
                if self.client_id.text().strip():
                    oauth["clientId"] = self.client_id.text().strip()
                if self.scopes.text().split():
                    oauth["scopes"] = self.scopes.text().split()
                entry["oauth"] = oauth or True
        # a draft's secrets need a placeholder in the entry so that validation sees the field
        for section, key in secrets:
            entry.setdefault(section, {})[key] = "${keyring:pending}"
        return ServerDraft(self.name.text().strip(), entry, secrets)

    def check_command(self) -> str | None:
        """Look the stdio command up; when it is not there, say so under the form (a warning, not a refusal)."""
        command = self.command.text().strip()
        if self.kind.currentData() != "stdio" or not command or command == self.warned_command:
            return None
        problem = self.command_check(command, self.env.values()[0])
        if problem is not None:
            self.warned_command = command
            self.problem.setText(f"⚠ {problem}")
            self.problem.setStyleSheet(f"QLabel {{ color: {WARNING_COLOR}; }}")
            self.problem.show()
            self.save_button.setText("Add anyway" if self.previous is None else "Save anyway")
        return problem

    def _on_command_changed(self, _text: str) -> None:
        if self.warned_command is not None:
            self.warned_command = None
            self.problem.hide()
            self.save_button.setText(self.save_label)

    def _on_save(self) -> None:
        if self.check_command() is not None:
            return  # the warning is shown now: a second Save ("Add anyway") saves
        self.problem.hide()
        self.submitted.emit(self.draft(), self.previous)

    def show_problem(self, text: str) -> None:
        self.problem.setText(text)
        self.problem.setStyleSheet(f"QLabel {{ color: {ERROR_COLOR}; }}")
        self.problem.show()


__all__ = ["PairEditor", "ServerDialog"]
