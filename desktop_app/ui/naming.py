"""Stable names for widgets Qt creates for us (a dialog button box's standard buttons)."""

from __future__ import annotations

from PySide6.QtWidgets import QDialogButtonBox


def name_buttons(box: QDialogButtonBox, prefix: str) -> QDialogButtonBox:
    """Give each unnamed button of ``box`` the objectName ``<prefix><Button>Button`` (``approvalsCloseButton``)."""
    for button in box.buttons():
        if button.objectName():
            continue
        standard = box.standardButton(button)
        word = (standard.name if standard != QDialogButtonBox.StandardButton.NoButton else None) or button.text()
        word = "".join(part[:1].upper() + part[1:] for part in word.replace("&", "").split())
        button.setObjectName(f"{prefix}{word}Button")
    return box


__all__ = ["name_buttons"]
