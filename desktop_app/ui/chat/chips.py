"""Chips above the composer: one per context item and per attachment, each removable with its × button.

``ChipBar`` lays its chips out left to right and wraps them onto new lines (``ui/flow.FlowLayout``); it hides itself
when it holds none. Chips are addressed by a key the owner chooses.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QPixmap
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QSizePolicy, QToolButton, QWidget

from desktop_app.ui.flow import FlowLayout

CHIP_STYLE = """
QFrame#chip {
    border: 1px solid palette(mid);
    border-radius: 11px;
    background: palette(alternate-base);
}
QFrame#chip[chipKind="attachment"] { background: palette(base); }
QFrame#chip QLabel { background: transparent; }
QToolButton#chipRemove { border: none; padding: 0px 2px; font-weight: bold; }
QToolButton#chipRemove:hover { color: palette(highlight); }
QToolButton#chipRemove:focus { background: palette(highlight); color: palette(highlighted-text); border-radius: 4px; }
"""


class Chip(QFrame):
    """One chip: an optional thumbnail, a label and a × button.

    Signals:
        remove_requested(): the × was clicked.
    """

    remove_requested = Signal()

    def __init__(
        self,
        text: str,
        *,
        kind: str,
        tooltip: str = "",
        pixmap: QPixmap | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("chip")
        self.setProperty("chipKind", kind)
        self.setAccessibleName(text)
        self.setToolTip(tooltip or text)
        self.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 2, 4, 2)
        layout.setSpacing(4)
        self.thumbnail: QLabel | None = None
        if pixmap is not None and not pixmap.isNull():
            self.thumbnail = QLabel()
            self.thumbnail.setObjectName("chipThumbnail")
            side = self.fontMetrics().height() + 4
            self.thumbnail.setPixmap(
                pixmap.scaled(
                    side,
                    side,
                    Qt.AspectRatioMode.KeepAspectRatio,
                    Qt.TransformationMode.SmoothTransformation,
                )
            )
            layout.addWidget(self.thumbnail)
        self.label = QLabel(text)
        self.label.setObjectName("chipLabel")
        layout.addWidget(self.label)
        self.remove_button = QToolButton()
        self.remove_button.setObjectName("chipRemove")
        self.remove_button.setText("×")
        self.remove_button.setAccessibleName(f"Remove {text}")
        self.remove_button.setToolTip("Remove")
        self.remove_button.setCursor(Qt.CursorShape.PointingHandCursor)
        self.remove_button.clicked.connect(self.remove_requested)
        layout.addWidget(self.remove_button)

    @property
    def text(self) -> str:
        return self.label.text()


class ChipBar(QWidget):
    """A wrapping row of chips, keyed by the owner; hidden while empty.

    Signals:
        chip_removed(str): the user removed the chip with this key (it is already gone).
    """

    chip_removed = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("chipBar")
        self.setStyleSheet(CHIP_STYLE)
        self._layout = FlowLayout(self, spacing=6)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self._chips: dict[str, Chip] = {}
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        self.hide()

    def keys(self) -> list[str]:
        return list(self._chips)

    def chip(self, key: str) -> Chip:
        return self._chips[key]

    def chips(self) -> list[Chip]:
        return list(self._chips.values())

    def add_chip(self, key: str, text: str, *, kind: str, tooltip: str = "", pixmap: QPixmap | None = None) -> Chip:
        self.remove_chip(key)
        chip = Chip(text, kind=kind, tooltip=tooltip, pixmap=pixmap, parent=self)
        chip.remove_requested.connect(lambda: self._on_remove_requested(key))
        self._chips[key] = chip
        self._layout.addWidget(chip)
        chip.show()
        self._changed()
        return chip

    def remove_chip(self, key: str) -> bool:
        chip = self._chips.pop(key, None)
        if chip is None:
            return False
        index = self._layout.indexOf(chip)
        if index >= 0:
            self._layout.takeAt(index)
        chip.hide()
        chip.deleteLater()
        self._changed()
        return True

    def clear(self) -> None:
        for key in list(self._chips):
            self.remove_chip(key)

    def _on_remove_requested(self, key: str) -> None:
        if self.remove_chip(key):
            self.chip_removed.emit(key)

    def _changed(self) -> None:
        self.setVisible(bool(self._chips))
        self._layout.invalidate()
        self.updateGeometry()
