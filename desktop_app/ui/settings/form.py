"""A form generated from a pydantic model: one editor per field, from the field's type, title, description
and default. No form is written by hand per field.

Field → editor:

* ``bool`` → check box; ``bool | None`` → "Automatic / On / Off" combo box;
* ``int`` / ``float`` → spin box with the field's ``ge``/``gt``/``le``/``lt`` bounds; ``{"unit": "bytes"}``: a
  size with its unit (``units.ByteSizeEdit``: 5242880 shows as 5 MB); ``{"zero": text}``: what 0 means, shown
  instead of 0;
* ``Literal[...]`` → combo box (``json_schema_extra={"labels": {value: text}}`` names the choices);
* ``str`` / ``str | None`` → line edit (``{"multiline": True}``: a text box; ``{"secret": True}``: masked;
  ``{"widget": "keysequence"}``: a key-sequence recorder); an empty ``str | None`` is ``None``;
* ``list[str]`` → a text box with one item per line.

``{"none": text}`` says in words what ``None`` means for an optional field (the tri-state combo's first choice,
an empty line edit's placeholder), e.g. "Model's default". Each row shows the title (the field name made readable
when there is none), the editor, and a muted line with the description and the default, in the units the editor
shows. :func:`align_labels` gives the forms of one page one label column. :meth:`ModelForm.values` returns the
edited values as a dict for ``model_validate``; :meth:`ModelForm.show_errors` puts validation messages under their
fields.
"""

from __future__ import annotations

import types
from collections.abc import Sequence
from typing import Any, Literal, Union, get_args, get_origin

import annotated_types
from pydantic import BaseModel
from pydantic.fields import FieldInfo
from PySide6.QtCore import Signal
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QKeySequenceEdit,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from desktop_app.ui.settings.units import ByteSizeEdit, human_bytes
from desktop_app.ui.theme.tokens import SPACE

MUTED_STYLE = "QLabel { color: palette(placeholder-text); }"
ERROR_STYLE = "QLabel { color: palette(bright-text); }"  # the theme's danger colour, resolved when drawn
INT_MAX = 2**31 - 1
TRI_STATE = (("Automatic", None), ("On", True), ("Off", False))
UNIT_SUFFIXES = {"seconds": " seconds", "percent": " %", "tokens": " tokens", "characters": " characters",
                 "points": " pt"}  # fmt: skip
"""A number field's ``json_schema_extra={"unit": …}``: what follows the number in its box (human units)."""


def field_title(name: str, info: FieldInfo) -> str:
    """The field's title, else its name made readable (``max_tool_rounds`` → "Max tool rounds")."""
    if info.title:
        return info.title
    text = name.replace("_", " ").strip()
    return text[:1].upper() + text[1:]


def camel(*parts: str) -> str:
    """``("settings", "max_tool_rounds")`` → ``settingsMaxToolRounds``: stable object names for widgets."""
    words = [w for part in parts for w in part.replace(".", "_").split("_") if w]
    return words[0][:1].lower() + words[0][1:] + "".join(w[:1].upper() + w[1:] for w in words[1:]) if words else ""


def _extra(info: FieldInfo) -> dict[str, Any]:
    extra = info.json_schema_extra
    return dict(extra) if isinstance(extra, dict) else {}


def _unwrap_optional(annotation: Any) -> tuple[Any, bool]:
    origin = get_origin(annotation)
    if origin in (Union, types.UnionType):
        args = [a for a in get_args(annotation) if a is not type(None)]
        if len(args) == 1 and len(get_args(annotation)) == 2:
            return args[0], True
    return annotation, False


def _bounds(info: FieldInfo) -> tuple[float | None, float | None, bool]:
    low = high = None
    exclusive_low = False
    for item in info.metadata:
        if isinstance(item, annotated_types.Ge):
            low = float(item.ge)  # type: ignore[arg-type]
        elif isinstance(item, annotated_types.Gt):
            low, exclusive_low = float(item.gt), True  # type: ignore[arg-type]
        elif isinstance(item, annotated_types.Le):
            high = float(item.le)  # type: ignore[arg-type]
        elif isinstance(item, annotated_types.Lt):
            high = float(item.lt)  # type: ignore[arg-type]
    return low, high, exclusive_low


def is_editable(info: FieldInfo) -> bool:
    """Whether :class:`ModelForm` has an editor for this field's type (nested models have their own page)."""
    annotation, _optional = _unwrap_optional(info.annotation)
    if annotation in (bool, int, float, str) or get_origin(annotation) is Literal:
        return True
    return get_origin(annotation) is list and get_args(annotation) == (str,)


def default_text(info: FieldInfo) -> str:
    if info.default_factory is not None:
        return ""
    value = info.default
    extra = _extra(info)
    if value is None or value == "":
        return ""
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, int) and value == 0 and extra.get("zero"):
        return str(extra["zero"])
    if isinstance(value, int) and extra.get("unit") == "bytes":
        return human_bytes(value)
    if isinstance(value, str):
        labels = _extra(info).get("labels", {})
        return str(labels.get(value, value))
    return f"{value:g}" if isinstance(value, float) else str(value)


TEXT_FIELD_CHARS = 64
"""A text field is at most this many average characters wide (a URL, a path, a model name), not the window's width."""
COMPACT_KINDS = ("int", "float", "bytes", "choice", "tristate", "keys")
"""Editors as wide as their content: a number box fits its largest value with its unit, a combo box its longest
choice (a 1000 px number box in a 1920 px window reads as a text field)."""


def _cap_width(widget: QWidget, kind: str) -> None:
    """The editor's maximum width: its content for numbers and choices, ``TEXT_FIELD_CHARS`` for text."""
    widget.ensurePolished()  # the size with the stylesheet's padding, not the bare widget's
    if kind in COMPACT_KINDS:
        widget.setMaximumWidth(widget.sizeHint().width())
    elif kind != "bool":
        widget.setMaximumWidth(widget.fontMetrics().averageCharWidth() * TEXT_FIELD_CHARS)


class FieldEditor:
    """One field's editor widget, with ``value()`` / ``set_value()`` in the field's own type."""

    def __init__(self, name: str, info: FieldInfo, object_name: str) -> None:
        self.name, self.info = name, info
        annotation, self.optional = _unwrap_optional(info.annotation)
        extra = _extra(info)
        title = field_title(name, info)
        self.kind = "text"
        widget: QWidget
        if annotation is bool and self.optional:
            self.kind = "tristate"
            combo = QComboBox()
            for text, value in TRI_STATE:
                combo.addItem(extra.get("none", text) if value is None else text, value)
            widget = combo
        elif annotation is bool:
            self.kind = "bool"
            widget = QCheckBox(title)
        elif annotation is int and extra.get("unit") == "bytes":
            self.kind = "bytes"
            widget = ByteSizeEdit()
        elif annotation in (int, float):
            self.kind = "int" if annotation is int else "float"
            low, high, exclusive = _bounds(info)
            spin: QSpinBox | QDoubleSpinBox
            if annotation is int:
                spin = QSpinBox()
                spin.setRange(int(low) + int(exclusive) if low is not None else -INT_MAX, int(high or INT_MAX))
                if extra.get("zero") and low == 0:
                    spin.setSpecialValueText(str(extra["zero"]))  # what 0 means, in words
            else:
                spin = QDoubleSpinBox()
                spin.setDecimals(1)
                spin.setRange((low or 0.0) + (0.1 if exclusive else 0.0) if low is not None else -1e9, high or 1e9)
            spin.setAccelerated(True)
            spin.lineEdit().setTextMargins(SPACE.xs, 0, 0, 0)  # a stylesheet's padding does not reach a spin box's text
            spin.setSuffix(UNIT_SUFFIXES.get(str(extra.get("unit", "")), ""))
            widget = spin
        elif get_origin(annotation) is Literal:
            self.kind = "choice"
            combo = QComboBox()
            labels = extra.get("labels", {})
            for value in get_args(annotation):
                combo.addItem(labels.get(value, str(value)), value)
            widget = combo
        elif get_origin(annotation) is list:
            self.kind = "lines"
            box = QPlainTextEdit()
            box.setPlaceholderText("One per line")
            box.setFixedHeight(72)
            widget = box
        elif extra.get("widget") == "keysequence":
            self.kind = "keys"
            widget = QKeySequenceEdit()
            widget.setClearButtonEnabled(True)
            widget.setMaximumSequenceLength(1)
        elif extra.get("multiline"):
            self.kind = "multiline"
            box = QPlainTextEdit()
            box.setFixedHeight(88)
            widget = box
        else:
            edit = QLineEdit()
            if extra.get("secret"):
                edit.setEchoMode(QLineEdit.EchoMode.Password)
            if self.optional:
                edit.setPlaceholderText(extra.get("none", "not set"))
            widget = edit
        _cap_width(widget, self.kind)
        widget.setObjectName(object_name)
        widget.setAccessibleName(title)
        if info.description:
            widget.setToolTip(info.description)
            widget.setAccessibleDescription(info.description)
        self.widget = widget

    def value(self) -> Any:
        w = self.widget
        if isinstance(w, QCheckBox):
            return w.isChecked()
        if isinstance(w, QComboBox):
            return w.currentData()
        if isinstance(w, QSpinBox | QDoubleSpinBox | ByteSizeEdit):
            return w.value()
        if isinstance(w, QKeySequenceEdit):
            return w.keySequence().toString(QKeySequence.SequenceFormat.PortableText)
        if isinstance(w, QPlainTextEdit):
            text = w.toPlainText()
            return [line.strip() for line in text.splitlines() if line.strip()] if self.kind == "lines" else text
        assert isinstance(w, QLineEdit)
        text = w.text()
        return None if self.optional and not text.strip() else text

    def set_value(self, value: Any) -> None:
        w = self.widget
        if isinstance(w, QCheckBox):
            w.setChecked(bool(value))
        elif isinstance(w, QComboBox):
            index = w.findData(value)
            w.setCurrentIndex(max(index, 0))
        elif isinstance(w, QSpinBox):
            w.setValue(int(value))
        elif isinstance(w, QDoubleSpinBox):
            w.setValue(float(value))
        elif isinstance(w, ByteSizeEdit):
            w.set_value(int(value))
        elif isinstance(w, QKeySequenceEdit):
            w.setKeySequence(QKeySequence(str(value or ""), QKeySequence.SequenceFormat.PortableText))
        elif isinstance(w, QPlainTextEdit):
            w.setPlainText("\n".join(value) if isinstance(value, list) else str(value or ""))
        elif isinstance(w, QLineEdit):
            w.setText("" if value is None else str(value))

    def connect_changed(self, callback: Any) -> None:
        w = self.widget
        if isinstance(w, QCheckBox):
            w.toggled.connect(callback)
        elif isinstance(w, QComboBox):
            w.currentIndexChanged.connect(callback)
        elif isinstance(w, QSpinBox | QDoubleSpinBox):
            w.valueChanged.connect(callback)
        elif isinstance(w, ByteSizeEdit):
            w.changed.connect(callback)
        elif isinstance(w, QKeySequenceEdit):
            w.keySequenceChanged.connect(callback)
        elif isinstance(w, QPlainTextEdit | QLineEdit):
            w.textChanged.connect(callback)


class ModelForm(QWidget):
    """Editors for ``fields`` of ``model`` (all editable fields when ``None``), filled from ``value``.

    Signals:
        changed(): the user edited a value.
    """

    changed = Signal()

    def __init__(
        self,
        model: type[BaseModel],
        value: BaseModel,
        *,
        fields: Sequence[str] | None = None,
        prefix: str = "settings",
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.model = model
        self.setObjectName(camel(prefix, "form"))
        names = [n for n, info in model.model_fields.items() if fields is None and is_editable(info)]
        if fields is not None:
            unknown = [n for n in fields if n not in model.model_fields]
            if unknown:
                raise ValueError(f"{model.__name__} has no field(s) {', '.join(unknown)}")
            names = list(fields)
        self.editors: dict[str, FieldEditor] = {}
        self.errors: dict[str, QLabel] = {}
        self.labels: list[QLabel] = []  # the label column (a check box row's is empty), for ``align_labels``
        layout = QFormLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setVerticalSpacing(4)
        layout.setHorizontalSpacing(16)
        layout.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        layout.setRowWrapPolicy(QFormLayout.RowWrapPolicy.DontWrapRows)
        for name in names:
            info = model.model_fields[name]
            editor = FieldEditor(name, info, camel(prefix, name))
            editor.set_value(getattr(value, name))
            editor.connect_changed(lambda *_a: self.changed.emit())
            self.editors[name] = editor
            cell = QWidget()
            column = QVBoxLayout(cell)
            column.setContentsMargins(0, 0, 0, 8)
            column.setSpacing(2)
            column.addWidget(editor.widget)
            note = self._note(info)
            if note:
                hint = QLabel(note)
                hint.setObjectName(camel(prefix, name, "hint"))
                hint.setWordWrap(True)
                hint.setStyleSheet(MUTED_STYLE)
                column.addWidget(hint)
            error = QLabel("")
            error.setObjectName(camel(prefix, name, "error"))
            error.setWordWrap(True)
            error.setStyleSheet(ERROR_STYLE)
            error.hide()
            column.addWidget(error)
            self.errors[name] = error
            label = QLabel("" if editor.kind == "bool" else field_title(name, info) + ":")
            if editor.kind != "bool":
                label.setBuddy(editor.widget)
                # on the field's first line of text, not at its top edge (a field has a border and padding)
                label.setContentsMargins(0, SPACE.xs + 1, 0, 0)
            self.labels.append(label)
            layout.addRow(label, cell)

    @staticmethod
    def _note(info: FieldInfo) -> str:
        description = (info.description or "").rstrip(".")
        default = default_text(info)
        parts = [description + "." if description else "", f"Default: {default}." if default else ""]
        return " ".join(p for p in parts if p)

    def values(self) -> dict[str, Any]:
        return {name: editor.value() for name, editor in self.editors.items()}

    def set_values(self, value: BaseModel) -> None:
        for name, editor in self.editors.items():
            editor.set_value(getattr(value, name))

    def show_errors(self, errors: dict[str, str]) -> None:
        """Show ``{field: message}`` under the fields (and hide the old messages)."""
        for name, label in self.errors.items():
            label.setText(errors.get(name, ""))
            label.setVisible(name in errors)


def align_labels(forms: Sequence[QWidget]) -> int:
    """One label column for the forms of a page (each form would size its own): every label of the
    ``ModelForm``s in ``forms`` (and inside them) as wide as the widest; returns that width."""
    found: list[ModelForm] = []
    for widget in forms:
        found.extend([widget] if isinstance(widget, ModelForm) else [])
        found.extend(widget.findChildren(ModelForm))
    rows = [layout for form in found if isinstance(layout := form.layout(), QFormLayout)]
    labels: list[QWidget] = []
    for layout in rows:
        for row in range(layout.rowCount()):
            item = layout.itemAt(row, QFormLayout.ItemRole.LabelRole)
            if item is not None and (label := item.widget()) is not None:
                labels.append(label)
    width = max((label.sizeHint().width() for label in labels), default=0)
    for label in labels:
        label.setMinimumWidth(width)
    return width


__all__ = ["FieldEditor", "ModelForm", "align_labels", "camel", "field_title", "is_editable"]
