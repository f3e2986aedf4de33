"""Images and embedded resources in a tool result, as widgets for the tool card.

Images (MCP image content, or an embedded image resource) become labels. Other embedded resources become a
small framed box: the resource's URI and type over its text (monospace, scrolling), or its size for binary
contents. A result's text names each of them (``[image image/png, 4033 bytes]``, ``[resource URI]`` and the
text, ``[resource URI type, N bytes]``); once they are on the card, ``strip_shown`` drops those parts from
the text shown under the card's Result caption.
"""

from __future__ import annotations

import base64
import binascii
import re
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QFontDatabase, QImage, QPixmap
from PySide6.QtWidgets import QFrame, QLabel, QPlainTextEdit, QVBoxLayout, QWidget

MEDIA_SUMMARY = re.compile(r"^\[(image image|resource \S+ image)/[\w.+-]+, [\d,]+ bytes\]$")
MAX_IMAGE_WIDTH = 480
RESOURCE_LINES = 12  # an embedded text resource's box shows this many lines, then scrolls


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


def _size(data: str) -> int:
    try:
        return len(base64.b64decode(data, validate=False))
    except (binascii.Error, ValueError):
        return len(data) * 3 // 4


def _embedded(media: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The embedded resources of ``media`` that are not images."""
    out: list[dict[str, Any]] = []
    for block in media:
        resource = block.get("resource")
        if block.get("type") != "resource" or not isinstance(resource, dict):
            continue
        if not str(resource.get("mimeType") or "").startswith("image/"):
            out.append(resource)
    return out


def resource_boxes(media: list[dict[str, Any]], tool: str) -> list[QWidget]:
    """One box per embedded (non-image) resource: its URI and type, then its text or its size."""
    boxes: list[QWidget] = []
    for resource in _embedded(media):
        uri, mime = str(resource.get("uri", "")), str(resource.get("mimeType") or "")
        box = QFrame()
        box.setObjectName("toolCardResource")
        box.setAccessibleName(f"Resource {uri} from {tool}")
        box.setStyleSheet("QFrame#toolCardResource { border: 1px solid palette(midlight); border-radius: 4px; }")
        layout = QVBoxLayout(box)
        layout.setContentsMargins(8, 4, 8, 6)
        layout.setSpacing(2)
        header = QLabel(uri + (f"  ·  {mime}" if mime else ""))
        header.setObjectName("toolCardResourceUri")
        header.setTextFormat(Qt.TextFormat.PlainText)
        header.setWordWrap(True)
        header.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        header.setStyleSheet("QLabel { color: palette(placeholder-text); }")
        layout.addWidget(header)
        text = resource.get("text")
        if isinstance(text, str):
            body = QPlainTextEdit(text)
            body.setObjectName("toolCardResourceText")
            body.setAccessibleName(f"Text of {uri}")
            body.setReadOnly(True)
            body.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
            body.setFrameShape(QFrame.Shape.NoFrame)
            body.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
            lines = min(RESOURCE_LINES, max(1, text.count("\n") + 1))
            body.setFixedHeight(lines * body.fontMetrics().lineSpacing() + 12)
            layout.addWidget(body)
        else:
            blob = resource.get("blob")
            size = _size(blob) if isinstance(blob, str) else 0
            note = QLabel(f"Binary contents, {size:,} bytes")
            note.setObjectName("toolCardResourceSize")
            layout.addWidget(note)
        boxes.append(box)
    return boxes


def strip_shown(text: str, media: list[dict[str, Any]], *, images: bool) -> str:
    """``text`` without the parts that name what the card now shows (images when ``images``, resources)."""
    for resource in _embedded(media):
        uri, body = resource.get("uri", ""), resource.get("text")
        if isinstance(body, str):
            text = text.replace(f"[resource {uri}]\n{body}", "", 1)
        else:
            text = "\n".join(
                line for line in text.split("\n") if not (line.startswith(f"[resource {uri}") and "bytes]" in line)
            )
    if images:
        text = "\n".join(line for line in text.split("\n") if not MEDIA_SUMMARY.match(line))
    return text.strip()
