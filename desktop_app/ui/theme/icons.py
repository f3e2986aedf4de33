"""The app's icon set: the SVGs under ``resources/icons/`` drawn in the theme's colours, sharp at any scale.

Every icon file strokes or fills with ``currentColor``. :func:`icon` returns a ``QIcon`` whose engine
(``_TintedEngine``) renders the SVG through QtSvg when Qt asks for a pixmap, at the requested size times the
device pixel ratio, with ``currentColor`` replaced by a colour role of the theme in force
(``theme.tokens``): the icon re-tints by itself when the theme switches (the next paint reads the tokens
again). Disabled icons take ``text_disabled``. Rendered pixmaps are cached per (icon, colour, size).

``ACTION_ICONS`` names the icon of each window action that has one (by ``objectName``);
:func:`apply_action_icons` gives them their icons (the window calls it once its menus are built).

Why our own SVGs and not qtawesome: qtawesome is one more dependency that loads whole icon fonts into
the font database at its first icon, for the ~30 icons used here; 1 KB SVGs rendered by QtSvg (part of
PySide6 already) need nothing more.
"""

from __future__ import annotations

import sys
from functools import cache
from pathlib import Path

from PySide6.QtCore import QByteArray, QPoint, QRect, QRectF, QSize, Qt
from PySide6.QtGui import QIcon, QIconEngine, QPainter, QPixmap
from PySide6.QtWidgets import QWidget

from desktop_app.ui.theme.tokens import tokens

ICON_NAMES = (
    "new", "send", "stop", "attach", "copy", "edit", "regenerate", "settings", "servers", "tools",
    "conversations", "approve", "deny", "error", "warning", "success", "running", "collapse", "collapse-right",
    "expand", "search", "clipboard", "resource", "agent", "key", "lock", "plus", "chevron-down", "chevron-right",
    "delete", "model",
)  # fmt: skip
"""Every icon the set has (a file ``resources/icons/<name>.svg`` each)."""

ACTION_ICONS = {
    "newChatAction": "new",
    "settingsAction": "settings",
    "providerAction": "key",
    "approvalsAction": "approve",
    "findAction": "search",
    "copyLastAnswerAction": "copy",
    "importServersAction": "servers",
    "installExtensionAction": "plus",
    "conversationsAction": "conversations",
    "serversAction": "servers",
    "toolsPanelAction": "tools",
    "toolSearchAction": "search",
}
"""The window actions with an icon, by ``objectName``."""

_cache: dict[tuple[str, str, int, int], QPixmap] = {}


def _icons_dir() -> Path:
    base = getattr(sys, "_MEIPASS", None)
    return (Path(base) if base else Path(__file__).resolve().parents[3]) / "resources" / "icons"


@cache
def svg_source(name: str) -> str:
    """The SVG text of icon ``name`` (with ``currentColor`` still in it)."""
    return (_icons_dir() / f"{name}.svg").read_text(encoding="utf-8")


def render(name: str, colour: str, width: int, height: int) -> QPixmap:
    """Icon ``name`` drawn in ``colour`` (``#rrggbb``) on a transparent pixmap of ``width``×``height`` device
    pixels (cached)."""
    key = (name, colour, width, height)
    pixmap = _cache.get(key)
    if pixmap is None:
        from PySide6.QtSvg import QSvgRenderer

        renderer = QSvgRenderer(QByteArray(svg_source(name).replace("currentColor", colour).encode()))
        pixmap = QPixmap(max(1, width), max(1, height))
        pixmap.fill(Qt.GlobalColor.transparent)
        painter = QPainter(pixmap)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        side = min(width, height)
        renderer.render(painter, QRectF((width - side) / 2, (height - side) / 2, side, side))
        painter.end()
        _cache[key] = pixmap
    return pixmap


class _TintedEngine(QIconEngine):
    """Draws one icon of the set in a colour role of the theme in force (see the module docstring)."""

    def __init__(self, name: str, role: str) -> None:
        super().__init__()
        self.name = name
        self.role = role

    def colour(self, mode: QIcon.Mode) -> str:
        t = tokens()
        return t.text_disabled if mode == QIcon.Mode.Disabled else str(getattr(t, self.role))

    def scaledPixmap(self, size: QSize, mode: QIcon.Mode, state: QIcon.State, scale: float) -> QPixmap:
        width, height = round(size.width() * scale), round(size.height() * scale)
        pixmap = QPixmap(render(self.name, self.colour(mode), width, height))
        pixmap.setDevicePixelRatio(scale)
        return pixmap

    def pixmap(self, size: QSize, mode: QIcon.Mode, state: QIcon.State) -> QPixmap:
        return self.scaledPixmap(size, mode, state, 1.0)

    def paint(self, painter: QPainter, rect: QRect, mode: QIcon.Mode, state: QIcon.State) -> None:
        scale = painter.device().devicePixelRatioF() if painter.device() is not None else 1.0
        pixmap = self.scaledPixmap(rect.size(), mode, state, scale)
        painter.drawPixmap(QPoint(rect.x(), rect.y()), pixmap)

    def actualSize(self, size: QSize, mode: QIcon.Mode, state: QIcon.State) -> QSize:
        side = min(size.width(), size.height())
        return QSize(side, side)

    def clone(self) -> QIconEngine:
        return _TintedEngine(self.name, self.role)

    def key(self) -> str:
        return "switchboard-tinted"

    def iconName(self) -> str:
        return self.name


def icon(name: str, role: str = "text_muted") -> QIcon:
    """Icon ``name`` of the set, drawn in the colour role ``role`` (a ``tokens.Colours`` field: ``text``,
    ``text_muted``, ``accent``, ``accent_text``, ``danger``, ``warning``, ``success``…) of the theme in force."""
    if name not in ICON_NAMES:
        raise KeyError(f"no icon named {name!r} in resources/icons")
    return QIcon(_TintedEngine(name, role))


def apply_action_icons(root: QWidget) -> int:
    """Give every action under ``root`` named in ``ACTION_ICONS`` its icon; returns how many got one."""
    from PySide6.QtGui import QAction

    count = 0
    for action in root.findChildren(QAction):
        name = ACTION_ICONS.get(action.objectName())
        if name is not None:
            action.setIcon(icon(name, "text"))
            count += 1
    return count


__all__ = ["ACTION_ICONS", "ICON_NAMES", "apply_action_icons", "icon", "render", "svg_source"]
