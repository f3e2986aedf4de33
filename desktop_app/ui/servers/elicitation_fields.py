"""One form field per property of an elicitation's flat JSON schema (MCP ``elicitation/create``, form mode).

:func:`make_field` picks the widget from the property's schema:

* ``string`` → ``QLineEdit`` (``format`` ``email``/``uri``/``date``/``date-time`` as placeholder hints,
  ``maxLength`` as a limit);
* ``number``/``integer`` → ``QDoubleSpinBox``/``QSpinBox`` with ``minimum``/``maximum``; below the minimum sits
  a "not set" value, so an optional number can stay empty;
* ``boolean`` → ``QCheckBox``;
* ``enum``, ``oneOf``/``anyOf`` of ``{const, title}`` (and legacy ``enumNames``) → ``QComboBox`` with the titles;
* ``array`` of such choices → a checkable list (multiple choice).

Labels carry the ``title`` (else the key) and a ``*`` when required; ``description`` is help text under the
widget; ``default`` is filled in. :meth:`FormField.value` says whether the field has a value and which.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from desktop_app.ui.chat.common import ERROR_COLOR, escape

NOT_SET = "—"
INT_LIMIT = 2**31 - 2
FORMAT_HINTS = {
    "email": "name@example.com",
    "uri": "https://…",
    "date": "YYYY-MM-DD",
    "date-time": "YYYY-MM-DDThh:mm:ssZ",
}

Reader = Callable[[], tuple[bool, Any]]


@dataclass
class FormField:
    """A property's widgets: ``label`` and ``cell`` go into a form row; ``read`` gives ``(present, value)``."""

    key: str
    kind: str
    required: bool
    label: QLabel
    cell: QWidget
    widget: QWidget
    read: Reader

    def value(self) -> tuple[bool, Any]:
        return self.read()


def choices(spec: dict[str, Any]) -> list[tuple[Any, str]]:
    """``(value, title)`` pairs of an ``enum`` (with legacy ``enumNames``) or a ``oneOf``/``anyOf`` of consts."""
    if isinstance(spec.get("enum"), list):
        names = spec.get("enumNames")
        titles = names if isinstance(names, list) and len(names) == len(spec["enum"]) else spec["enum"]
        return [(value, str(title)) for value, title in zip(spec["enum"], titles, strict=True)]
    options = spec.get("oneOf") or spec.get("anyOf") or []
    return [(o["const"], str(o.get("title", o["const"]))) for o in options if isinstance(o, dict) and "const" in o]


def _line_edit(spec: dict[str, Any]) -> tuple[QWidget, Reader]:
    edit = QLineEdit()
    hint = FORMAT_HINTS.get(str(spec.get("format", "")))
    if hint:
        edit.setPlaceholderText(hint)
    if isinstance(spec.get("maxLength"), int):
        edit.setMaxLength(spec["maxLength"])
    if isinstance(spec.get("default"), str):
        edit.setText(spec["default"])
    return edit, lambda: (edit.text() != "", edit.text())


def _spin_box(spec: dict[str, Any], integer: bool) -> tuple[QWidget, Reader]:
    low, high = spec.get("minimum"), spec.get("maximum")
    if isinstance(spec.get("exclusiveMinimum"), int | float):
        low = spec["exclusiveMinimum"] + (1 if integer else 0.01)
    if isinstance(spec.get("exclusiveMaximum"), int | float):
        high = spec["exclusiveMaximum"] - (1 if integer else 0.01)
    box: QSpinBox | QDoubleSpinBox
    if integer:
        box = QSpinBox()
        low = max(int(low), -INT_LIMIT) if isinstance(low, int | float) else -INT_LIMIT
        high = min(int(high), INT_LIMIT) if isinstance(high, int | float) else INT_LIMIT
        unset: float = low - 1
    else:
        box = QDoubleSpinBox()
        box.setDecimals(2)
        low = float(low) if isinstance(low, int | float) else -1e12
        high = float(high) if isinstance(high, int | float) else 1e12
        unset = low - 1
    box.setRange(unset, high)  # type: ignore[arg-type]  # int for QSpinBox, float for QDoubleSpinBox
    box.setSpecialValueText(NOT_SET)  # shown at the "not set" value just below the minimum
    box.setCorrectionMode(QAbstractSpinBox.CorrectionMode.CorrectToNearestValue)
    default = spec.get("default")
    box.setValue(default if isinstance(default, int | float) and not isinstance(default, bool) else unset)  # type: ignore[arg-type]

    def read() -> tuple[bool, Any]:
        value = box.value()
        if value == unset:
            return False, None
        return True, int(value) if integer else float(value)

    return box, read


def _check_box(spec: dict[str, Any]) -> tuple[QWidget, Reader]:
    box = QCheckBox()
    box.setChecked(bool(spec.get("default", False)))
    return box, lambda: (True, box.isChecked())


def _combo_box(spec: dict[str, Any], options: list[tuple[Any, str]], required: bool) -> tuple[QWidget, Reader]:
    combo = QComboBox()
    if "default" not in spec:
        combo.addItem("Choose…" if required else NOT_SET, None)
    for value, title in options:
        combo.addItem(title, value)
    if "default" in spec:
        index = next((i for i, (value, _t) in enumerate(options) if value == spec["default"]), 0)
        combo.setCurrentIndex(index)

    def read() -> tuple[bool, Any]:
        value = combo.currentData()
        return value is not None, value

    return combo, read


def _multi_choice(spec: dict[str, Any], options: list[tuple[Any, str]]) -> tuple[QWidget, Reader]:
    checks = QListWidget()
    default = spec.get("default")
    defaults: list[Any] = default if isinstance(default, list) else []
    for value, title in options:
        item = QListWidgetItem(title)
        item.setData(Qt.ItemDataRole.UserRole, value)
        item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
        item.setCheckState(Qt.CheckState.Checked if value in defaults else Qt.CheckState.Unchecked)
        checks.addItem(item)
    row = checks.sizeHintForRow(0) if options else 20
    checks.setFixedHeight(min(len(options), 5) * row + 2 * checks.frameWidth() + 2)

    def read() -> tuple[bool, Any]:
        items = (checks.item(i) for i in range(checks.count()))
        picked = [i.data(Qt.ItemDataRole.UserRole) for i in items if i.checkState() == Qt.CheckState.Checked]
        return True, picked

    return checks, read


def make_field(key: str, spec: dict[str, Any], required: bool) -> FormField:
    """The widgets for property ``key`` (see the module docstring for the mapping)."""
    kind = str(spec.get("type", "string"))
    options = choices(spec)
    item_options = choices(spec["items"]) if kind == "array" and isinstance(spec.get("items"), dict) else []
    if options:
        widget, read = _combo_box(spec, options, required)
        kind = "choice"
    elif item_options:
        widget, read = _multi_choice(spec, item_options)
        kind = "choices"
    elif kind in ("number", "integer"):
        widget, read = _spin_box(spec, kind == "integer")
    elif kind == "boolean":
        widget, read = _check_box(spec)
    else:
        widget, read = _line_edit(spec)
    title = str(spec.get("title") or key)
    star = f' <span style="color:{ERROR_COLOR}">*</span>' if required else ""
    label = QLabel(f"{escape(title)}{star}")
    label.setTextFormat(Qt.TextFormat.RichText)
    label.setBuddy(widget)
    widget.setObjectName(f"field_{key}")
    widget.setAccessibleName(title + (" (required)" if required else ""))
    cell = QWidget()
    column = QVBoxLayout(cell)
    column.setContentsMargins(0, 0, 0, 0)
    column.setSpacing(2)
    column.addWidget(widget)
    description = spec.get("description")
    if isinstance(description, str) and description:
        widget.setToolTip(description)
        help_text = QLabel(description)
        help_text.setObjectName(f"help_{key}")
        help_text.setWordWrap(True)
        help_text.setTextFormat(Qt.TextFormat.PlainText)
        help_text.setProperty("role", "caption")  # small secondary text (the application stylesheet)
        column.addWidget(help_text)
    return FormField(key, kind, required, label, cell, widget, read)


__all__ = ["FormField", "choices", "make_field"]
