"""Qt WebEngine, loaded when the first MCP App view is shown (never at start-up, never for text results).

:func:`load_engine` prepares Chromium's flags and imports the WebEngine modules once. Running as root,
Chromium refuses to start its sandbox; then (and only then) ``--no-sandbox`` is added, with a warning in the
log: the view stays inside its iframe sandbox, CSP and request filter, but without Chromium's process
sandbox. Under the offscreen platform (tests, CI) the GPU is off. :func:`view_profile` is the one
off-the-record profile the views share: no disk cache, no persistent cookies or storage, no file access.
"""

from __future__ import annotations

import logging
import os
import sys
from typing import Any

log = logging.getLogger(__name__)

_profile: Any = None
WEBENGINE_MODULES = ("PySide6.QtWebEngineCore", "PySide6.QtWebEngineWidgets", "PySide6.QtWebChannel")


def chromium_flags(environ: dict[str, str] | os._Environ[str], *, root: bool, offscreen: bool) -> str:
    """The ``QTWEBENGINE_CHROMIUM_FLAGS`` to run with (the user's own kept)."""
    flags = environ.get("QTWEBENGINE_CHROMIUM_FLAGS", "").split()
    if root and "--no-sandbox" not in flags:
        flags.append("--no-sandbox")
    if offscreen and "--disable-gpu" not in flags:
        flags.append("--disable-gpu")
    return " ".join(flags)


def available() -> bool:
    """Whether Qt WebEngine is installed here (without importing it). The installers bundle it
    (packaging/project.py WEBENGINE_QT); a source install without it shows those tools' text results."""
    import importlib.util

    try:
        return importlib.util.find_spec("PySide6.QtWebEngineWidgets") is not None
    except (ImportError, ValueError):
        return False


def is_loaded() -> bool:
    return "PySide6.QtWebEngineWidgets" in sys.modules


_prepared = False


def load_engine() -> None:
    """Import Qt WebEngine (once), with the flags above in force before Chromium starts."""
    global _prepared
    if _prepared:
        return
    _prepared = True
    root = hasattr(os, "geteuid") and os.geteuid() == 0
    offscreen = os.environ.get("QT_QPA_PLATFORM", "") == "offscreen"
    flags = chromium_flags(os.environ, root=root, offscreen=offscreen)
    if root and "--no-sandbox" not in os.environ.get("QTWEBENGINE_CHROMIUM_FLAGS", ""):
        log.warning("running as root: app views run without Chromium's process sandbox (--no-sandbox)")
    os.environ["QTWEBENGINE_CHROMIUM_FLAGS"] = flags
    import PySide6.QtWebChannel
    import PySide6.QtWebEngineCore
    import PySide6.QtWebEngineWidgets  # noqa: F401


def view_profile() -> Any:
    """The off-the-record profile every view uses (created on first use)."""
    global _profile
    if _profile is None:
        load_engine()
        from PySide6.QtCore import QCoreApplication
        from PySide6.QtWebEngineCore import QWebEngineProfile, QWebEngineSettings

        # no storage name: off the record, nothing written to disk; owned by the application, so that it
        # outlives every page
        profile = QWebEngineProfile(QCoreApplication.instance())
        profile.setHttpCacheType(QWebEngineProfile.HttpCacheType.MemoryHttpCache)
        profile.setPersistentCookiesPolicy(QWebEngineProfile.PersistentCookiesPolicy.NoPersistentCookies)
        settings = profile.settings()
        attribute = QWebEngineSettings.WebAttribute
        for name, value in (
            (attribute.LocalContentCanAccessFileUrls, False),
            (attribute.LocalContentCanAccessRemoteUrls, False),
            (attribute.JavascriptCanOpenWindows, False),
            (attribute.JavascriptCanAccessClipboard, False),
            (attribute.JavascriptCanPaste, False),
            (attribute.PluginsEnabled, False),
            (attribute.PdfViewerEnabled, False),
            (attribute.FullScreenSupportEnabled, False),
            (attribute.ScreenCaptureEnabled, False),
            (attribute.WebRTCPublicInterfacesOnly, True),
            (attribute.AllowRunningInsecureContent, False),
            (attribute.AllowGeolocationOnInsecureOrigins, False),
            (attribute.AllowWindowActivationFromJavaScript, False),
            (attribute.LocalStorageEnabled, False),
            (attribute.NavigateOnDropEnabled, False),
        ):
            settings.setAttribute(name, value)
        _profile = profile
    return _profile


__all__ = ["WEBENGINE_MODULES", "available", "chromium_flags", "is_loaded", "load_engine", "view_profile"]
