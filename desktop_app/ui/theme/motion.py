"""Motion with restraint: the durations (tokens, all ≤ 200 ms), the OS's reduced-motion setting, and the one
expand/collapse animation the chat uses (tool cards, reasoning).

    from desktop_app.ui.theme import motion
    motion.duration("standard")        # 180 ms, or 0 when the OS asks for reduced motion
    motion.fold(widget, expanding)     # eases ``widget``'s height open or shut (or shows/hides it at once)

Reduced motion: ``SWITCHBOARD_REDUCED_MOTION=1`` (or ``0``) decides first; otherwise the platform's setting,
asked once per process, lazily (never during start-up): GNOME/GTK ``enable-animations`` (gsettings, then
``gtk-enable-animations`` in the GTK 3/4 ``settings.ini``), Windows' client-area animation flag
(``SPI_GETCLIENTAREAANIMATION``), macOS' ``reduceMotion`` (Accessibility → Display). Qt 6.11's
``QStyleHints`` has no reduced-motion flag on every platform, so it is not asked.
"""

from __future__ import annotations

import os
import sys
from types import MappingProxyType

from PySide6.QtCore import QAbstractAnimation, QEasingCurve, QPropertyAnimation
from PySide6.QtWidgets import QWidget

DURATIONS = MappingProxyType({"fast": 120, "standard": 180, "slow": 200})  # ms; the longest is 200
EASING = "OutCubic"  # a QEasingCurve.Type, by name: the enum is built on first use, not at import
MAX_HEIGHT = 16_777_215  # QWIDGETSIZE_MAX: no maximum
_cached: list[bool] = []
_running: dict[int, QPropertyAnimation] = {}  # id(widget) → its fold in progress
_limits: dict[int, int] = {}  # id(widget) → its own maximum height, put back when its fold ends


# configparser, shutil, subprocess and pathlib are imported where the OS is asked (at the first fold, never
# before the first paint: this module loads with the chat blocks).


def _gnome() -> bool | None:
    import shutil
    import subprocess

    if shutil.which("gsettings") is None:
        return None
    try:
        out = subprocess.run(
            ["gsettings", "get", "org.gnome.desktop.interface", "enable-animations"],
            capture_output=True,
            text=True,
            timeout=1.0,
            check=False,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return {"true": False, "false": True}.get(out)


def _gtk_ini() -> bool | None:
    import configparser
    from pathlib import Path

    config = Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config")
    for version in ("gtk-4.0", "gtk-3.0"):
        parser = configparser.ConfigParser()
        try:
            parser.read(config / version / "settings.ini", encoding="utf-8")
        except (OSError, configparser.Error):
            continue
        value = parser.get("Settings", "gtk-enable-animations", fallback=None)
        if value is not None:
            return value.strip().lower() in ("false", "0", "no")
    return None


def _windows() -> bool | None:
    try:
        import ctypes

        enabled = ctypes.c_bool(True)
        spi_getclientareaanimation = 0x1042
        ok = ctypes.windll.user32.SystemParametersInfoW(  # type: ignore[attr-defined]
            spi_getclientareaanimation, 0, ctypes.byref(enabled), 0
        )
    except (AttributeError, OSError):
        return None
    return not enabled.value if ok else None


def _macos() -> bool | None:
    import subprocess

    try:
        out = subprocess.run(
            ["defaults", "read", "com.apple.universalaccess", "reduceMotion"],
            capture_output=True,
            text=True,
            timeout=1.0,
            check=False,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return {"1": True, "0": False}.get(out)


def platform_reduced_motion() -> bool:
    """What the OS says (``False`` when it says nothing)."""
    if sys.platform == "win32":
        found = _windows()
    elif sys.platform == "darwin":
        found = _macos()
    else:
        found = _gtk_ini()
        if found is None:
            found = _gnome()
    return bool(found)


def reduced_motion() -> bool:
    """Whether to animate nothing: the environment override, else the OS's setting (asked once)."""
    override = os.environ.get("SWITCHBOARD_REDUCED_MOTION", "").strip()
    if override in ("1", "true", "yes"):
        return True
    if override in ("0", "false", "no"):
        return False
    if not _cached:
        _cached.append(platform_reduced_motion())
    return _cached[0]


def duration(name: str = "standard") -> int:
    """The duration token ``name`` in ms, 0 under reduced motion."""
    return 0 if reduced_motion() else DURATIONS[name]


def fold(widget: QWidget, expanding: bool, name: str = "standard") -> QAbstractAnimation | None:
    """Ease ``widget`` open (from no height to its natural one) or shut (then hide it); at once under reduced
    motion (returns ``None``). The animation belongs to the widget; a new fold stops the one running."""
    running = _running.pop(id(widget), None)
    if running is not None:
        running.stop()
        running.deleteLater()
        widget.setMaximumHeight(_limits.pop(id(widget), MAX_HEIGHT))
    ms = duration(name)
    if ms == 0 or (not expanding and not widget.isVisible()):
        widget.setVisible(expanding)
        return None
    start = 0 if expanding else widget.height()
    widget.setVisible(True)
    limit = widget.maximumHeight()  # a widget that fits its text sets a fixed height: keep it
    end = max(min(widget.sizeHint().height(), limit), 1) if expanding else 0
    animation = QPropertyAnimation(widget, b"maximumHeight", widget)
    animation.setDuration(ms)
    animation.setEasingCurve(getattr(QEasingCurve.Type, EASING))
    animation.setStartValue(start)
    animation.setEndValue(end)

    def done() -> None:
        _running.pop(id(widget), None)
        _limits.pop(id(widget), None)
        widget.setMaximumHeight(limit)
        widget.setVisible(expanding)
        animation.deleteLater()

    animation.finished.connect(done)
    _running[id(widget)] = animation
    _limits[id(widget)] = limit
    widget.setMaximumHeight(start)
    animation.start()
    return animation


__all__ = ["DURATIONS", "duration", "fold", "platform_reduced_motion", "reduced_motion"]
