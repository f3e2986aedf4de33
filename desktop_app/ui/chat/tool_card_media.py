"""Images in a tool result (MCP image content, or an embedded image resource) as labels for the tool card.

A result's text names each image as ``[image image/png, 4033 bytes]`` (``MEDIA_SUMMARY``); once the images
are on the card those lines are dropped from the shown text.
"""

from __future__ import annotations

import base64
import binascii
import re
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QImage, QPixmap
from PySide6.QtWidgets import QLabel

MEDIA_SUMMARY = re.compile(r"^\[(image image|resource \S+ image)/[\w.+-]+, [\d,]+ bytes\]$")
MAX_IMAGE_WIDTH = 480


def image_labels(media: list[dict[str, Any]], tool: str, ratio: float) -> list[QLabel]:
    """One label per decodable image in ``media``, scaled to ``MAX_IMAGE_WIDTH`` at device pixel ``ratio``."""
    shown = []
    for block in media:
        data, mime = block.get("data"), block.get("mimeType", "")
        resource = block.get("resource")
        if block.get("type") == "resource" and isinstance(resource, dict):
            data, mime = resource.get("blob"), resource.get("mimeType", "")
        if not isinstance(data, str) or not str(mime).startswith("image/"):
            continue
        try:
            raw = base64.b64decode(data, validate=False)
        except (binascii.Error, ValueError):
            continue
        image = QImage()
        if not image.loadFromData(raw):
            continue
        label = QLabel()
        label.setObjectName("toolCardImage")
        label.setAccessibleName(f"Image from {tool} ({mime}, {image.width()}×{image.height()})")
        pixmap = QPixmap.fromImage(image)
        if image.width() > MAX_IMAGE_WIDTH * ratio:
            pixmap = pixmap.scaledToWidth(int(MAX_IMAGE_WIDTH * ratio), Qt.TransformationMode.SmoothTransformation)
        pixmap.setDevicePixelRatio(ratio)
        label.setPixmap(pixmap)
        label.setToolTip(f"{mime}, {image.width()}×{image.height()}, {len(raw):,} bytes")
        shown.append(label)
    return shown
