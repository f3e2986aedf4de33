"""Sizes in bytes as people read them: ``human_bytes`` (5242880 → "5 MB") and :class:`ByteSizeEdit`, the
settings form's editor for a field marked ``json_schema_extra={"unit": "bytes"}`` (a number and a unit).

Units are binary, as file managers count them: 1 KB = 1024 bytes, 1 MB = 1024 KB, 1 GB = 1024 MB.
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QComboBox, QDoubleSpinBox, QHBoxLayout, QWidget

from desktop_app.ui.theme.tokens import SPACE

UNITS: tuple[tuple[str, int], ...] = (("bytes", 1), ("KB", 1024), ("MB", 1024**2), ("GB", 1024**3))


def _number(value: float) -> str:
    """Up to two decimals, without trailing zeros: 5.0 → "5", 1.5 → "1.5"."""
    return f"{value:.2f}".rstrip("0").rstrip(".")


def unit_for(size: int) -> tuple[str, int]:
    """The largest unit ``size`` holds at least once (bytes for anything under 1 KB)."""
    chosen = UNITS[0]
    for unit in UNITS:
        if size >= unit[1]:
            chosen = unit
    return chosen


def human_bytes(size: int) -> str:
    """``5242880`` → "5 MB", ``204800`` → "200 KB", ``1`` → "1 byte" (a no-break space before the unit)."""
    name, factor = unit_for(size)
    if factor == 1:
        return f"{size}\u00a0byte{'' if size == 1 else 's'}"
    return f"{_number(size / factor)}\u00a0{name}"  # never broken across lines


class _NumberBox(QDoubleSpinBox):
    """A spin box that writes 5 as "5" and 1.5 as "1.5" (not "5.00")."""

    def textFromValue(self, value: float) -> str:
        return _number(value)


class ByteSizeEdit(QWidget):
    """A size: a number and its unit (bytes, KB, MB, GB); ``value()`` is the size in bytes.

    Signals:
        changed(): the number or the unit changed.
    """

    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(6)
        self.number = _NumberBox()
        self.number.lineEdit().setTextMargins(SPACE.xs, 0, 0, 0)  # as the form's other spin boxes
        self.number.setObjectName("sizeNumber")
        self.number.setDecimals(2)
        self.number.setRange(0, 1_000_000)
        self.number.setAccelerated(True)
        self.unit = QComboBox()
        self.unit.setObjectName("sizeUnit")
        self.unit.setAccessibleName("Unit")
        for name, factor in UNITS:
            self.unit.addItem(name, factor)
        row.addWidget(self.number, 1)
        row.addWidget(self.unit)
        self.setFocusProxy(self.number)
        self.number.valueChanged.connect(self.changed)
        self.unit.currentIndexChanged.connect(self._on_unit_changed)
        self._on_unit_changed()

    def value(self) -> int:
        return round(self.number.value() * int(self.unit.currentData()))

    def set_value(self, size: int) -> None:
        name, factor = unit_for(int(size))
        self.unit.setCurrentIndex(self.unit.findText(name))
        self.number.setValue(int(size) / factor)

    def text(self) -> str:
        """What the editor shows, e.g. "5 MB"."""
        return f"{self.number.text()} {self.unit.currentText()}"

    def _on_unit_changed(self, _index: int = 0) -> None:
        self.number.setDecimals(0 if self.unit.currentData() == 1 else 2)  # no fractions of a byte
        self.changed.emit()

    def setAccessibleName(self, name: str) -> None:
        super().setAccessibleName(name)
        self.number.setAccessibleName(name)

    def setToolTip(self, text: str) -> None:
        super().setToolTip(text)
        self.number.setToolTip(text)


__all__ = ["UNITS", "ByteSizeEdit", "human_bytes", "unit_for"]
