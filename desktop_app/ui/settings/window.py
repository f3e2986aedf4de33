"""The Settings window: a sidebar of registered pages, each a generated form (plus the page's own widget).

Save collects every page into one ``Settings.model_dump()``, validates it with pydantic (messages go under
their fields, and the first page with a problem is shown) and hands it to ``Runtime.update_settings``,
which writes the file atomically. A broken settings file is named with its path, line and column at the
top; saving is then refused (the file is never overwritten) until "Reload the file" reads a fixed one.
Opened non-modally with ``show()``; ``applied(Settings)`` tells the window to apply the appearance.
"""

from __future__ import annotations

import logging
from typing import Any

from pydantic import BaseModel, ValidationError
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QPushButton,
    QScrollArea,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from desktop_app.runtime.errors import ConfigError
from desktop_app.runtime.settings import Settings, load_settings
from desktop_app.ui.settings.form import ERROR_STYLE, MUTED_STYLE, ModelForm, align_labels, camel
from desktop_app.ui.settings.registry import PageContext, PageExtra, SettingsPage, registered_pages
from desktop_app.ui.theme.tokens import scaled_font

log = logging.getLogger(__name__)
SIDEBAR_STYLE = (
    "QListWidget#settingsPageList { background: palette(alternate-base); padding: 8px 0; }"
    "QListWidget#settingsPageList::item { padding: 7px 16px; }"
)


def _model_at(settings: BaseModel, path: str) -> BaseModel:
    value: Any = settings
    for part in filter(None, path.split(".")):
        value = getattr(value, part)
    if not isinstance(value, BaseModel):
        raise ValueError(f"settings path '{path}' is not a settings model")
    return value


def _dict_at(data: dict[str, Any], path: str) -> dict[str, Any]:
    target = data
    for part in filter(None, path.split(".")):
        target = target[part]
    return target


def problem_text(exc: ConfigError) -> str:
    where = str(exc.path)
    if exc.line is not None:
        where += f", line {exc.line}" + (f", column {exc.column}" if exc.column is not None else "")
    return (
        f"The settings file {where} is broken: {exc.problem}. Switchboard runs on defaults and will not "
        "overwrite it. Fix the file (or remove it), then press “Reload the file”."
    )


class PageView(QScrollArea):
    """One page: heading, description, its generated sections and its own widget, in a scroll area."""

    def __init__(self, page: SettingsPage, settings: Settings, context: PageContext) -> None:
        super().__init__()
        self.page = page
        self.setObjectName(camel("settings", page.key, "page"))
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # a scroll area, not a stop: Tab goes to its fields
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        body = QWidget()
        body.setObjectName(camel("settings", page.key, "body"))
        layout = QVBoxLayout(body)
        layout.setContentsMargins(24, 16, 24, 16)
        layout.setSpacing(12)
        heading = QLabel(page.title)
        heading.setObjectName(camel("settings", page.key, "heading"))
        font = scaled_font(heading.font(), "title")
        font.setBold(True)
        heading.setFont(font)
        layout.addWidget(heading)
        if page.description:
            intro = QLabel(page.description)
            intro.setWordWrap(True)
            intro.setStyleSheet(MUTED_STYLE)
            layout.addWidget(intro)
        self.forms: list[tuple[str, ModelForm]] = []
        for section in page.sections:
            if section.title:
                title = QLabel(section.title)
                title.setStyleSheet("QLabel { font-weight: 600; }")
                layout.addWidget(title)
            if section.description:
                note = QLabel(section.description)
                note.setWordWrap(True)
                note.setStyleSheet(MUTED_STYLE)
                layout.addWidget(note)
            model = _model_at(settings, section.path)
            form = ModelForm(type(model), model, fields=section.fields, prefix=camel("settings", section.path))
            self.forms.append((section.path, form))
            layout.addWidget(form)
        self.extra: PageExtra | None = page.extra(context) if page.extra is not None else None
        if self.extra is not None:
            layout.addWidget(self.extra)
        align_labels([body])  # the page's fields line up, section after section
        layout.addStretch(1)
        self.setWidget(body)

    def contribute(self, data: dict[str, Any]) -> None:
        for path, form in self.forms:
            _dict_at(data, path).update(form.values())
        if self.extra is not None:
            self.extra.contribute(data)

    def reload(self, settings: Settings) -> None:
        for path, form in self.forms:
            form.set_values(_model_at(settings, path))

    def show_errors(self, errors: dict[tuple[str | int, ...], str]) -> bool:
        shown = False
        for path, form in self.forms:
            prefix = tuple(filter(None, path.split(".")))
            mine = {
                str(loc[-1]): msg for loc, msg in errors.items() if loc[:-1] == prefix and str(loc[-1]) in form.editors
            }
            form.show_errors(mine)
            shown = shown or bool(mine)
        if self.extra is not None:
            shown = self.extra.show_errors(errors) or shown
        return shown


class SettingsWindow(QDialog):
    """Every settings page; Save writes them all at once.

    Signals:
        applied(object): the new ``Settings`` were saved and are in force.
    """

    applied = Signal(object)

    def __init__(self, runtime: Any, parent: QWidget | None = None, *, host: Any = None, tasks: Any = None) -> None:
        super().__init__(parent)
        self.runtime = runtime
        self.setObjectName("settingsWindow")
        self.setWindowTitle("Settings")
        self.resize(880, 620)
        self.context = PageContext(runtime=runtime, host=host, tasks=tasks, parent=self)

        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 12)
        self.file_problem = QLabel("")
        self.file_problem.setObjectName("settingsFileProblem")
        self.file_problem.setWordWrap(True)
        self.file_problem.setStyleSheet(ERROR_STYLE + " QLabel { padding: 8px 16px; }")
        self.file_problem.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.file_problem.hide()
        self.reload_button = QPushButton("Reload the file")
        self.reload_button.setObjectName("settingsReloadButton")
        self.reload_button.setAccessibleName("Reload the settings file")
        self.reload_button.clicked.connect(self.reload_file)
        self.reload_button.hide()
        banner = QHBoxLayout()
        banner.addWidget(self.file_problem, 1)
        banner.addWidget(self.reload_button)
        banner.setContentsMargins(0, 0, 16, 0)
        outer.addLayout(banner)

        middle = QHBoxLayout()
        middle.setSpacing(0)
        self.sidebar = QListWidget()
        self.sidebar.setObjectName("settingsPageList")
        self.sidebar.setAccessibleName("Settings pages")
        self.sidebar.setFixedWidth(200)
        self.sidebar.setFrameShape(QFrame.Shape.NoFrame)
        self.sidebar.setStyleSheet(SIDEBAR_STYLE)
        self.stack = QStackedWidget()
        self.stack.setObjectName("settingsPages")
        self.pages: dict[str, PageView] = {}
        for page in registered_pages():
            view = PageView(page, runtime.settings, self.context)
            if view.extra is not None:
                view.extra.changed.connect(self._on_changed)
            for _path, form in view.forms:
                form.changed.connect(self._on_changed)
            self.pages[page.key] = view
            self.stack.addWidget(view)
            self.sidebar.addItem(page.title)
        self.sidebar.currentRowChanged.connect(self.stack.setCurrentIndex)
        self.sidebar.setCurrentRow(0)
        middle.addWidget(self.sidebar)
        middle.addWidget(self.stack, 1)
        outer.addLayout(middle, 1)

        bottom = QHBoxLayout()
        bottom.setContentsMargins(16, 0, 16, 0)
        self.status = QLabel("")
        self.status.setObjectName("settingsStatus")
        self.status.setWordWrap(True)
        self.status.setStyleSheet(MUTED_STYLE)
        bottom.addWidget(self.status, 1)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Close)
        self.save_button = self.buttons.button(QDialogButtonBox.StandardButton.Save)
        self.save_button.setObjectName("settingsSaveButton")
        self.save_button.setAccessibleName("Save settings")
        self.save_button.setEnabled(False)
        close = self.buttons.button(QDialogButtonBox.StandardButton.Close)
        close.setObjectName("settingsCloseButton")
        close.setAccessibleName("Close settings")
        self.save_button.clicked.connect(self.save)
        self.buttons.rejected.connect(self.reject)
        bottom.addWidget(self.buttons)
        outer.addLayout(bottom)
        self._show_file_problem(getattr(runtime, "settings_problem", None))

    # -- pages -------------------------------------------------------------------------------------------

    def show_page(self, key: str) -> PageView:
        view = self.pages[key]
        self.sidebar.setCurrentRow(list(self.pages).index(key))
        return view

    def _on_changed(self) -> None:
        if getattr(self.runtime, "settings_problem", None) is None:
            self.save_button.setEnabled(True)
            self.status.setText("Unsaved changes")

    # -- the settings file -------------------------------------------------------------------------------

    def _show_file_problem(self, problem: ConfigError | None) -> None:
        self.file_problem.setVisible(problem is not None)
        self.reload_button.setVisible(problem is not None)
        if problem is not None:
            self.file_problem.setText(problem_text(problem))
            self.save_button.setEnabled(False)
            self.save_button.setToolTip("The settings file is broken; it is never overwritten.")

    def reload_file(self) -> None:
        """Read the settings file again; a fixed one becomes the runtime's settings and saving works again."""
        problem: ConfigError | None = getattr(self.runtime, "settings_problem", None)
        path = problem.path if problem is not None else getattr(self.runtime, "settings_path", None)
        if path is None:
            return
        try:
            settings = load_settings(path)
        except ConfigError as exc:
            self._show_file_problem(exc)
            return
        self.runtime.recover_settings(settings, path)
        self._show_file_problem(None)
        for view in self.pages.values():
            view.reload(settings)
        self.status.setText(f"Read {path}.")
        self.applied.emit(settings)

    # -- saving ------------------------------------------------------------------------------------------

    def collect(self) -> dict[str, Any]:
        data: dict[str, Any] = self.runtime.settings.model_dump()
        for view in self.pages.values():
            view.contribute(data)
        return data

    def save(self) -> bool:
        """Validate every page and save; problems are shown at their fields. Returns whether it saved."""
        for key, view in self.pages.items():
            problem = view.extra.problem() if view.extra is not None else None
            if problem:
                self.show_page(key)
                self._fail(problem)
                return False
        try:
            settings = Settings.model_validate(self.collect())
        except ValidationError as exc:
            errors = {tuple(err["loc"]): err["msg"] for err in exc.errors()}
            first = None
            for key, view in self.pages.items():
                if view.show_errors(errors) and first is None:
                    first = key
            if first is not None:
                self.show_page(first)
            self._fail("Some values are not valid; see the messages under the fields.")
            return False
        for view in self.pages.values():
            view.show_errors({})
        problem = getattr(self.runtime, "settings_problem", None)
        if problem is not None:
            self._show_file_problem(problem)
            self._fail("Not saved: the settings file is broken and is never overwritten.")
            return False
        try:
            self.runtime.update_settings(settings)
        except OSError as exc:
            self._fail(f"Could not write the settings file: {exc.strerror or exc}. Check the folder's permissions.")
            return False
        for view in self.pages.values():
            if view.extra is not None:
                view.extra.apply(settings)
        path = getattr(self.runtime, "settings_path", None)
        self.status.setStyleSheet(MUTED_STYLE)
        self.status.setText(f"Saved to {path}." if path else "Saved for this session.")
        self.save_button.setEnabled(False)
        self.applied.emit(settings)
        return True

    def _fail(self, text: str) -> None:
        self.status.setStyleSheet(ERROR_STYLE)
        self.status.setText(text)


__all__ = ["PageView", "SettingsWindow", "problem_text"]
